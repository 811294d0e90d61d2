import type { KnowledgeBaseRow } from './knowledge-base.repository.js';
import type { KnowledgeBaseView } from './knowledge-base.schema.js';

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
