import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database, Queryable } from '../core/db/database.js';
import {
  type JobRow,
  type NewJob,
  claimJobs,
  heartbeatJob,
  heartbeatJobs,
  insertJob,
  releaseLeases,
} from '../core/jobs/job.repository.js';
import {
  type JobBatchControl,
  type JobBatchDefinition,
  type JobDefinitions,
  LeaseLostError,
  type WorkflowEngine,
} from '../core/ports/workflow-engine.js';
import { type DomainMetrics, noDomainMetrics } from '../core/ports/metrics.js';
import { turnEventLoop } from '../core/shared/event-loop.js';
import { keepLeases, recordAttempt, runJobAttempt } from './job-runner.js';

export interface EmbeddedEngineOptions {
  /** Jobs run at once by this process. */
  concurrency: number;
  leaseSeconds: number;
  /** How often idle workers look for due jobs (retries, scheduled jobs, other processes' work). */
  pollIntervalMs: number;
  /** Backoff before retry n (1-based): base * 2^(n-1), capped. */
  retryBaseSeconds: number;
  retryMaxSeconds: number;
  /**
   * PGlite admits one process per data directory, so at start every lease still held belongs to
   * a dead run of this process and is released at once instead of waiting for it to expire.
   */
  releaseStaleLeasesOnStart: boolean;
  /** Attempts before a job fails for good, unless the job sets its own. */
  maxAttempts: number;
}

export const DEFAULT_ENGINE_OPTIONS: EmbeddedEngineOptions = {
  concurrency: 2,
  leaseSeconds: 30,
  pollIntervalMs: 500,
  retryBaseSeconds: 2,
  retryMaxSeconds: 300,
  releaseStaleLeasesOnStart: false,
  maxAttempts: 5,
};

/**
 * The embedded topology's durable job engine: workers in this process claim jobs from the jobs
 * table with a lease, heartbeat while they run, retry with exponential backoff, and fail a job
 * for good after its `max_attempts`. A killed process loses nothing: its leases expire (or are
 * released at the next start) and the jobs run again; activities are idempotent.
 *
 * A job type whose definition has a `batch` has its due first attempts claimed up to `batch.max`
 * at a time and run together; retries run alone, and so does every job of a batch that failed,
 * so a job's failures and retries are its own whichever way it first ran.
 */
export class EmbeddedWorkflowEngine implements WorkflowEngine {
  private readonly owner = `embedded-${randomUUID()}`;
  private readonly options: EmbeddedEngineOptions;
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private started = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly abort = new AbortController();

  private readonly definitions: JobDefinitions = {};
  /** Jobs claimed together, by job type (types whose definitions have a `batch`). */
  private readonly batchSizes: Partial<Record<string, number>> = {};

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    options: Partial<EmbeddedEngineOptions> = {},
    private readonly metrics: DomainMetrics = noDomainMetrics,
  ) {
    this.options = { ...DEFAULT_ENGINE_OPTIONS, ...options };
  }

  /** Registers how job types run (done once while wiring, before `start`). */
  register(definitions: JobDefinitions): void {
    Object.assign(this.definitions, definitions);
    for (const [type, definition] of Object.entries(definitions)) {
      if (definition.batch) this.batchSizes[type] = definition.batch.max;
      else delete this.batchSizes[type];
    }
  }

  enqueue(tx: Queryable, job: NewJob): Promise<string | undefined> {
    return insertJob(tx, { ...job, maxAttempts: job.maxAttempts ?? this.options.maxAttempts });
  }

  notify(): void {
    this.wake?.();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.options.releaseStaleLeasesOnStart) {
      const released = await releaseLeases(this.db, this.owner);
      if (released) this.log.info({ released }, 'resuming jobs interrupted by a previous run');
    }
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.running]);
  }

  /** Runs due jobs (of `types`, default all) until none is left (tests and the CLI use this instead of the background loop). */
  async drain(types: readonly string[] = this.types()): Promise<number> {
    let ran = 0;
    for (;;) {
      const jobs = await this.claim(types);
      if (!jobs.length) return ran;
      await this.execute(jobs);
      ran += jobs.length;
    }
  }

  private claim(types: readonly string[]): Promise<JobRow[]> {
    return claimJobs(this.db, this.owner, this.options.leaseSeconds, types, this.batchSizes);
  }

  private types(): string[] {
    return Object.keys(this.definitions);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let claimed = false;
      while (!this.stopping && this.running.size < this.options.concurrency) {
        let jobs: JobRow[];
        try {
          jobs = await this.claim(this.types());
        } catch (err) {
          this.log.error({ err }, 'claiming a job failed');
          break;
        }
        if (!jobs.length) break;
        claimed = true;
        const task = this.execute(jobs).finally(() => {
          this.running.delete(task);
          this.wake?.();
        });
        this.running.add(task);
      }
      if (this.stopping) break;
      if (!claimed || this.running.size >= this.options.concurrency) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  /** Runs what one claim took: one job, or a batch of first attempts of one type. */
  private async execute(jobs: readonly JobRow[]): Promise<void> {
    // Back-to-back jobs on PGlite never let the event loop turn: timers (table maintenance) and
    // sockets (HTTP requests) waited until a backlog was done. One turn per claim lets them in, and
    // one per heartbeat does within a long job.
    await turnEventLoop();
    const batch = jobs.length > 1 ? this.definitions[jobs[0]!.job_type]?.batch : undefined;
    if (!batch) {
      for (const job of jobs) await this.runAlone(job);
      return;
    }
    for (const job of await this.runBatch(batch, jobs)) {
      // It waited for its turn holding its lease: extend it, or leave the job to the worker that took it over.
      let held: boolean;
      try {
        held = await heartbeatJob(this.db, job.id, this.owner, this.options.leaseSeconds);
      } catch (err) {
        this.log.error({ err, jobId: job.id }, 'extending a lease failed; the lease will expire and the job run again');
        continue;
      }
      if (held) await this.runAlone(job);
      else this.log.warn({ jobId: job.id, jobType: job.job_type }, 'lease lost; leaving the job to its new worker');
    }
  }

  /** Runs a batch; returns the jobs left to run one by one (all of them when the batch failed). */
  private async runBatch(batch: JobBatchDefinition, jobs: readonly JobRow[]): Promise<readonly JobRow[]> {
    const ids = jobs.map((j) => j.id);
    const log = this.log.child({ jobType: jobs[0]!.job_type, jobIds: ids });
    const kept = keepLeases(this.db, ids, { owner: this.owner, leaseSeconds: this.options.leaseSeconds, signal: this.abort.signal, log });
    const control: JobBatchControl = {
      owner: this.owner,
      signal: kept.signal,
      heartbeat: async () => {
        await turnEventLoop();
        if ((await heartbeatJobs(this.db, ids, this.owner, this.options.leaseSeconds)).size < ids.length) {
          throw new LeaseLostError('Another worker took over a job of this batch.');
        }
      },
    };
    const started = performance.now();
    try {
      const alone = await batch.run(jobs, control);
      const seconds = (performance.now() - started) / 1000;
      const left = new Set(alone.map((j) => j.id));
      for (const job of jobs) {
        if (left.has(job.id)) continue;
        recordAttempt(this.metrics, job, 'completed', seconds);
        this.log.info({ jobId: job.id, jobType: job.job_type, tenantId: job.tenant_id, attempt: job.attempts, batch: jobs.length }, 'job completed');
      }
      return alone;
    } catch (err) {
      const lost = err instanceof LeaseLostError || kept.lost;
      log.warn({ err }, lost ? 'lease lost in a batch; running the jobs still held one by one' : 'batch failed; running its jobs one by one');
      return jobs;
    } finally {
      kept.stop();
    }
  }

  private async runAlone(job: JobRow): Promise<void> {
    const log = this.log.child({ jobId: job.id, jobType: job.job_type, tenantId: job.tenant_id, attempt: job.attempts });
    await runJobAttempt(this.db, this.definitions[job.job_type], job, {
      owner: this.owner,
      signal: this.abort.signal,
      options: this.options,
      log,
      metrics: this.metrics,
    });
  }
}
