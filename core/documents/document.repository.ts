import type { Queryable } from '../db/database.js';
import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';

export interface DocumentRow {
  id: string;
  tenant_id: string;
  knowledge_base_id: string;
  sub_tenant_id: string | null;
  title: string;
  tags: Record<string, string>;
  status: 'processing' | 'ready' | 'failed';
  language: string | null;
  anonymized: boolean;
  source: 'text' | 'upload';
  content_bytes: number;
  file_bytes: number;
  chunk_count: number;
  error: string | null;
  file_content_type: string | null;
  file_name: string | null;
  created_at: Date;
  updated_at: Date;
  content?: string;
}

const SUMMARY_COLUMNS = `d.id, d.tenant_id, d.knowledge_base_id, d.sub_tenant_id, d.title, d.tags, d.status, d.language,
  d.anonymized, d.source, d.content_bytes, d.file_bytes, d.chunk_count, d.error, d.created_at, d.updated_at,
  f.content_type AS file_content_type, f.file_name`;

const FROM = 'documents d LEFT JOIN document_files f ON f.document_id = d.id';

export async function listDocumentsOfKnowledgeBase(db: Queryable, scope: Scope, knowledgeBaseId: string): Promise<DocumentRow[]> {
  const { rows } = await db.query<DocumentRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM ${FROM}
     WHERE ${scopeSql('d', 1)} AND d.knowledge_base_id = $3 ORDER BY d.created_at, d.id`,
    [...scopeParams(scope), knowledgeBaseId],
  );
  return rows;
}

export async function findDocument(db: Queryable, scope: Scope, id: string, withContent = false): Promise<DocumentRow | undefined> {
  const { rows } = await db.query<DocumentRow>(
    `SELECT ${SUMMARY_COLUMNS}${withContent ? ', d.content' : ''} FROM ${FROM} WHERE ${scopeSql('d', 1)} AND d.id = $3`,
    [...scopeParams(scope), id],
  );
  return rows[0];
}

export interface StorageUsage {
  documents: number;
  storageBytes: number;
  /** Chunks indexed or reserved by documents being indexed. */
  chunks: number;
}

/**
 * What the scope's documents use: a tenant-level scope adds up the tenant's counter rows (its own and
 * one per sub-tenant), a sub-tenant's scope reads its row. Triggers on `documents` keep the rows
 * exact (migration 0009), so a quota check costs the same at any number of documents.
 */
export async function storageUsage(db: Queryable, scope: Scope): Promise<StorageUsage> {
  const { rows } = await db.query<{ documents: number; storage: number; chunks: number }>(
    `SELECT COALESCE(sum(u.documents), 0)::bigint AS documents, COALESCE(sum(u.storage_bytes), 0)::bigint AS storage,
            COALESCE(sum(u.chunks), 0)::bigint AS chunks
     FROM storage_usage u WHERE ${scopeSql('u', 1)}`,
    scopeParams(scope),
  );
  const r = rows[0]!;
  return { documents: Number(r.documents), storageBytes: Number(r.storage), chunks: Number(r.chunks) };
}

export interface NewDocument {
  knowledgeBaseId: string;
  title: string;
  content: string;
  contentBytes: number;
  tags: Record<string, string>;
  anonymized: boolean;
  source: 'text' | 'upload';
  fileBytes: number;
  chunkCount: number;
}

/** Inserts a document owned by the scope (a sub-tenant's when the knowledge base is one's). */
export async function insertDocument(db: Queryable, scope: Scope, d: NewDocument): Promise<{ id: string; created_at: Date }> {
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO documents (tenant_id, sub_tenant_id, knowledge_base_id, title, content, content_bytes, tags, anonymized,
                            source, file_bytes, chunk_count)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id, created_at`,
    [
      scope.tenantId,
      scope.subTenantId,
      d.knowledgeBaseId,
      d.title,
      d.content,
      d.contentBytes,
      JSON.stringify(d.tags),
      d.anonymized,
      d.source,
      d.fileBytes,
      d.chunkCount,
    ],
  );
  return rows[0]!;
}

export async function insertDocumentFile(
  db: Queryable,
  scope: Scope,
  f: { documentId: string; contentType: string; fileName: string | null; data: Buffer },
): Promise<void> {
  await db.query(
    `INSERT INTO document_files (document_id, tenant_id, content_type, file_name, size_bytes, data)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [f.documentId, scope.tenantId, f.contentType, f.fileName, f.data.length, f.data],
  );
}

export async function findDocumentFile(
  db: Queryable,
  scope: Scope,
  documentId: string,
): Promise<{ content_type: string; file_name: string | null; data: Buffer } | undefined> {
  const { rows } = await db.query<{ content_type: string; file_name: string | null; data: Uint8Array }>(
    `SELECT f.content_type, f.file_name, f.data FROM document_files f JOIN documents d ON d.id = f.document_id
     WHERE ${scopeSql('d', 1)} AND d.id = $3`,
    [...scopeParams(scope), documentId],
  );
  const row = rows[0];
  return row && { ...row, data: Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength) };
}

/** Deletes a document with its chunks and file (cascades); false when the scope has no such document. */
export async function deleteDocument(db: Queryable, scope: Scope, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM documents d WHERE ${scopeSql('d', 1)} AND d.id = $3`, [
    ...scopeParams(scope),
    id,
  ]);
  return rowCount > 0;
}
