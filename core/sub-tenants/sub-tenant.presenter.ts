import type { SubTenant } from './sub-tenant.service.js';
import { LIMIT_FIELDS, type SubTenantView } from './sub-tenant.schema.js';

/** A sub-tenant as the API shows it: its record, limits and usage against them. */
export function presentSubTenant({ row, usage }: SubTenant): SubTenantView {
  return {
    id: row.id,
    name: row.name,
    external_id: row.external_id,
    ...Object.fromEntries(LIMIT_FIELDS.map((k) => [k, row[k]])),
    translation_config: row.translation_config,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    usage: {
      chunks: { used: usage.chunks, limit: row.max_total_chunks },
      documents: { used: usage.documents, limit: row.max_documents },
      queries_this_period: { used: usage.queriesThisPeriod, limit: row.included_queries_per_period },
      storage_bytes: { used: usage.storageBytes, limit: row.storage_quota_bytes },
      knowledge_bases: usage.knowledgeBases,
      active_users: usage.activeUsers,
    },
  } as SubTenantView;
}

/** GET /v1/sub-tenants/{id}/usage: the usage without the knowledge-base count. */
export function presentSubTenantUsage(subTenant: SubTenant) {
  const { knowledge_bases: _kbs, ...usage } = presentSubTenant(subTenant).usage;
  return usage;
}

export function presentUsageBreakdown(breakdown: { subTenants: SubTenant[]; totalChunks: number }) {
  return {
    sub_tenants: breakdown.subTenants.map(({ row, usage }) => ({
      sub_tenant_id: row.id,
      name: row.name,
      chunks: usage.chunks,
      queries_this_period: usage.queriesThisPeriod,
      active_users: usage.activeUsers,
    })),
    total_chunks: breakdown.totalChunks,
  };
}
