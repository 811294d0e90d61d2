import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';
import type { Queryable } from '../db/database.js';
import { queryLexemesSql } from './search-sql.js';

/**
 * The query's words, each as its lexemes under every configuration (its forms in each language;
 * see `queryLexemesSql`). Lexemes holding a backslash are left out (a tsquery would read it as an
 * escape).
 */
export async function queryLexemes(db: Queryable, query: string, configs: readonly string[]): Promise<string[][]> {
  if (!configs.length) return [];
  const { rows } = await db.query<{ lexemes: string[] }>(queryLexemesSql(configs), [query]);
  return rows.map((r) => r.lexemes.filter((l) => !l.includes('\\'))).filter((lexemes) => lexemes.length);
}

export interface ChunkDetail {
  id: string;
  content: string;
  document_id: string;
  knowledge_base_id: string;
  doc_title: string;
  chunk_index: number;
  doc_tags: Record<string, string>;
  language: string | null;
}

/**
 * The result fields of chunks, re-checked against the tenant and against deletion: a chunk deleted
 * since a retriever found it (its document deleted in the meantime) is left out. Readiness is the
 * retrievers' condition (only chunks of ready documents are searched, and a ready document never
 * goes back), so it is not checked again: that join cost ~0.6 ms a query at 100k chunks.
 */
export async function chunkDetails(db: Queryable, scope: Scope, ids: string[]): Promise<Map<string, ChunkDetail>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<ChunkDetail>(
    `SELECT c.id, c.content, c.document_id, c.knowledge_base_id, c.doc_title, c.chunk_index, c.doc_tags, c.language
     FROM chunks c WHERE c.id = ANY($1::uuid[]) AND ${scopeSql('c', 2)}`,
    [ids, ...scopeParams(scope)],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export interface CorpusChunkDetail {
  id: string;
  content: string;
  corpus: string;
  source_record_id: string;
  metadata: Record<string, unknown>;
}

/** The result fields of corpus chunks, re-checked against the corpora the query may search. */
export async function corpusChunkDetails(db: Queryable, corpusIds: string[], ids: string[]): Promise<Map<string, CorpusChunkDetail>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<CorpusChunkDetail>(
    `SELECT pc.id, pc.content, co.slug AS corpus, pc.source_record_id, pc.metadata
     FROM platform_chunks pc JOIN corpora co ON co.id = pc.corpus_id
     WHERE pc.id = ANY($1::uuid[]) AND pc.corpus_id = ANY($2::uuid[])`,
    [ids, corpusIds],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
