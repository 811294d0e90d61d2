import type { RequestContext } from '../context.js';

/**
 * What a caller may see: one tenant, and within it either everything (a tenant-level key) or
 * one sub-tenant. Repositories put both in their WHERE clauses via `scopeSql`.
 */
export interface Scope {
  tenantId: string;
  subTenantId: string | null;
}

export function scopeOf(ctx: Pick<RequestContext, 'tenantId' | 'subTenantId'>): Scope {
  return { tenantId: ctx.tenantId, subTenantId: ctx.subTenantId };
}

/**
 * SQL condition restricting `alias` rows to a scope, using parameters $n and $n+1.
 * A tenant-level scope (subTenantId null) matches every row of the tenant.
 */
export function scopeSql(alias: string, firstParam: number): string {
  const p = firstParam;
  return `${alias}.tenant_id = $${p} AND ($${p + 1}::uuid IS NULL OR ${alias}.sub_tenant_id = $${p + 1}::uuid)`;
}

export function scopeParams(scope: Scope): [string, string | null] {
  return [scope.tenantId, scope.subTenantId];
}

/**
 * A whole tenant's scope, for callers that act for a tenant without a key of its own: the instance
 * operator (internal admin API, CLI) and jobs, which carry their tenant in the job row.
 */
export function tenantScope(tenantId: string): Scope {
  return { tenantId, subTenantId: null };
}
