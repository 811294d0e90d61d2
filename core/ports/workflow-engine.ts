import type { Queryable } from '../db/database.js';
import type { JobRow, NewJob } from '../jobs/job.repository.js';
import type { JobType } from '../jobs/job.schema.js';

/**
 * Runs durable jobs. A job is recorded in the jobs table in the same transaction as the write
 * that causes it (so a rollback drops it); the engine then runs it at least once, and the
 * activities are idempotent, so it takes effect exactly once. The embedded engine runs jobs
 * in-process; a Temporal adapter starts one workflow per job row instead.
 */
export interface WorkflowEngine {
  enqueue(tx: Queryable, job: NewJob): Promise<string | undefined>;
  /** Called after the enqueueing transaction committed, so workers can pick the job up at once. */
  notify(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What an activity may do while it runs. */
export interface JobControl {
  /** Extends the lease and records progress; throws `LeaseLostError` if another worker took over. */
  heartbeat(progress?: { processedChunks?: number; totalChunks?: number }): Promise<void>;
  /** The worker identity that holds the job (for conditional final writes). */
  readonly owner: string;
  readonly signal: AbortSignal;
}

/** An activity failure that must not be retried (validation, quota, missing input). */
export class NonRetryableError extends Error {
  override name = 'NonRetryableError';
}

export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** How the engine runs one job type. */
export interface JobDefinition {
  run(job: JobRow, control: JobControl): Promise<void>;
  /** Called in the transaction that marks the job failed for good (release reservations, mark records). */
  failed?(tx: Queryable, job: JobRow, error: string): Promise<void>;
}
export type JobDefinitions = Partial<Record<JobType, JobDefinition>>;
