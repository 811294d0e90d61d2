import type { Logger } from 'pino';
import type { Database, Queryable } from '../../core/db/database.js';
import { type NewJob, type OutboxEntry, insertJob, insertOutbox, markDispatched, pendingOutbox } from '../../core/jobs/job.repository.js';
import type { JobType } from '../../core/jobs/job.schema.js';
import type { WorkflowEngine } from '../../core/ports/workflow-engine.js';
import { type RunJobInput, type ScheduledJob, billingWorkflowId, jobWorkflowId } from './job-input.js';

/** The task queue of each job family, so workers can be scaled (and given resources) per family. */
export function taskQueueOf(prefix: string, type: JobType): string {
  switch (type) {
    case 'ingestion':
    case 'corpus_ingestion':
      return `${prefix}-documents`;
    case 'transcription':
    case 'report_generation':
    case 'callback_delivery':
      return `${prefix}-addons`;
    case 'billing_period':
      return `${prefix}-billing`;
  }
}

export const TASK_QUEUE_FAMILIES = ['documents', 'addons', 'billing'] as const;

/**
 * How the engine starts a workflow: Temporal's client in production (`temporalStarter`), a fake in
 * tests. Starting a workflow id that is already running (or ran) must resolve, not fail: the job is
 * already in Temporal's hands.
 */
export interface WorkflowStarter {
  startJob(options: { workflowId: string; taskQueue: string; input: RunJobInput }): Promise<void>;
  /** Signals a tenant's billing workflow with a scheduled transition, starting the workflow if it is not running. */
  scheduleBillingPeriod(options: { workflowId: string; taskQueue: string; tenantId: string; job: ScheduledJob }): Promise<void>;
}

export interface TemporalEngineOptions {
  taskQueue: string;
  /** Attempts before a job fails for good, unless the job sets its own. */
  maxAttempts: number;
  /** How often the dispatcher looks at the outbox when nothing woke it. */
  pollIntervalMs: number;
}

/**
 * The WorkflowEngine port over Temporal (`WORKFLOW_ENGINE=temporal`). Enqueueing stays transactional:
 * the job row and an outbox row are written in the caller's transaction. After commit (`notify`),
 * and every `pollIntervalMs`, the dispatcher starts a workflow for each outbox row and marks it; a
 * crash between commit and start loses nothing (the row stays pending), and a start repeated after a
 * crash between start and mark starts nothing twice (the workflow id is the job's).
 */
export class TemporalWorkflowEngine implements WorkflowEngine {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly db: Database,
    private readonly starter: WorkflowStarter,
    private readonly log: Logger,
    private readonly options: TemporalEngineOptions,
  ) {}

  async enqueue(tx: Queryable, job: NewJob): Promise<string | undefined> {
    const id = await insertJob(tx, { ...job, maxAttempts: job.maxAttempts ?? this.options.maxAttempts });
    if (id) await insertOutbox(tx, id);
    return id;
  }

  notify(): void {
    if (!this.stopped) void this.dispatchSoon();
  }

  start(): Promise<void> {
    this.stopped = false;
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.dispatchSoon().finally(() => {
          if (!this.stopped) tick();
        });
      }, this.options.pollIntervalMs);
      this.timer.unref();
    };
    tick();
    void this.dispatchSoon();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One dispatch at a time; a request during one runs another after it. */
  private dispatchSoon(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.dispatch().catch((err: unknown) => this.log.error({ err }, 'starting job workflows failed; will try again'));
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Starts the workflows of the pending outbox rows; answers how many it started. */
  async dispatch(): Promise<number> {
    let started = 0;
    for (;;) {
      const pending = await pendingOutbox(this.db, 100);
      if (!pending.length) return started;
      const done: string[] = [];
      for (const entry of pending) {
        try {
          await this.startWorkflow(entry);
          done.push(entry.job_id);
        } catch (err) {
          // Temporal cannot be reached: the row stays pending for the next round.
          this.log.warn({ err, jobId: entry.job_id }, 'starting a job workflow failed; will try again');
          break;
        }
      }
      if (done.length) await markDispatched(this.db, done);
      started += done.length;
      if (done.length < pending.length) return started;
    }
  }

  /** A tenant's billing transitions go to its one billing workflow; every other job gets a workflow of its own. */
  private startWorkflow(entry: OutboxEntry): Promise<void> {
    const taskQueue = taskQueueOf(this.options.taskQueue, entry.job_type);
    const job = { jobId: entry.job_id, runAt: new Date(entry.run_at).getTime(), maxAttempts: entry.max_attempts };
    if (entry.job_type === 'billing_period' && entry.tenant_id) {
      return this.starter.scheduleBillingPeriod({ workflowId: billingWorkflowId(entry.tenant_id), taskQueue, tenantId: entry.tenant_id, job });
    }
    return this.starter.startJob({ workflowId: jobWorkflowId(entry.job_id), taskQueue, input: job });
  }
}
