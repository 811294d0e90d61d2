import type { Database, Queryable } from '../db/database.js';
import { storageUsage } from '../documents/document.repository.js';
import { MAX_CONTENT_BYTES } from '../documents/document.schema.js';
import { AppError, errors } from '../errors.js';
import { countKnowledgeBases } from '../knowledge-bases/knowledge-base.repository.js';
import { type EffectiveLimits, limitsFor } from '../plans.js';
import type { Scope } from '../shared/scope.js';
import { type SubTenantLimits, findSubTenantLimits } from '../sub-tenants/sub-tenant.repository.js';
import { findTenant, lockTenant } from '../tenants/tenant.repository.js';
import type { TenantRecord } from '../tenants/tenant.schema.js';

/** What a new document asks of the quotas. */
export interface DocumentDemand {
  /** The stored text, in UTF-8 bytes. */
  contentBytes: number;
  /** Everything it adds to storage: the text and an uploaded original file. */
  storageBytes: number;
  chunks: number;
}

export interface ExceededLimit {
  resource: 'documents' | 'storage_bytes' | 'chunks' | 'knowledge_bases';
  used: number;
  limit: number;
}

/**
 * The quotas of spec §8 and the sub-tenant limits of §2, checked in one place for every path that
 * adds to them (JSON ingest, upload, knowledge-base creation) and every change that must fit them
 * (downgrades, cancellations). A sub-tenant's own limits are checked before its parent's, and both
 * must hold. Checks that guard a write run inside its transaction under the tenant's row lock
 * (`lockedTenant`), so concurrent writes cannot together pass a limit.
 */
export class QuotaService {
  constructor(private readonly db: Database) {}

  /** The tenant's effective limits, read without a lock (for early refusals and reports). */
  async limits(scope: Scope): Promise<{ tenant: TenantRecord; limits: EffectiveLimits }> {
    const tenant = await findTenant(this.db, scope);
    if (!tenant) throw errors.notFound('tenant');
    return { tenant, limits: limitsFor(tenant.plan, tenant.limit_overrides) };
  }

  /** Locks the tenant's row for the rest of the transaction and returns its limits. */
  async lockedTenant(tx: Queryable, scope: Scope): Promise<{ tenant: TenantRecord; limits: EffectiveLimits }> {
    const tenant = await lockTenant(tx, scope);
    if (!tenant) throw errors.notFound('tenant');
    return { tenant, limits: limitsFor(tenant.plan, tenant.limit_overrides) };
  }

  /** A sub-tenant's own limits (null fields: only the parent's apply). */
  async subTenantLimits(db: Queryable, scope: Scope, subTenantId: string): Promise<SubTenantLimits> {
    const limits = await findSubTenantLimits(db, scope, subTenantId);
    if (!limits) throw errors.notFound('sub-tenant');
    return limits;
  }

  /** The largest document the tenant may store: 10 MB, and at most its plan's document size. */
  maxDocumentBytes(limits: EffectiveLimits): number {
    return Math.min(MAX_CONTENT_BYTES, limits.maxDocumentSizeBytes);
  }

  /** Refuses a document larger than the tenant may store (before anything else is done with it). */
  checkDocumentSize(limits: EffectiveLimits, contentBytes: number): void {
    const maxBytes = this.maxDocumentBytes(limits);
    if (contentBytes > maxBytes) {
      throw errors.tooLarge('document_too_large', `The document is larger than the ${maxBytes} bytes allowed.`, { limit: maxBytes, size: contentBytes });
    }
  }

  /**
   * Checks a new document in a knowledge base owned by `subTenantId` (null: the tenant's own)
   * against every quota, inside the storing transaction after `lockedTenant`.
   */
  async checkNewDocument(tx: Queryable, scope: Scope, limits: EffectiveLimits, subTenantId: string | null, doc: DocumentDemand): Promise<void> {
    if (subTenantId) await this.checkSubTenantDocument(tx, scope, subTenantId, doc);
    const used = await storageUsage(tx, { tenantId: scope.tenantId, subTenantId: null });
    if (used.documents + 1 > limits.maxDocuments) {
      throw errors.paymentRequired('document_limit_reached', `The plan allows ${limits.maxDocuments} documents.`, {
        limit: limits.maxDocuments,
        current: used.documents,
      });
    }
    if (used.storageBytes + doc.storageBytes > limits.storageBytes) {
      throw errors.tooLarge('storage_quota_exceeded', 'The storage quota would be exceeded.', { limit: limits.storageBytes, current: used.storageBytes });
    }
    if (used.chunks + doc.chunks > limits.maxChunks) {
      const extra = { limit: limits.maxChunks, current: used.chunks, requested: doc.chunks };
      // A sub-tenant's document finds the pool of chunks shared by all sub-tenants exhausted.
      throw subTenantId
        ? new AppError(429, 'tenant_pool_quota_exceeded', "The tenant's pool of chunks, shared by its sub-tenants, is exhausted.", extra)
        : errors.paymentRequired('chunk_quota_exceeded', `The plan allows ${limits.maxChunks} chunks.`, extra);
    }
  }

  private async checkSubTenantDocument(tx: Queryable, scope: Scope, subTenantId: string, doc: DocumentDemand): Promise<void> {
    const limits = await this.subTenantLimits(tx, scope, subTenantId);
    const within = { scope: 'sub_tenant' };
    if (limits.max_document_size_bytes !== null && doc.contentBytes > limits.max_document_size_bytes) {
      throw errors.tooLarge('document_too_large', `The sub-tenant allows documents of ${limits.max_document_size_bytes} bytes.`, {
        limit: limits.max_document_size_bytes,
        size: doc.contentBytes,
        ...within,
      });
    }
    const used = await storageUsage(tx, { tenantId: scope.tenantId, subTenantId });
    if (limits.max_documents !== null && used.documents + 1 > limits.max_documents) {
      throw errors.forbidden('sub_tenant_document_limit_reached', `The sub-tenant allows ${limits.max_documents} documents.`, {
        limit: limits.max_documents,
        current: used.documents,
      });
    }
    if (limits.storage_quota_bytes !== null && used.storageBytes + doc.storageBytes > limits.storage_quota_bytes) {
      throw errors.tooLarge('sub_tenant_storage_quota_exceeded', "The sub-tenant's storage quota would be exceeded.", {
        current: used.storageBytes,
        limit: limits.storage_quota_bytes,
      });
    }
    if (limits.max_total_chunks !== null && used.chunks + doc.chunks > limits.max_total_chunks) {
      throw new AppError(429, 'sub_tenant_chunk_quota_exceeded', `The sub-tenant allows ${limits.max_total_chunks} chunks.`, {
        limit: limits.max_total_chunks,
        current: used.chunks,
        requested: doc.chunks,
      });
    }
  }

  /** Checks one more knowledge base for the scope (the tenant's plan, and a sub-tenant's own limit), after `lockedTenant`. */
  async checkNewKnowledgeBase(tx: Queryable, scope: Scope, tenant: TenantRecord, limits: EffectiveLimits): Promise<void> {
    if (limits.maxKnowledgeBases !== null) {
      const used = await countKnowledgeBases(tx, { tenantId: scope.tenantId, subTenantId: null });
      if (used >= limits.maxKnowledgeBases) {
        throw errors.forbidden('knowledge_base_limit_reached', `The ${tenant.plan} plan allows ${limits.maxKnowledgeBases} knowledge base(s).`, {
          limit: limits.maxKnowledgeBases,
          current: used,
        });
      }
    }
    if (scope.subTenantId) {
      const sub = await this.subTenantLimits(tx, scope, scope.subTenantId);
      const used = await countKnowledgeBases(tx, scope);
      if (sub.max_knowledge_bases !== null && used >= sub.max_knowledge_bases) {
        throw errors.forbidden('knowledge_base_limit_reached', `The sub-tenant allows ${sub.max_knowledge_bases} knowledge base(s).`, {
          limit: sub.max_knowledge_bases,
          current: used,
          scope: 'sub_tenant',
        });
      }
    }
  }

  /** The resources whose current use is above `limits` (a target plan's, for a downgrade or cancellation). */
  async exceededLimits(tx: Queryable, scope: Scope, limits: EffectiveLimits): Promise<ExceededLimit[]> {
    const whole = { tenantId: scope.tenantId, subTenantId: null };
    const used = await storageUsage(tx, whole);
    const kbs = await countKnowledgeBases(tx, whole);
    const all: Array<{ resource: ExceededLimit['resource']; used: number; limit: number | null }> = [
      { resource: 'documents', used: used.documents, limit: limits.maxDocuments },
      { resource: 'storage_bytes', used: used.storageBytes, limit: limits.storageBytes },
      { resource: 'chunks', used: used.chunks, limit: limits.maxChunks },
      { resource: 'knowledge_bases', used: kbs, limit: limits.maxKnowledgeBases },
    ];
    return all.filter((e): e is ExceededLimit => e.limit !== null && e.used > e.limit);
  }
}
