import { rowVersionSql } from '../db/row-version.js';
import type { Queryable } from '../db/database.js';
import type { ChunkKeywords } from '../search/chunk-keywords.js';
import { keywordIndexColumns } from '../search/search-sql.js';
import type { EncodedEmbeddings } from '../db/embeddings.js';
import type { PlanId } from '../plans.js';
import type { Scope } from '../shared/scope.js';

/** A stored document as its indexing job reads it, with its knowledge base's dimensions. */
export interface DocumentToIndex {
  id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  knowledge_base_id: string;
  title: string;
  tags: Record<string, string>;
  content: string;
  /** How it was stored: its text, or a file's (for the metrics). */
  source: 'text' | 'upload';
  created_at: Date;
  /** The chunk count reserved when the document was stored (its job's total). */
  chunk_count: number;
  dimensions: number;
  /** `ready` when an earlier attempt made it searchable and stopped before completing its job. */
  status: 'processing' | 'ready' | 'failed';
}

/** A document named by its indexing job: the job row carries both ids. */
export interface DocumentRef {
  tenantId: string;
  documentId: string;
}

/** The documents of several jobs (a batch may span tenants; each pair comes from a job row). */
export async function documentsToIndex(db: Queryable, refs: readonly DocumentRef[]): Promise<DocumentToIndex[]> {
  if (!refs.length) return [];
  const { rows } = await db.query<DocumentToIndex>(
    `SELECT d.id, d.tenant_id, d.sub_tenant_id, d.knowledge_base_id, d.title, d.tags, d.content, d.source, d.created_at, d.chunk_count,
            d.status, kb.dimensions
     FROM unnest($1::uuid[], $2::uuid[]) AS r(tenant_id, id)
     JOIN documents d ON d.id = r.id AND d.tenant_id = r.tenant_id
     JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id AND kb.tenant_id = d.tenant_id`,
    [refs.map((r) => r.tenantId), refs.map((r) => r.documentId)],
  );
  return rows;
}

/** The language of each chunk of the document written so far, by chunk index. */
export async function indexedChunkLanguages(db: Queryable, scope: Scope, documentId: string): Promise<Map<number, string | null>> {
  const { rows } = await db.query<{ chunk_index: number; language: string | null }>(
    'SELECT chunk_index, language FROM chunks WHERE tenant_id = $1 AND document_id = $2',
    [scope.tenantId, documentId],
  );
  return new Map(rows.map((r) => [r.chunk_index, r.language]));
}

/** One chunk to write: its document (with the fields chunks copy for filtering), place, text and language. */
export interface NewChunk {
  doc: DocumentToIndex;
  index: number;
  content: string;
  language: string | null;
  /** What its keyword index is built from: the text and the document's title as keyword search analyses them. */
  keywords: ChunkKeywords;
}

/**
 * Writes chunks of one embedding dimension in one statement, with their keyword index (tsvector:
 * the document's title with weight A, then the chunk's text; see Bm25Query).
 * Rows are keyed by (document, chunk_index): a chunk an earlier attempt wrote is skipped, so a
 * retried job never duplicates one. Returns the rows written, with the tsvector PostgreSQL built.
 */
export async function insertChunks(
  db: Queryable,
  chunks: readonly NewChunk[],
  embedding: { dimensions: number; embedder: string; encoded: EncodedEmbeddings },
): Promise<Array<{ id: string; document_id: string; chunk_index: number; tsv: string }>> {
  const { encoded } = embedding;
  const keywords = keywordIndexColumns(chunks.map((c) => c.keywords), true);
  const { rows } = await db.query<{ id: string; document_id: string; chunk_index: number; tsv: string }>(
    `INSERT INTO chunks (tenant_id, sub_tenant_id, knowledge_base_id, document_id, chunk_index, content, language,
                         dimensions, embedding, embedder, tsv, doc_title, doc_tags, doc_created_at)
     SELECT t.tenant_id, t.sub_tenant_id, t.kb_id, t.doc_id, t.idx, t.content, t.lang, $1, ${encoded.element('t.emb')}, $2,
            ${keywords.tsvector}, t.title, t.tags::jsonb, t.created_at
     FROM unnest($3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::timestamptz[],
                 $10::int[], $11::text[], $12::text[], $13::${encoded.type}, ${keywords.placeholders(14)})
          AS t(tenant_id, sub_tenant_id, kb_id, doc_id, title, tags, created_at, idx, content, lang, emb, ${keywords.names})
     ON CONFLICT (document_id, chunk_index) DO NOTHING
     RETURNING id, document_id, chunk_index, tsv::text AS tsv`,
    [
      embedding.dimensions,
      embedding.embedder,
      chunks.map((c) => c.doc.tenant_id),
      chunks.map((c) => c.doc.sub_tenant_id),
      chunks.map((c) => c.doc.knowledge_base_id),
      chunks.map((c) => c.doc.id),
      chunks.map((c) => c.doc.title),
      chunks.map((c) => JSON.stringify(c.doc.tags)),
      chunks.map((c) => c.doc.created_at),
      chunks.map((c) => c.index),
      chunks.map((c) => c.content),
      chunks.map((c) => c.language),
      encoded.value,
      ...keywords.values,
    ],
  );
  return rows;
}

/**
 * Takes a key-share lock on each tenant's row, in id order (as deleting an account does: it
 * cascades from the tenant to its documents), so the final transaction of an indexing job and an
 * account deletion cannot deadlock. Returns the plans of the tenants that still exist.
 */
export async function lockTenantsForIndexing(tx: Queryable, scopes: readonly Scope[]): Promise<Map<string, PlanId>> {
  const ids = [...new Set(scopes.map((s) => s.tenantId))].sort();
  const { rows } = await tx.query<{ id: string; plan: PlanId }>('SELECT id, plan FROM tenants WHERE id = ANY($1::uuid[]) ORDER BY id FOR KEY SHARE', [ids]);
  return new Map(rows.map((t) => [t.id, t.plan]));
}

/** An indexed document: ready, with its chunk count, main language and embedder. */
export interface IndexedDocument {
  doc: DocumentToIndex;
  chunkCount: number;
  language: string | null;
}

/**
 * Makes documents searchable in one statement (each matched by its id and its tenant). Returns the
 * version (rowVersionSql) of each it updated, by id: fewer than given means some were deleted meanwhile.
 */
export async function markDocumentsReady(tx: Queryable, documents: readonly IndexedDocument[], embedder: string): Promise<Map<string, string>> {
  const { rows } = await tx.query<{ id: string; version: string }>(
    `UPDATE documents d SET status = 'ready', chunk_count = u.chunk_count, embedder = $5,
            language = COALESCE(u.language, d.language), error = NULL, updated_at = now()
     FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[]) AS u(tenant_id, id, chunk_count, language)
     WHERE d.id = u.id AND d.tenant_id = u.tenant_id
     RETURNING d.id, ${rowVersionSql('d.updated_at')} AS version`,
    [documents.map((d) => d.doc.tenant_id), documents.map((d) => d.doc.id), documents.map((d) => d.chunkCount), documents.map((d) => d.language), embedder],
  );
  return new Map(rows.map((r) => [r.id, r.version]));
}

/** A document whose job failed for good: failed, holding no chunks (and so no chunk quota). */
export async function markDocumentFailed(tx: Queryable, scope: Scope, documentId: string, error: string): Promise<void> {
  await tx.query('DELETE FROM chunks WHERE tenant_id = $1 AND document_id = $2', [scope.tenantId, documentId]);
  await tx.query(`UPDATE documents SET status = 'failed', chunk_count = 0, error = $3, updated_at = now() WHERE tenant_id = $1 AND id = $2`, [
    scope.tenantId,
    documentId,
    error,
  ]);
}
