import type { Queryable } from '../db/database.js';
import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';
import type { Addon } from '../tenants/tenant.schema.js';

export type DeliveryStatus = 'none' | 'pending' | 'delivered' | 'failed';

export interface AddonRequestRow {
  job_id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  addon: Addon;
  language: string | null;
  audio_seconds: number | null;
  segments: { start_seconds: number; end_seconds: number; text: string }[];
  result: unknown;
  result_expires_at: Date | null;
  callback_url: string | null;
  delivery_status: DeliveryStatus;
  delivery_attempts: number;
  last_status_code: number | null;
  last_delivery_error: string | null;
  delivered_at: Date | null;
}

const COLUMNS = `r.job_id, r.tenant_id, r.sub_tenant_id, r.addon, r.language, r.audio_seconds, r.segments, r.result, r.result_expires_at,
  r.callback_url, r.delivery_status, r.delivery_attempts, r.last_status_code, r.last_delivery_error, r.delivered_at`;

export interface NewAddonRequest {
  jobId: string;
  addon: Addon;
  language: string | null;
  audio?: Buffer;
  audioSeconds?: number;
  transcript?: string;
  callbackUrl: string | null;
  sealedSecret: Buffer | null;
}

export async function insertAddonRequest(db: Queryable, scope: Scope, r: NewAddonRequest): Promise<void> {
  await db.query(
    `INSERT INTO addon_requests (job_id, tenant_id, sub_tenant_id, addon, language, audio, audio_seconds, transcript, callback_url,
                                 callback_secret, delivery_status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      r.jobId,
      scope.tenantId,
      scope.subTenantId,
      r.addon,
      r.language,
      r.audio ?? null,
      r.audioSeconds ?? null,
      r.transcript ?? null,
      r.callbackUrl,
      r.sealedSecret,
      r.callbackUrl ? 'pending' : 'none',
    ],
  );
}

/** The add-on request of a job in the scope (without its input or secret). */
export async function findAddonRequest(db: Queryable, scope: Scope, jobId: string): Promise<AddonRequestRow | undefined> {
  const { rows } = await db.query<AddonRequestRow>(`SELECT ${COLUMNS} FROM addon_requests r WHERE ${scopeSql('r', 1)} AND r.job_id = $3`, [
    ...scopeParams(scope),
    jobId,
  ]);
  return rows[0];
}

/** The add-on requests of some jobs in the scope, by job id. */
export async function addonRequestsOfJobs(db: Queryable, scope: Scope, jobIds: readonly string[]): Promise<Map<string, AddonRequestRow>> {
  if (!jobIds.length) return new Map();
  const { rows } = await db.query<AddonRequestRow>(
    `SELECT ${COLUMNS} FROM addon_requests r WHERE ${scopeSql('r', 1)} AND r.job_id = ANY($3::uuid[])`,
    [...scopeParams(scope), [...jobIds]],
  );
  return new Map(rows.map((r) => [r.job_id, r]));
}

/** A job's input: the audio (transcription) or the transcript (reports), until the job has used it. */
export async function addonInput(db: Queryable, scope: Scope, jobId: string): Promise<{ audio: Buffer | null; transcript: string | null } | undefined> {
  const { rows } = await db.query<{ audio: Uint8Array | null; transcript: string | null }>(
    `SELECT r.audio, r.transcript FROM addon_requests r WHERE ${scopeSql('r', 1)} AND r.job_id = $3`,
    [...scopeParams(scope), jobId],
  );
  const row = rows[0];
  return row && { audio: row.audio ? Buffer.from(row.audio.buffer, row.audio.byteOffset, row.audio.byteLength) : null, transcript: row.transcript };
}

/** Appends a transcribed segment (a retried job finds it and goes on from the next). */
export async function appendSegment(db: Queryable, scope: Scope, jobId: string, segment: AddonRequestRow['segments'][number]): Promise<void> {
  await db.query(`UPDATE addon_requests r SET segments = r.segments || $4::jsonb WHERE ${scopeSql('r', 1)} AND r.job_id = $3`, [
    ...scopeParams(scope),
    jobId,
    JSON.stringify([segment]),
  ]);
}

/** Stores a job's result until `expiresAt` and drops its input, which is no longer needed. */
export async function storeResult(db: Queryable, scope: Scope, jobId: string, result: unknown, expiresAt: Date, language: string | null): Promise<void> {
  await db.query(
    `UPDATE addon_requests r SET result = $4, result_expires_at = $5, language = COALESCE($6, r.language), audio = NULL, transcript = NULL
     WHERE ${scopeSql('r', 1)} AND r.job_id = $3`,
    [...scopeParams(scope), jobId, JSON.stringify(result), expiresAt, language],
  );
}

/** A failed job keeps no input either. */
export async function dropInput(db: Queryable, scope: Scope, jobId: string): Promise<void> {
  await db.query(`UPDATE addon_requests r SET audio = NULL, transcript = NULL WHERE ${scopeSql('r', 1)} AND r.job_id = $3`, [...scopeParams(scope), jobId]);
}

/** Results past their time are dropped (the row stays, with the delivery state). Instance-wide housekeeping: unscoped. */
export async function dropExpiredResults(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`UPDATE addon_requests SET result = NULL WHERE result IS NOT NULL AND result_expires_at < now()`);
  return rowCount;
}

/** What a delivery needs: the URL and the sealed secret, while delivery is pending. */
export async function pendingDelivery(
  db: Queryable,
  scope: Scope,
  jobId: string,
): Promise<{ callback_url: string; callback_secret: Buffer; delivery_attempts: number; result: unknown } | undefined> {
  const { rows } = await db.query<{ callback_url: string; callback_secret: Uint8Array; delivery_attempts: number; result: unknown }>(
    `SELECT r.callback_url, r.callback_secret, r.delivery_attempts, r.result FROM addon_requests r
     WHERE ${scopeSql('r', 1)} AND r.job_id = $3 AND r.delivery_status = 'pending' AND r.callback_secret IS NOT NULL`,
    [...scopeParams(scope), jobId],
  );
  const row = rows[0];
  return row && { ...row, callback_secret: Buffer.from(row.callback_secret.buffer, row.callback_secret.byteOffset, row.callback_secret.byteLength) };
}

export interface DeliveryAttempt {
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The delivery's state after this attempt: still pending (a retry follows), delivered, or failed for good. */
  outcome: 'pending' | 'delivered' | 'failed';
}

/** Records an attempt and the delivery's state; an ended delivery forgets its secret. */
/** Ends a pending delivery as failed for a reason of Lore's own (no attempt reached the receiver's answer). */
export async function endDelivery(db: Queryable, scope: Scope, jobId: string, error: string): Promise<void> {
  await db.query(
    `UPDATE addon_requests r SET delivery_status = 'failed', last_delivery_error = $4, callback_secret = NULL
     WHERE ${scopeSql('r', 1)} AND r.job_id = $3 AND r.delivery_status = 'pending'`,
    [...scopeParams(scope), jobId, error],
  );
}

export async function recordDeliveryAttempt(db: Queryable, scope: Scope, jobId: string, a: DeliveryAttempt): Promise<void> {
  await db.query(
    `INSERT INTO callback_attempts (job_id, tenant_id, attempt, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (job_id, attempt) DO NOTHING`,
    [jobId, scope.tenantId, a.attempt, a.statusCode, a.error, a.durationMs],
  );
  await db.query(
    `UPDATE addon_requests r
     SET delivery_attempts = GREATEST(r.delivery_attempts, $4), last_status_code = $5, last_delivery_error = $6, delivery_status = $7,
         delivered_at = CASE WHEN $7 = 'delivered' THEN now() ELSE r.delivered_at END,
         callback_secret = CASE WHEN $7 = 'pending' THEN r.callback_secret ELSE NULL END
     WHERE ${scopeSql('r', 1)} AND r.job_id = $3`,
    [...scopeParams(scope), jobId, a.attempt, a.statusCode, a.error, a.outcome],
  );
}
