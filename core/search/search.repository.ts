import type { Queryable } from '../db/database.js';
import { SqlParams } from '../shared/sql-params.js';
import { type ChunkFilter, type PlatformChunkFilter, chunkFilterSql, platformChunkFilterSql } from './chunk-filter.js';

export interface KeywordHit {
  chunkId: string;
  rank: number;
}

/**
 * Full-text search over chunks. Each chunk's tsvector was built with its own language's
 * configuration, so the query is normalised with every configuration in `configs` and the
 * resulting lexemes are OR-ed: a query word matches in whichever language stems it the same way.
 */
export async function keywordSearch(
  db: Queryable,
  params: { filter: ChunkFilter; query: string; configs: readonly string[]; limit: number },
): Promise<KeywordHit[]> {
  return rankedKeywordSearch(db, { ...params, table: 'chunks', where: (p) => chunkFilterSql(params.filter, p) });
}

/** As `keywordSearch`, over the chunks of platform corpora (the same ranking, so the two compare). */
export async function platformKeywordSearch(
  db: Queryable,
  params: { filter: PlatformChunkFilter; query: string; configs: readonly string[]; limit: number },
): Promise<KeywordHit[]> {
  if (!params.filter.corpusIds.length) return [];
  return rankedKeywordSearch(db, { ...params, table: 'platform_chunks', where: (p) => platformChunkFilterSql(params.filter, p) });
}

async function rankedKeywordSearch(
  db: Queryable,
  params: { table: 'chunks' | 'platform_chunks'; where: (p: SqlParams) => string; query: string; configs: readonly string[]; limit: number },
): Promise<KeywordHit[]> {
  const p = new SqlParams();
  const query = p.add(params.query);
  const configs = p.add([...params.configs]);
  const where = params.where(p);
  const { rows } = await db.query<{ id: string; rank: number }>(
    `WITH q AS (
       SELECT string_agg(DISTINCT quote_literal(lexeme), ' | ')::tsquery AS tsq
       FROM unnest(${configs}::regconfig[]) AS cfg,
            LATERAL unnest(tsvector_to_array(to_tsvector(cfg, ${query}))) AS lexeme
       WHERE position('\\' in lexeme) = 0
     )
     SELECT c.id, ts_rank_cd(c.tsv, q.tsq) AS rank
     FROM ${params.table} c, q
     WHERE q.tsq IS NOT NULL AND c.tsv @@ q.tsq AND ${where}
     ORDER BY rank DESC, c.id
     LIMIT ${Math.trunc(params.limit)}`,
    p.values,
  );
  return rows.map((r) => ({ chunkId: r.id, rank: Number(r.rank) }));
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

/** The result fields of chunks, re-checked against the tenant (and still searchable: document ready, not deleted). */
export async function chunkDetails(db: Queryable, tenantId: string, ids: string[]): Promise<Map<string, ChunkDetail>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<ChunkDetail>(
    `SELECT id, content, document_id, knowledge_base_id, doc_title, chunk_index, doc_tags, language
     FROM chunks c WHERE id = ANY($1::uuid[]) AND tenant_id = $2
       AND EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.status = 'ready')`,
    [ids, tenantId],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

export interface PlatformChunkDetail {
  id: string;
  content: string;
  corpus: string;
  source_record_id: string;
  metadata: Record<string, unknown>;
}

/** The result fields of platform chunks, re-checked against the corpora the query may search. */
export async function platformChunkDetails(db: Queryable, corpusIds: string[], ids: string[]): Promise<Map<string, PlatformChunkDetail>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<PlatformChunkDetail>(
    `SELECT pc.id, pc.content, co.slug AS corpus, pc.source_record_id, pc.metadata
     FROM platform_chunks pc JOIN corpora co ON co.id = pc.corpus_id
     WHERE pc.id = ANY($1::uuid[]) AND pc.corpus_id = ANY($2::uuid[])`,
    [ids, corpusIds],
  );
  return new Map(rows.map((r) => [r.id, r]));
}
