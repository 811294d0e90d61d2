import type { Logger } from 'pino';
import type { Database } from '../core/db/database.js';
import { type JobRow, failJobAttempt, heartbeatJob, heartbeatJobs } from '../core/jobs/job.repository.js';
import type { DomainMetrics } from '../core/ports/metrics.js';
import { type JobControl, type JobDefinition, LeaseLostError, NonRetryableError, RetryLaterError } from '../core/ports/workflow-engine.js';
import { turnEventLoop } from '../core/shared/event-loop.js';

/** Job errors are shown to tenants: keep the message, never stacks, paths or connection strings. */
export function sanitizeJobError(err: unknown): string {
  const message = err instanceof Error ? err.message : 'The job failed.';
  return message
    .replace(/(postgres(ql)?|https?):\/\/\S+/gi, '[url]')
    .replace(/(\/[\w.-]+){2,}/g, '[path]')
    .split('\n')[0]!
    .slice(0, 500);
}

/** How one attempt of a claimed job ended. */
export type AttemptOutcome =
  | { status: 'completed' }
  | { status: 'lease_lost' }
  | { status: 'failed'; error: string }
  | { status: 'retry'; delaySeconds: number; error: string };

export interface AttemptOptions {
  leaseSeconds: number;
  /** Backoff before retry n (1-based): base * 2^(n-1), capped. */
  retryBaseSeconds: number;
  retryMaxSeconds: number;
}

/** What an attempt runs with: its lease owner, cancellation, options, log, and where it is recorded. */
export interface AttemptRun {
  owner: string;
  signal: AbortSignal;
  options: AttemptOptions;
  log: Logger;
  metrics: DomainMetrics;
  onHeartbeat?: (progress: unknown) => void;
}

/**
 * Runs one attempt of a job its caller has claimed (leased to `owner`), the one way both engines do:
 * heartbeats extend the lease and record progress; a failure is recorded on the job row, which goes
 * back to the queue after a backoff (or the delay a RetryLaterError asks for), or fails for good
 * (NonRetryableError, or its last attempt) and then runs the definition's `failed` hook in the same
 * transaction. `onHeartbeat` lets an engine report liveness elsewhere too (Temporal's heartbeat).
 * The attempt is recorded in the metrics, so both engines report the same series.
 */
export async function runJobAttempt(db: Database, definition: JobDefinition | undefined, job: JobRow, run: AttemptRun): Promise<AttemptOutcome> {
  const started = performance.now();
  const outcome = await attempt(db, definition, job, run);
  recordAttempt(run.metrics, job, outcome.status, (performance.now() - started) / 1000);
  return outcome;
}

/**
 * Records an attempt that took `seconds`, and the job's end when it finished it. (The embedded
 * engine's batches, which run first attempts together, record theirs here too.)
 */
export function recordAttempt(metrics: DomainMetrics, job: JobRow, status: AttemptOutcome['status'], seconds: number): void {
  metrics.jobAttempted(job.job_type, status, seconds);
  if (status !== 'completed' && status !== 'failed') return;
  // started_at is the database's clock: never report less than this attempt took.
  const sinceStart = job.started_at ? (Date.now() - job.started_at.getTime()) / 1000 : 0;
  metrics.jobFinished(job.job_type, status, Math.max(seconds, sinceStart));
}

/** The leases of jobs an attempt holds, kept while it runs (`keepLeases`). */
export interface KeptLeases {
  /** Aborts when the engine stops or another worker took a lease over. */
  readonly signal: AbortSignal;
  /** Whether another worker took a lease over. */
  readonly lost: boolean;
  stop(): void;
}

/**
 * Extends the leases of `ids` every third of a lease while their attempt runs, whatever its own
 * heartbeats: a step longer than the lease (one audio segment transcribed on a loaded machine)
 * would otherwise hand a live attempt's job to another worker, which would run it a second time
 * beside the first. A dead process stops renewing, so its jobs still go to another worker when the
 * lease lapses; a step that hangs ends at its own timeout (every outside call has one). When a
 * lease is no longer this attempt's (another worker holds it, or the job left `processing`: its
 * tenant or document deleted), `signal` aborts with a LeaseLostError; after each renewal of them
 * all, `onRenew` runs.
 */
export function keepLeases(
  db: Database,
  ids: readonly string[],
  held: { owner: string; leaseSeconds: number; signal: AbortSignal; log: Logger; onRenew?: () => void },
): KeptLeases {
  const { owner, leaseSeconds, signal, log, onRenew } = held;
  const taken = new AbortController();
  let renewing = false;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    heartbeatJobs(db, ids, owner, leaseSeconds)
      .then((still) => {
        if (still.size === ids.length) onRenew?.();
        else {
          // The last renewal: the timer stops here, and `renewing` keeps any tick until then out.
          clearInterval(timer);
          taken.abort(new LeaseLostError('Another worker took over this job.'));
        }
      })
      .catch((err: unknown) => log.warn({ err }, 'extending a lease failed; trying again'))
      .finally(() => {
        renewing = false;
      });
  }, (leaseSeconds * 1000) / 3);
  timer.unref();
  return {
    signal: AbortSignal.any([signal, taken.signal]),
    get lost() {
      return taken.signal.aborted;
    },
    stop: () => clearInterval(timer),
  };
}

async function attempt(db: Database, definition: JobDefinition | undefined, job: JobRow, run: AttemptRun): Promise<AttemptOutcome> {
  const { owner, options, log, onHeartbeat } = run;
  // Temporal hears of each renewal too: its heartbeat timeout then tells a dead worker as the lease does.
  const kept = keepLeases(db, [job.id], { owner, leaseSeconds: options.leaseSeconds, signal: run.signal, log, onRenew: onHeartbeat && (() => onHeartbeat(undefined)) });
  const control: JobControl = {
    owner,
    signal: kept.signal,
    heartbeat: async (progress) => {
      await turnEventLoop();
      onHeartbeat?.(progress);
      if (!(await heartbeatJob(db, job.id, owner, options.leaseSeconds, progress))) {
        throw new LeaseLostError('Another worker took over this job.');
      }
    },
  };
  try {
    if (!definition) throw new NonRetryableError(`No handler for job type ${job.job_type}.`);
    await definition.run(job, control);
    log.info('job completed');
    return { status: 'completed' };
  } catch (err) {
    if (err instanceof LeaseLostError || kept.lost) {
      log.warn('lease lost; leaving the job to its new worker');
      return { status: 'lease_lost' };
    }
    const final = err instanceof NonRetryableError || job.attempts >= job.max_attempts;
    const delay = final
      ? null
      : err instanceof RetryLaterError
        ? err.delaySeconds
        : Math.min(options.retryMaxSeconds, options.retryBaseSeconds * 2 ** (job.attempts - 1));
    const message = sanitizeJobError(err);
    try {
      await db.transaction(async (tx) => {
        const status = await failJobAttempt(tx, job.id, owner, message, delay);
        if (status === 'failed') await definition?.failed?.(tx, job, message);
      });
    } catch (e) {
      log.error({ err: e }, 'recording a job failure failed; the lease will expire and the job run again');
      return { status: 'retry', delaySeconds: options.leaseSeconds, error: message };
    }
    log.warn({ err, retryInSeconds: delay }, final ? 'job failed' : 'job attempt failed; will retry');
    return delay === null ? { status: 'failed', error: message } : { status: 'retry', delaySeconds: delay, error: message };
  } finally {
    kept.stop();
  }
}
