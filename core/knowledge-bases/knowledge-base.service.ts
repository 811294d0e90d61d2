import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import type { VectorIndex } from '../ports/vector-index.js';
import type { QuotaService } from '../quotas/quota.service.js';
import { isUuid } from '../shared/ids.js';
import type { Scope } from '../shared/scope.js';
import { type KnowledgeBaseRow, findKnowledgeBase, insertKnowledgeBase, listKnowledgeBases, updateKnowledgeBase } from './knowledge-base.repository.js';
import type { CreateKnowledgeBaseInput, UpdateKnowledgeBaseInput } from './knowledge-base.schema.js';

export class KnowledgeBaseService {
  constructor(
    private readonly db: Database,
    private readonly vectors: VectorIndex,
    private readonly quotas: QuotaService,
  ) {}

  /** Creates a knowledge base; the plan's limit is checked under the tenant's row lock. */
  async create(scope: Scope, input: CreateKnowledgeBaseInput): Promise<KnowledgeBaseRow> {
    // The index for this dimension exists before the first chunk arrives (outside the transaction:
    // PGlite runs one statement stream, and DDL must not wait on the transaction that waits on it).
    await this.vectors.ensureDimensions(input.dimensions);
    return this.db.transaction(async (tx) => {
      const { tenant, limits } = await this.quotas.lockedTenant(tx, scope);
      await this.quotas.checkNewKnowledgeBase(tx, scope, tenant, limits);
      return insertKnowledgeBase(tx, scope, {
        name: input.name,
        dimensions: input.dimensions,
        translationConfig: input.translation_config ?? {},
      });
    });
  }

  list(scope: Scope): Promise<KnowledgeBaseRow[]> {
    return listKnowledgeBases(this.db, scope);
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
