import type { ChunkFilter, CorpusChunkFilter } from '../search/chunk-filter.js';

export interface KeywordHit {
  chunkId: string;
  /** PostgreSQL's ts_rank of the chunk's tsvector for the OR of the query's lexemes; higher is better. */
  rank: number;
}

/** Orders hits best first; equal ranks by chunk id, as the database search orders them. */
export function compareKeywordHits(a: KeywordHit, b: KeywordHit): number {
  return b.rank - a.rank || (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0);
}

export interface KeywordSearchParams {
  /**
   * The query's words, each as its lexemes under every text-search configuration chunks are indexed
   * with (`queryLexemes`: PostgreSQL normalises the query once, for every search of it).
   */
  words: ReadonlyArray<readonly string[]>;
  limit: number;
}

/**
 * Full-text search over chunks: tenant chunks and platform corpus chunks. Each chunk's tsvector is
 * built by PostgreSQL with its own language's configuration, and the chunk tables keep it; a query
 * is normalised by PostgreSQL with every configuration (before it reaches an adapter), its lexemes
 * OR-ed, and rows ranked by ts_rank (ties by chunk id). Adapters either search the tables (`postgres`: a GIN index) or keep
 * the lexemes in memory (`flat`: the flat vector index's segments), with the same ranking.
 */
export interface KeywordIndex {
  /** Which adapter this is, for logs: 'postgres' or 'flat'. */
  readonly kind: string;
  search(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]>;
  /** As `search`, over the chunks of platform corpora (the same ranking, so the two compare). */
  searchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]>;
}
