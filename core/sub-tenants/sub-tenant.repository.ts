import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';
import type { TranslationConfig } from '../translation/translation.schema.js';
import { WHOLE_TENANT } from '../usage/usage.repository.js';
import { type CreateSubTenantInput, LIMIT_FIELDS, type UpdateSubTenantInput } from './sub-tenant.schema.js';

export interface SubTenantRow {
  id: string;
  tenant_id: string;
  name: string;
  external_id: string | null;
  max_total_chunks: number | null;
  max_knowledge_bases: number | null;
  max_documents: number | null;
  max_document_size_bytes: number | null;
  query_rate_limit_per_min: number | null;
  included_queries_per_period: number | null;
  storage_quota_bytes: number | null;
  per_user_rate_limit_per_min: number | null;
  translation_config: TranslationConfig;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, tenant_id, name, external_id, ${LIMIT_FIELDS.join(', ')}, translation_config, created_at, updated_at`;

function normalise(row: SubTenantRow): SubTenantRow {
  const out = { ...row } as Record<string, unknown>;
  for (const f of LIMIT_FIELDS) out[f] = row[f] === null ? null : Number(row[f]);
  return out as unknown as SubTenantRow;
}

/**
 * Inserts a sub-tenant; with an `external_id` that the tenant already uses, inserts nothing and
 * returns undefined (the unique constraint decides, so concurrent creates cannot both insert).
 */
export async function insertSubTenant(
  db: Queryable,
  scope: Scope,
  input: CreateSubTenantInput,
  operatorRef?: string,
): Promise<SubTenantRow | undefined> {
  const values = LIMIT_FIELDS.map((f) => input[f] ?? null);
  const n = LIMIT_FIELDS.length;
  const { rows } = await db.query<SubTenantRow>(
    `INSERT INTO sub_tenants (tenant_id, name, external_id, ${LIMIT_FIELDS.join(', ')}, translation_config, operator_ref)
     VALUES ($1, $2, $3, ${LIMIT_FIELDS.map((_, i) => `$${i + 4}`).join(', ')}, $${n + 4}, $${n + 5})
     ON CONFLICT (tenant_id, external_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [scope.tenantId, input.name, input.external_id ?? null, ...values, JSON.stringify(input.translation_config ?? {}), operatorRef ?? null],
  );
  return rows[0] && normalise(rows[0]);
}

export async function findSubTenant(db: Queryable, scope: Scope, id: string): Promise<SubTenantRow | undefined> {
  const { rows } = await db.query<SubTenantRow>(`SELECT ${COLUMNS} FROM sub_tenants WHERE tenant_id = $1 AND id = $2`, [scope.tenantId, id]);
  return rows[0] && normalise(rows[0]);
}

export async function findSubTenantByExternalId(db: Queryable, scope: Scope, externalId: string): Promise<SubTenantRow | undefined> {
  const { rows } = await db.query<SubTenantRow>(`SELECT ${COLUMNS} FROM sub_tenants WHERE tenant_id = $1 AND external_id = $2`, [
    scope.tenantId,
    externalId,
  ]);
  return rows[0] && normalise(rows[0]);
}

/** The sub-tenant the Kubernetes operator created for a resource (its uid). */
export async function findSubTenantByOperatorRef(db: Queryable, scope: Scope, operatorRef: string): Promise<SubTenantRow | undefined> {
  const { rows } = await db.query<SubTenantRow>(`SELECT ${COLUMNS} FROM sub_tenants WHERE tenant_id = $1 AND operator_ref = $2`, [
    scope.tenantId,
    operatorRef,
  ]);
  return rows[0] && normalise(rows[0]);
}

export async function listSubTenants(db: Queryable, scope: Scope): Promise<SubTenantRow[]> {
  const { rows } = await db.query<SubTenantRow>(`SELECT ${COLUMNS} FROM sub_tenants WHERE tenant_id = $1 ORDER BY created_at, id`, [scope.tenantId]);
  return rows.map(normalise);
}

export async function updateSubTenant(db: Queryable, scope: Scope, id: string, patch: UpdateSubTenantInput): Promise<SubTenantRow | undefined> {
  const sets: string[] = [];
  const params: unknown[] = [scope.tenantId, id];
  for (const field of ['name', ...LIMIT_FIELDS] as const) {
    if (patch[field] === undefined) continue;
    params.push(patch[field]);
    sets.push(`${field} = $${params.length}`);
  }
  if (patch.translation_config !== undefined) {
    params.push(JSON.stringify(patch.translation_config));
    sets.push(`translation_config = $${params.length}`);
  }
  const { rows } = await db.query<SubTenantRow>(
    `UPDATE sub_tenants SET ${sets.join(', ')}, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    params as never,
  );
  return rows[0] && normalise(rows[0]);
}

/** Deletes a sub-tenant; its keys, knowledge bases, documents, files, chunks and jobs cascade. */
export async function deleteSubTenant(db: Queryable, scope: Scope, id: string): Promise<boolean> {
  await db.query('DELETE FROM query_counters WHERE tenant_id = $1 AND sub_tenant_id = $2', [scope.tenantId, id]);
  await db.query('DELETE FROM active_users WHERE tenant_id = $1 AND sub_tenant_id = $2', [scope.tenantId, id]);
  // Rate-limit counters are keyed by name, not tenant; the sub-tenant's names hold its id. -- unscoped
  await db.query('DELETE FROM rate_limits WHERE key LIKE $1', [`%${id}%`]);
  const { rowCount } = await db.query('DELETE FROM sub_tenants WHERE tenant_id = $1 AND id = $2', [scope.tenantId, id]);
  return rowCount > 0;
}

/** First day (UTC) of the month of `at`, the key of monthly active users. */
export function monthOf(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

/** Records an end user (X-User-Id) as active this month in the scope: its sub-tenant, or the tenant's own keys. */
export async function recordActiveUser(db: Queryable, scope: Scope, userId: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO active_users (tenant_id, sub_tenant_id, month, user_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [scope.tenantId, scope.subTenantId ?? WHOLE_TENANT, monthOf(at), userId],
  );
}

/** Active users this month per sub-tenant of a tenant (sub-tenants without any are absent). */
export async function activeUsersBySubTenant(db: Queryable, scope: Scope, at: Date): Promise<Map<string, number>> {
  const { rows } = await db.query<{ sub_tenant_id: string; n: number }>(
    `SELECT sub_tenant_id, count(*)::int AS n FROM active_users WHERE tenant_id = $1 AND month = $2 GROUP BY sub_tenant_id`,
    [scope.tenantId, monthOf(at)],
  );
  return new Map(rows.map((r) => [r.sub_tenant_id, r.n]));
}

/** Stored figures of every sub-tenant of a tenant, in one query. */
export async function subTenantFigures(
  db: Queryable,
  scope: Scope,
): Promise<Map<string, { chunks: number; documents: number; storageBytes: number; knowledgeBases: number }>> {
  const { rows } = await db.query<{ id: string; chunks: number; documents: number; storage: number; kbs: number }>(
    // The documents' figures from the counters the documents' triggers keep (migration 0009).
    `SELECT s.id,
            COALESCE(u.chunks, 0)::bigint AS chunks,
            COALESCE(u.documents, 0)::int AS documents,
            COALESCE(u.storage_bytes, 0)::bigint AS storage,
            (SELECT count(*) FROM knowledge_bases k WHERE k.tenant_id = s.tenant_id AND k.sub_tenant_id = s.id)::int AS kbs
     FROM sub_tenants s
     LEFT JOIN storage_usage u ON u.tenant_id = s.tenant_id AND u.sub_tenant_id = s.id
     WHERE s.tenant_id = $1`,
    [scope.tenantId],
  );
  return new Map(
    rows.map((r) => [r.id, { chunks: Number(r.chunks), documents: r.documents, storageBytes: Number(r.storage), knowledgeBases: r.kbs }]),
  );
}

/** A sub-tenant's own limits (null: only the parent's applies), read inside the caller's transaction. */
export interface SubTenantLimits {
  max_total_chunks: number | null;
  max_knowledge_bases: number | null;
  max_documents: number | null;
  max_document_size_bytes: number | null;
  included_queries_per_period: number | null;
  storage_quota_bytes: number | null;
  query_rate_limit_per_min: number | null;
}

export async function findSubTenantLimits(db: Queryable, scope: Scope, subTenantId: string): Promise<SubTenantLimits | undefined> {
  const { rows } = await db.query<SubTenantLimits>(
    `SELECT max_total_chunks, max_knowledge_bases, max_documents, max_document_size_bytes, included_queries_per_period,
            storage_quota_bytes, query_rate_limit_per_min
     FROM sub_tenants WHERE tenant_id = $1 AND id = $2`,
    [scope.tenantId, subTenantId],
  );
  const r = rows[0];
  if (!r) return undefined;
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    max_total_chunks: n(r.max_total_chunks),
    max_knowledge_bases: n(r.max_knowledge_bases),
    max_documents: n(r.max_documents),
    max_document_size_bytes: n(r.max_document_size_bytes),
    included_queries_per_period: n(r.included_queries_per_period),
    storage_quota_bytes: n(r.storage_quota_bytes),
    query_rate_limit_per_min: n(r.query_rate_limit_per_min),
  };
}

/** Stores an end user's translation preferences within a sub-tenant. */
export async function upsertUserPreferences(db: Queryable, scope: Scope, subTenantId: string, userId: string, config: TranslationConfig): Promise<void> {
  await db.query(
    `INSERT INTO end_user_preferences (tenant_id, sub_tenant_id, user_id, translation_config) VALUES ($1, $2, $3, $4)
     ON CONFLICT (sub_tenant_id, user_id) DO UPDATE SET translation_config = EXCLUDED.translation_config, updated_at = now()`,
    [scope.tenantId, subTenantId, userId, JSON.stringify(config)],
  );
}

export async function findUserPreferences(db: Queryable, scope: Scope, subTenantId: string, userId: string): Promise<TranslationConfig | undefined> {
  const { rows } = await db.query<{ translation_config: TranslationConfig }>(
    'SELECT translation_config FROM end_user_preferences WHERE tenant_id = $1 AND sub_tenant_id = $2 AND user_id = $3',
    [scope.tenantId, subTenantId, userId],
  );
  return rows[0]?.translation_config;
}
