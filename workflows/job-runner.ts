import type { Logger } from 'pino';
import type { Database } from '../core/db/database.js';
import { type JobRow, failJobAttempt, heartbeatJob } from '../core/jobs/job.repository.js';
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

/**
 * Runs one attempt of a job its caller has claimed (leased to `owner`), the one way both engines do:
 * heartbeats extend the lease and record progress; a failure is recorded on the job row, which goes
 * back to the queue after a backoff (or the delay a RetryLaterError asks for), or fails for good
 * (NonRetryableError, or its last attempt) and then runs the definition's `failed` hook in the same
 * transaction. `onHeartbeat` lets an engine report liveness elsewhere too (Temporal's heartbeat).
 */
export async function runJobAttempt(
  db: Database,
  definition: JobDefinition | undefined,
  job: JobRow,
  run: { owner: string; signal: AbortSignal; options: AttemptOptions; log: Logger; onHeartbeat?: (progress: unknown) => void },
): Promise<AttemptOutcome> {
  const { owner, options, log } = run;
  const control: JobControl = {
    owner,
    signal: run.signal,
    heartbeat: async (progress) => {
      await turnEventLoop();
      run.onHeartbeat?.(progress);
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
    if (err instanceof LeaseLostError) {
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
  }
}
