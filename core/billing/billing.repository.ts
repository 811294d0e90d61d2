import type { Queryable } from '../db/database.js';
import type { LimitOverrides, PlanId } from '../plans.js';
import type { Scope } from '../shared/scope.js';
import type { BillingInterval } from './billing-period.js';

export interface BillingDetails {
  company_name: string;
  email: string;
  address: string;
  country: string;
  vat_id?: string | undefined;
  payment_method: 'card' | 'sepa_debit' | 'bank_transfer';
}

export interface BillingState {
  id: string;
  plan: PlanId;
  status: 'active' | 'suspended';
  billing_interval: BillingInterval;
  period_start: Date;
  period_end: Date;
  period_included_queries: number;
  scheduled_plan: PlanId | null;
  scheduled_interval: BillingInterval | null;
  cancellation_pending: boolean;
  renewal_pending: boolean;
  billing_details: BillingDetails | null;
  limit_overrides: LimitOverrides;
}

const COLUMNS = `id, plan, status, billing_interval, period_start, period_end, period_included_queries, scheduled_plan,
  scheduled_interval, cancellation_pending, renewal_pending, billing_details, limit_overrides`;

export async function findBillingState(db: Queryable, scope: Scope, lock = false): Promise<BillingState | undefined> {
  const { rows } = await db.query<BillingState>(
    `SELECT ${COLUMNS} FROM tenants WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
    [scope.tenantId],
  );
  const row = rows[0];
  return row && { ...row, period_included_queries: Number(row.period_included_queries) };
}

export type BillingPatch = Partial<Omit<BillingState, 'id' | 'status' | 'limit_overrides'>>;

export async function updateBillingState(db: Queryable, scope: Scope, patch: BillingPatch): Promise<void> {
  const sets: string[] = [];
  const params: unknown[] = [scope.tenantId];
  for (const [column, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    params.push(column === 'billing_details' && value !== null ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}`);
  }
  if (!sets.length) return;
  await db.query(`UPDATE tenants SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, params as never);
}

/** Tenants whose period has ended by `now` (for catching up transitions): an instance-wide read. */
export async function tenantsWithEndedPeriods(db: Queryable, now: Date): Promise<Scope[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM tenants WHERE period_end <= $1 ORDER BY period_end', [now]);
  return rows.map((r) => ({ tenantId: r.id, subTenantId: null }));
}
