import type { Queryable } from '../db/database.js';

export interface SubTenantLimits {
  max_total_chunks: number | null;
  max_knowledge_bases: number | null;
  max_documents: number | null;
  max_document_size_bytes: number | null;
  included_queries_per_period: number | null;
  storage_quota_bytes: number | null;
  query_rate_limit_per_min: number | null;
}

/** A sub-tenant's own limits (null: only the parent's applies), read inside the caller's transaction. */
export async function subTenantLimits(db: Queryable, tenantId: string, subTenantId: string): Promise<SubTenantLimits | undefined> {
  const { rows } = await db.query<SubTenantLimits>(
    `SELECT max_total_chunks, max_knowledge_bases, max_documents, max_document_size_bytes, included_queries_per_period,
            storage_quota_bytes, query_rate_limit_per_min
     FROM sub_tenants WHERE tenant_id = $1 AND id = $2`,
    [tenantId, subTenantId],
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
