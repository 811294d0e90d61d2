import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import { limitsFor } from '../plans.js';
import type { VectorIndex } from '../ports/vector-index.js';
import { isUuid } from '../shared/ids.js';
import { subTenantLimits } from '../sub-tenants/sub-tenant-limits.js';
import type { Scope } from '../shared/scope.js';
import { lockTenant } from '../tenants/tenant.repository.js';
import {
  type KnowledgeBaseRow,
  countKnowledgeBases,
  findKnowledgeBase,
  insertKnowledgeBase,
  listKnowledgeBases,
  updateKnowledgeBase,
} from './knowledge-base.repository.js';
import type { CreateKnowledgeBaseInput, KnowledgeBaseView, UpdateKnowledgeBaseInput } from './knowledge-base.schema.js';

export function presentKnowledgeBase(kb: KnowledgeBaseRow): KnowledgeBaseView {
  return {
    id: kb.id,
    name: kb.name,
    dimensions: kb.dimensions,
    translation_config: kb.translation_config,
    sub_tenant_id: kb.sub_tenant_id,
    created_at: kb.created_at.toISOString(),
    updated_at: kb.updated_at.toISOString(),
  };
}

export class KnowledgeBaseService {
  constructor(
    private readonly db: Database,
    private readonly vectors: VectorIndex,
  ) {}

  /** Creates a knowledge base; the plan's limit is checked under the tenant's row lock. */
  async create(scope: Scope, input: CreateKnowledgeBaseInput): Promise<{ id: string }> {
    // The index for this dimension exists before the first chunk arrives (outside the transaction:
    // PGlite runs one statement stream, and DDL must not wait on the transaction that waits on it).
    await this.vectors.ensureDimensions(input.dimensions);
    return this.db.transaction(async (tx) => {
      const tenant = await lockTenant(tx, scope.tenantId);
      if (!tenant) throw errors.notFound('tenant');
      const { maxKnowledgeBases } = limitsFor(tenant.plan, tenant.limit_overrides);
      if (maxKnowledgeBases !== null) {
        const used = await countKnowledgeBases(tx, { tenantId: scope.tenantId, subTenantId: null });
        if (used >= maxKnowledgeBases) {
          throw errors.forbidden(
            'knowledge_base_limit_reached',
            `The ${tenant.plan} plan allows ${maxKnowledgeBases} knowledge base(s).`,
            { limit: maxKnowledgeBases, current: used },
          );
        }
      }
      if (scope.subTenantId) {
        const sub = await subTenantLimits(tx, scope.tenantId, scope.subTenantId);
        if (!sub) throw errors.notFound('sub-tenant');
        const used = await countKnowledgeBases(tx, scope);
        if (sub.max_knowledge_bases !== null && used >= sub.max_knowledge_bases) {
          throw errors.forbidden(
            'knowledge_base_limit_reached',
            `The sub-tenant allows ${sub.max_knowledge_bases} knowledge base(s).`,
            { limit: sub.max_knowledge_bases, current: used, scope: 'sub_tenant' },
          );
        }
      }
      const kb = await insertKnowledgeBase(tx, scope, {
        name: input.name,
        dimensions: input.dimensions,
        translationConfig: input.translation_config ?? {},
      });
      return { id: kb.id };
    });
  }

  async list(scope: Scope): Promise<KnowledgeBaseView[]> {
    return (await listKnowledgeBases(this.db, scope)).map(presentKnowledgeBase);
  }

  /** The knowledge base if the scope can see it; 404 otherwise (never 403, so ids cannot be probed). */
  async get(scope: Scope, id: string): Promise<KnowledgeBaseRow> {
    const kb = isUuid(id) ? await findKnowledgeBase(this.db, scope, id) : undefined;
    if (!kb) throw errors.notFound('knowledge base');
    return kb;
  }

  async update(scope: Scope, id: string, patch: UpdateKnowledgeBaseInput): Promise<void> {
    const updated =
      isUuid(id) &&
      (await updateKnowledgeBase(this.db, scope, id, {
        name: patch.name,
        translationConfig: patch.translation_config,
      }));
    if (!updated) throw errors.notFound('knowledge base');
  }
}
