import type { Queryable } from '../db/database.js';
import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';
import type { JobStatus, JobType } from './job.schema.js';

export interface JobRow {
  id: string;
  tenant_id: string | null;
  sub_tenant_id: string | null;
  document_id: string | null;
  knowledge_base_id: string | null;
  job_type: JobType;
  status: JobStatus;
  payload: Record<string, unknown>;
  error: string | null;
  total_chunks: number;
  processed_chunks: number;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  lease_owner: string | null;
  created_at: Date;
  /** When its first attempt was claimed; null while it has never run. */
  started_at: Date | null;
  completed_at: Date | null;
}

const COLUMNS = `id, tenant_id, sub_tenant_id, document_id, knowledge_base_id, job_type, status, payload, error,
  total_chunks, processed_chunks, attempts, max_attempts, run_at, lease_owner, created_at, started_at, completed_at`;

export interface NewJob {
  type: JobType;
  tenantId: string | null;
  subTenantId?: string | null;
  documentId?: string | null;
  knowledgeBaseId?: string | null;
  totalChunks?: number;
  payload?: Record<string, unknown>;
  runAt?: Date;
  maxAttempts?: number;
  /** At most one job per key: a second insert with the same key is ignored. */
  dedupeKey?: string;
}

/** Inserts a job; returns its id, or undefined when a job with the same dedupe key exists. */
export async function insertJob(db: Queryable, job: NewJob): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO jobs (job_type, tenant_id, sub_tenant_id, document_id, knowledge_base_id, total_chunks, payload,
                       run_at, max_attempts, dedupe_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, now()), $9, $10)
     ON CONFLICT (dedupe_key) DO NOTHING
     RETURNING id`,
    [
      job.type,
      job.tenantId,
      job.subTenantId ?? null,
      job.documentId ?? null,
      job.knowledgeBaseId ?? null,
      job.totalChunks ?? 0,
      JSON.stringify(job.payload ?? {}),
      job.runAt ?? null,
      job.maxAttempts ?? 5,
      job.dedupeKey ?? null,
    ],
  );
  return rows[0]?.id;
}

/**
 * The engine's statements (claims, leases, completion) work on the queue of the whole instance,
 * whose jobs carry their tenant in their rows: unscoped.
 *
 * Claims the next runnable job for `owner`: a queued one whose time has come, or one whose
 * worker's lease expired (the worker died). SKIP LOCKED lets concurrent workers claim different jobs.
 */
export async function claimJob(db: Queryable, owner: string, leaseSeconds: number, types: readonly string[]): Promise<JobRow | undefined> {
  return (await claimJobs(db, owner, leaseSeconds, types))[0];
}

/**
 * Claims (from the instance's queue: unscoped) the next runnable job, as `claimJob` does, and when it is the first attempt of a type
 * that `batchSizes` lists, up to that many first attempts of its type in all (the due ones next
 * in line), leased together, in one statement. Retries and jobs whose lease expired are never
 * batched: a job that failed runs alone. Returns the jobs in queue order, the first one first.
 */
export async function claimJobs(
  db: Queryable,
  owner: string,
  leaseSeconds: number,
  types: readonly string[],
  batchSizes: Readonly<Partial<Record<string, number>>> = {},
): Promise<JobRow[]> {
  const batched = Object.entries(batchSizes).filter((e): e is [string, number] => (e[1] ?? 0) > 1);
  const { rows } = await db.query<JobRow>(
    `WITH head AS MATERIALIZED (
       SELECT id, job_type, run_at, created_at, status = 'queued' AND attempts = 0 AS first_attempt FROM jobs
       WHERE job_type = ANY($3::text[]) AND run_at <= now()
         AND (status = 'queued' OR (status = 'processing' AND lease_expires_at < now()))
       ORDER BY run_at, created_at
       LIMIT 1
       FOR UPDATE SKIP LOCKED
     ), batch AS MATERIALIZED (
       SELECT j.id FROM jobs j
       WHERE j.job_type = (SELECT job_type FROM head WHERE first_attempt) AND j.run_at <= now()
         AND (j.run_at, j.created_at) >= (SELECT run_at, created_at FROM head)
         AND j.status = 'queued' AND j.attempts = 0 AND j.id <> (SELECT id FROM head)
       ORDER BY j.run_at, j.created_at
       LIMIT COALESCE((SELECT b.size - 1 FROM unnest($4::text[], $5::int[]) AS b(job_type, size) JOIN head USING (job_type)), 0)
       FOR UPDATE SKIP LOCKED
     )
     UPDATE jobs SET status = 'processing', lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2),
                     attempts = attempts + 1, started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = ANY(ARRAY(SELECT id FROM head UNION ALL SELECT id FROM batch))
     RETURNING ${COLUMNS}`,
    [owner, leaseSeconds, [...types], batched.map((b) => b[0]), batched.map((b) => b[1])],
  );
  return rows.sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || a.created_at.getTime() - b.created_at.getTime());
}

/**
 * Extends the leases of jobs this worker holds, recording progress when given; returns the ids
 * still held (a job another worker took over, or one no longer processing, is left out). The
 * worker's own jobs: unscoped.
 */
export async function heartbeatJobs(
  db: Queryable,
  ids: readonly string[],
  owner: string,
  leaseSeconds: number,
  progress?: { processedChunks?: number; totalChunks?: number },
): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3),
                     processed_chunks = COALESCE($4, processed_chunks), total_chunks = COALESCE($5, total_chunks),
                     updated_at = now()
     WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'processing'
     RETURNING id`,
    [[...ids], owner, leaseSeconds, progress?.processedChunks ?? null, progress?.totalChunks ?? null],
  );
  return new Set(rows.map((r) => r.id));
}

/** Extends a lease and records progress; false when the job is no longer this worker's (the worker's own job: unscoped). */
export async function heartbeatJob(
  db: Queryable,
  id: string,
  owner: string,
  leaseSeconds: number,
  progress?: { processedChunks?: number; totalChunks?: number },
): Promise<boolean> {
  return (await heartbeatJobs(db, [id], owner, leaseSeconds, progress)).size > 0;
}

/**
 * Locks, until the transaction ends, the jobs this worker still holds; returns how many. A worker
 * that took one over waits for the lock, and then finds what this transaction committed (the
 * worker's own jobs: unscoped).
 */
export async function holdJobs(db: Queryable, ids: readonly string[], owner: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT id FROM jobs WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'processing' FOR UPDATE`,
    [[...ids], owner],
  );
  return rows.length;
}

/** Completes jobs this worker holds (their progress becomes their total); returns how many it completed (unscoped: the worker's own jobs). */
export async function completeJobs(db: Queryable, ids: readonly string[], owner: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE jobs SET status = 'completed', completed_at = now(), error = NULL, lease_owner = NULL,
                     lease_expires_at = NULL, processed_chunks = total_chunks, updated_at = now()
     WHERE id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'processing'`,
    [[...ids], owner],
  );
  return rowCount;
}

export async function completeJob(db: Queryable, id: string, owner: string): Promise<boolean> {
  return (await completeJobs(db, [id], owner)) > 0;
}

/** Puts a failed attempt back in the queue after `delaySeconds`, or fails the job for good (the worker's own job: unscoped). */
export async function failJobAttempt(
  db: Queryable,
  id: string,
  owner: string,
  error: string,
  retryAfterSeconds: number | null,
): Promise<JobStatus | undefined> {
  const { rows } = await db.query<{ status: JobStatus }>(
    `UPDATE jobs SET
       status = CASE WHEN $4::float8 IS NULL THEN 'failed' ELSE 'queued' END,
       run_at = CASE WHEN $4::float8 IS NULL THEN run_at ELSE now() + make_interval(secs => $4::float8) END,
       completed_at = CASE WHEN $4::float8 IS NULL THEN now() ELSE NULL END,
       error = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
     WHERE id = $1 AND lease_owner = $2 AND status = 'processing'
     RETURNING status`,
    [id, owner, error, retryAfterSeconds],
  );
  return rows[0]?.status;
}

/** Makes jobs held by workers of a previous run of this process claimable at once (the instance's queue: unscoped). */
export async function releaseLeases(db: Queryable, exceptOwner: string): Promise<number> {
  const { rowCount } = await db.query(
    // A second in the past: a claim in the same clock tick (PGlite's clock is coarse) compares
    // lease_expires_at < now() and would not see the lease as expired yet.
    `UPDATE jobs SET lease_expires_at = now() - interval '1 second' WHERE status = 'processing' AND lease_owner IS DISTINCT FROM $1`,
    [exceptOwner],
  );
  return rowCount;
}

export async function findJob(db: Queryable, scope: Scope, id: string, types: readonly string[]): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(
    `SELECT ${COLUMNS} FROM jobs j WHERE ${scopeSql('j', 1)} AND j.id = $3 AND j.job_type = ANY($4::text[])`,
    [...scopeParams(scope), id, [...types]],
  );
  return rows[0];
}

/** A job by its id alone, for the engine and tests (unscoped). */
export async function findJobById(db: Queryable, id: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = $1`, [id]);
  return rows[0];
}

// The Temporal engine's outbox and claims (the instance's queue: unscoped).

export async function insertOutbox(db: Queryable, jobId: string): Promise<void> {
  await db.query('INSERT INTO job_outbox (job_id) VALUES ($1) ON CONFLICT DO NOTHING', [jobId]);
}

export interface OutboxEntry {
  job_id: string;
  job_type: JobType;
  tenant_id: string | null;
  run_at: Date;
  max_attempts: number;
}

/** Outbox rows whose workflow has not been started yet, oldest first. */
export async function pendingOutbox(db: Queryable, limit: number): Promise<OutboxEntry[]> {
  // unscoped: the instance's queue
  const { rows } = await db.query<OutboxEntry>(
    `SELECT o.job_id, j.job_type, j.tenant_id, j.run_at, j.max_attempts FROM job_outbox o JOIN jobs j ON j.id = o.job_id
     WHERE o.dispatched_at IS NULL ORDER BY o.created_at LIMIT $1`,
    [limit],
  );
  return rows;
}

export async function markDispatched(db: Queryable, jobIds: readonly string[]): Promise<void> {
  await db.query('UPDATE job_outbox SET dispatched_at = now() WHERE job_id = ANY($1::uuid[]) AND dispatched_at IS NULL', [[...jobIds]]);
}

/**
 * Claims one job by id for `owner` (a Temporal activity attempt), as `claimJobs` claims the next
 * one: a queued job whose time has come (a second early is tolerated: the workflow's timer and the
 * database clock differ) or one whose previous holder's lease expired. Undefined when the job is
 * done, failed, or held by a live lease.
 */
export async function claimJobById(db: Queryable, id: string, owner: string, leaseSeconds: number): Promise<JobRow | undefined> {
  // unscoped: the instance's queue
  const { rows } = await db.query<JobRow>(
    `UPDATE jobs SET status = 'processing', lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3),
                     attempts = attempts + 1, started_at = COALESCE(started_at, now()), updated_at = now()
     WHERE id = $1 AND run_at <= now() + interval '1 second'
       AND (status = 'queued' OR (status = 'processing' AND lease_expires_at < now()))
     RETURNING ${COLUMNS}`,
    [id, owner, leaseSeconds],
  );
  return rows[0];
}

/** Due jobs waiting for a worker, by type, with the age of the oldest (the instance's queue: unscoped). */
export async function jobBacklog(db: Queryable): Promise<Array<{ job_type: string; waiting: number; oldest_seconds: number }>> {
  // unscoped: the instance's queue
  const { rows } = await db.query<{ job_type: string; waiting: number; oldest_seconds: number }>(
    `SELECT job_type, count(*)::int AS waiting, COALESCE(extract(epoch FROM now() - min(run_at)), 0)::float8 AS oldest_seconds
     FROM jobs WHERE status = 'queued' AND run_at <= now() GROUP BY job_type`,
  );
  return rows;
}
