import type { Database } from '../db/database.js';
import type { KnowledgeBaseService } from '../knowledge-bases/knowledge-base.service.js';
import type { Scope } from '../shared/scope.js';
import { type DocumentSummaryRow, listDocumentsOfKnowledgeBase } from './document.repository.js';
import type { DocumentSummary } from './document.schema.js';

export function presentDocumentSummary(d: DocumentSummaryRow): DocumentSummary {
  return {
    id: d.id,
    knowledge_base_id: d.knowledge_base_id,
    sub_tenant_id: d.sub_tenant_id,
    title: d.title,
    tags: d.tags,
    status: d.status,
    content_bytes: d.content_bytes,
    anonymized: d.anonymized,
    created_at: d.created_at.toISOString(),
    updated_at: d.updated_at.toISOString(),
  };
}

export class DocumentService {
  constructor(
    private readonly db: Database,
    private readonly knowledgeBases: KnowledgeBaseService,
  ) {}

  /** Documents of a knowledge base the scope can see; 404 when it cannot. */
  async listOfKnowledgeBase(scope: Scope, knowledgeBaseId: string): Promise<DocumentSummary[]> {
    const kb = await this.knowledgeBases.get(scope, knowledgeBaseId);
    return (await listDocumentsOfKnowledgeBase(this.db, scope, kb.id)).map(presentDocumentSummary);
  }
}
