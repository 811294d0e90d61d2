import type { Queryable } from '../db/database.js';
import type { JobRow } from '../jobs/job.repository.js';
import type { Scope } from '../shared/scope.js';

export async function documentIdsOfTenant(db: Queryable, scope: Scope): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM documents WHERE tenant_id = $1 ORDER BY created_at, id', [scope.tenantId]);
  return rows.map((r) => r.id);
}

/** The tenant's documents in creation order, with the name of their original file when one was uploaded (not its bytes). */
export async function documentEntriesOfTenant(
  db: Queryable,
  scope: Scope,
): Promise<{ id: string; has_file: boolean; file_name: string | null }[]> {
  const { rows } = await db.query<{ id: string; has_file: boolean; file_name: string | null }>(
    `SELECT d.id, f.document_id IS NOT NULL AS has_file, f.file_name
     FROM documents d LEFT JOIN document_files f ON f.document_id = d.id
     WHERE d.tenant_id = $1 ORDER BY d.created_at, d.id`,
    [scope.tenantId],
  );
  return rows;
}

export async function insertExport(db: Queryable, scope: Scope, expiresAt: Date): Promise<string> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO account_exports (tenant_id, expires_at) VALUES ($1, $2) RETURNING id', [
    scope.tenantId,
    expiresAt,
  ]);
  return rows[0]!.id;
}

/**
 * The tenant an export belongs to; undefined once the account is gone. The link's signature, not a
 * key, authorizes the download, so this reads by the export's id alone. -- unscoped
 */
export async function exportOwner(db: Queryable, exportId: string): Promise<Scope | undefined> {
  const { rows } = await db.query<{ tenant_id: string }>('SELECT tenant_id FROM account_exports WHERE id = $1', [exportId]);
  return rows[0] && { tenantId: rows[0].tenant_id, subTenantId: null };
}

export async function publicJobsOfTenant(db: Queryable, scope: Scope): Promise<JobRow[]> {
  const { rows } = await db.query<JobRow>(
    `SELECT id, tenant_id, sub_tenant_id, document_id, knowledge_base_id, job_type, status, payload, error, total_chunks,
            processed_chunks, attempts, max_attempts, run_at, lease_owner, created_at, started_at, completed_at
     FROM jobs WHERE tenant_id = $1 AND job_type IN ('ingestion', 'transcription', 'report_generation') ORDER BY created_at`,
    [scope.tenantId],
  );
  return rows;
}

export async function usageEventsOfTenant(db: Queryable, scope: Scope): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query(
    `SELECT event_type, quantity, cost_microcents, input_tokens, output_tokens, sub_tenant_id, user_id, occurred_at
     FROM usage_events WHERE tenant_id = $1 ORDER BY occurred_at`,
    [scope.tenantId],
  );
  return rows;
}

/**
 * Deletes a tenant: its row, every row that references it (foreign keys cascade), and the
 * rate-limit counters keyed by its id or the ids of its keys and OAuth applications.
 */
export async function deleteTenant(db: Queryable, scope: Scope): Promise<void> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id::text FROM api_keys WHERE tenant_id = $1
     UNION ALL SELECT id::text FROM oauth_clients WHERE tenant_id = $1
     UNION ALL SELECT id::text FROM sub_tenants WHERE tenant_id = $1`,
    [scope.tenantId],
  );
  const patterns = [scope.tenantId, ...rows.map((r) => r.id)].map((id) => `%${id}%`);
  // Rate-limit counters are keyed by name, not tenant; the names hold these ids. -- unscoped
  await db.query('DELETE FROM rate_limits WHERE key LIKE ANY($1::text[])', [patterns]);
  await db.query('DELETE FROM tenants WHERE id = $1', [scope.tenantId]);
}
