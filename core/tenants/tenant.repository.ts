import type { Queryable } from '../db/database.js';
import type { Scope } from '../shared/scope.js';
import type { CreateTenantInput, TenantRecord, UpdateTenantInput } from './tenant.schema.js';

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
