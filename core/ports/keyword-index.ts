import type { Bm25Query } from '../search/bm25.js';
import type { ChunkFilter, CorpusChunkFilter } from '../search/chunk-filter.js';

export interface KeywordHit {
  chunkId: string;
  /** The chunk's BM25F score for the query (Bm25Query); higher is better. */
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
  /** How the words weigh, from the statistics of the collections searched (KeywordStatistics). */
  ranking: Bm25Query;
  limit: number;
}

/**
 * Full-text search over chunks: tenant chunks and platform corpus chunks. Each chunk's tsvector is
 * built by PostgreSQL with its own language's configuration (its document's title, then its text),
 * and the chunk tables keep it; a query is normalised by PostgreSQL with every configuration
 * (before it reaches an adapter), and rows holding its lexemes are ranked by BM25F (Bm25Query; ties
 * by chunk id). Adapters either search the tables (`postgres`: a GIN index) or keep the lexemes in
 * memory (`flat`: the flat vector index's segments), with the same ranking.
 */
export interface KeywordIndex {
  /** Which adapter this is, for logs: 'postgres' or 'flat'. */
  readonly kind: string;
  search(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]>;
  /** As `search`, over the chunks of platform corpora (the same ranking, so the two compare). */
  searchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]>;
}
