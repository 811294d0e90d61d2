import type { Queryable } from '../db/database.js';
import type { JobRow, NewJob } from '../jobs/job.repository.js';
import type { JobType } from '../jobs/job.schema.js';

/**
 * Runs durable jobs. A job is recorded in the jobs table in the same transaction as the write
 * that causes it (so a rollback drops it); the engine then runs it at least once, and the
 * activities are idempotent, so it takes effect exactly once. The embedded engine runs jobs
 * in-process (several first attempts of a type together where its definition has a `batch`); a
 * Temporal adapter starts one workflow per job row instead, and ignores `batch`.
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

/**
 * An activity failure to retry after a delay the activity chooses (a callback's delivery schedule)
 * instead of the engine's backoff; the job's `max_attempts` still ends the retries.
 */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
  constructor(
    message: string,
    readonly delaySeconds: number,
  ) {
    super(message);
  }
}

export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
}

/** What a batch may do while it runs: as `JobControl`, for every job of the batch at once. */
export interface JobBatchControl extends Omit<JobControl, 'heartbeat'> {
  /** Extends the lease of every job in the batch; throws `LeaseLostError` if another worker took any over. */
  heartbeat(): Promise<void>;
}

/**
 * How the embedded engine runs several jobs of one type together, to share the per-job costs
 * (claiming, loading, writing, the final transaction). Only first attempts are batched: a retry,
 * or a job whose lease expired, runs alone through `run`. A Temporal adapter ignores it (one
 * workflow per job).
 */
export interface JobBatchDefinition {
  /** The most jobs a batch holds (claimed together, in one statement). */
  max: number;
  /**
   * Runs the jobs and completes them (as `run` does each), except those it returns, which the
   * engine then runs one by one through `run` (jobs it does not handle as a batch). When it throws,
   * the engine runs every job of the batch it still holds one by one through `run`, in the same
   * claim and attempt, so each job's failure, retry and backoff are its own, as if it ran alone.
   */
  run(jobs: readonly JobRow[], control: JobBatchControl): Promise<readonly JobRow[]>;
}

/** How the engine runs one job type. */
export interface JobDefinition {
  run(job: JobRow, control: JobControl): Promise<void>;
  /** Optionally, how several due first attempts of this type run together. */
  batch?: JobBatchDefinition;
  /** Called in the transaction that marks the job failed for good (release reservations, mark records). */
  failed?(tx: Queryable, job: JobRow, error: string): Promise<void>;
}
export type JobDefinitions = Partial<Record<JobType, JobDefinition>>;
