import type { Queryable } from '../db/database.js';
import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';

export interface DocumentSummaryRow {
  id: string;
  knowledge_base_id: string;
  sub_tenant_id: string | null;
  title: string;
  tags: Record<string, string>;
  status: 'processing' | 'ready' | 'failed';
  content_bytes: number;
  anonymized: boolean;
  created_at: Date;
  updated_at: Date;
}

const SUMMARY_COLUMNS =
  'd.id, d.knowledge_base_id, d.sub_tenant_id, d.title, d.tags, d.status, d.content_bytes, d.anonymized, d.created_at, d.updated_at';

export async function listDocumentsOfKnowledgeBase(
  db: Queryable,
  scope: Scope,
  knowledgeBaseId: string,
): Promise<DocumentSummaryRow[]> {
  const { rows } = await db.query<DocumentSummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM documents d
     WHERE ${scopeSql('d', 1)} AND d.knowledge_base_id = $3 ORDER BY d.created_at, d.id`,
    [...scopeParams(scope), knowledgeBaseId],
  );
  return rows;
}
