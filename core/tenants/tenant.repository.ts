import type { Queryable } from '../db/database.js';
import type { LimitOverrides, PlanId } from '../plans.js';
import type { Scope } from '../shared/scope.js';
import type { TranslationConfig } from '../translation/translation.schema.js';
import type { CreateTenantInput, TenantRecord, UpdateTenantInput } from './tenant.schema.js';

/**
 * What authentication loads of the tenant and sub-tenant a credential (API key, OAuth client or
 * token, portal session) acts for: what a request context needs, so that no later step of the
 * request reads them again. Every credential lookup selects CREDENTIAL_TENANT_COLUMNS (or, without
 * a sub-tenant, the same names), so every path builds the same context.
 */
export interface CredentialTenantRow {
  tenant_id: string;
  sub_tenant_id: string | null;
  plan: PlanId;
  status: 'active' | 'suspended';
  dpa_accepted_version: number | null;
  limit_overrides: LimitOverrides;
  per_user_rate_limit_per_min: number | null;
  translation_config: TranslationConfig;
  period_start: Date;
  period_end: Date;
  period_included_queries: number;
  sub_query_rate_limit_per_min: number | null;
  sub_per_user_rate_limit_per_min: number | null;
  sub_included_queries_per_period: number | null;
  sub_translation_config: TranslationConfig | null;
}

/** CredentialTenantRow's columns but the ids, from `tenants t` and `sub_tenants s` (left-joined). */
export const CREDENTIAL_TENANT_COLUMNS = `t.plan, t.status, t.dpa_accepted_version, t.limit_overrides, t.per_user_rate_limit_per_min,
  t.translation_config, t.period_start, t.period_end, t.period_included_queries,
  s.query_rate_limit_per_min AS sub_query_rate_limit_per_min,
  s.per_user_rate_limit_per_min AS sub_per_user_rate_limit_per_min,
  s.included_queries_per_period AS sub_included_queries_per_period,
  s.translation_config AS sub_translation_config`;

const COLUMNS = `id, name, email, plan, status, addons, anonymize_default, translation_config,
  limit_overrides, per_user_rate_limit_per_min, created_at, updated_at`;

export async function insertTenant(db: Queryable, input: CreateTenantInput, operatorRef?: string): Promise<TenantRecord> {
  const { rows } = await db.query<TenantRecord>(
    `INSERT INTO tenants (name, plan, email, operator_ref) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [input.name, input.plan, input.email ?? null, operatorRef ?? null],
  );
  return rows[0]!;
}

/** The tenant the Kubernetes operator created for a custom resource (its uid). */
export async function findTenantByOperatorRef(db: Queryable, operatorRef: string): Promise<TenantRecord | undefined> {
  // unscoped: the operator finds which tenant is its resource's before it has a scope.
  const { rows } = await db.query<TenantRecord>(`SELECT ${COLUMNS} FROM tenants WHERE operator_ref = $1`, [operatorRef]);
  return rows[0];
}

export async function findTenant(db: Queryable, scope: Scope): Promise<TenantRecord | undefined> {
  const { rows } = await db.query<TenantRecord>(`SELECT ${COLUMNS} FROM tenants WHERE id = $1`, [scope.tenantId]);
  return rows[0];
}

/** Every tenant of the instance, oldest first: the instance operator's list (unscoped by nature). */
export async function listTenants(db: Queryable): Promise<TenantRecord[]> {
  const { rows } = await db.query<TenantRecord>(`SELECT ${COLUMNS} FROM tenants ORDER BY created_at, id`);
  return rows;
}

/** Locks the tenant row for the rest of the transaction: serializes quota checks of one tenant. */
export async function lockTenant(db: Queryable, scope: Scope): Promise<TenantRecord | undefined> {
  const { rows } = await db.query<TenantRecord>(`SELECT ${COLUMNS} FROM tenants WHERE id = $1 FOR UPDATE`, [scope.tenantId]);
  return rows[0];
}

const JSON_COLUMNS = new Set(['translation_config', 'limit_overrides', 'billing_details']);

export async function updateTenant(
  db: Queryable,
  scope: Scope,
  patch: UpdateTenantInput,
): Promise<TenantRecord | undefined> {
  const sets: string[] = [];
  const params: unknown[] = [scope.tenantId];
  for (const [column, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    params.push(JSON_COLUMNS.has(column) && value !== null ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}`);
  }
  const { rows } = await db.query<TenantRecord>(
    `UPDATE tenants SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    params as never,
  );
  return rows[0];
}
