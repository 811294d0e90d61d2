import type { Queryable } from '../db/database.js';
import type { KeywordHit, KeywordIndex, KeywordSearchParams } from '../ports/keyword-index.js';
import type { ChunkFilter, PlatformChunkFilter } from '../search/chunk-filter.js';
import { queryLexemes } from '../search/search.repository.js';
import type { FlatVectorIndex } from './flat.vector-index.js';
import { PostgresKeywordIndex } from './postgres.keyword-index.js';

/**
 * The embedded topology's keyword search: the flat vector index's segments also keep each chunk's
 * lexemes (from the tsvector PostgreSQL built for it, with its language's configuration), and rank
 * rows in memory exactly as ts_rank does (KeywordPostings). PostgreSQL still does the language
 * work: it builds the chunks' tsvectors when they are written and normalises each query with every
 * configuration; only the ranking leaves the database. Rows are selected by the query words' share
 * of the searched chunks as the database search selects them (`wordSelections`: rare words select,
 * common ones only rank), but never narrowed further to keep the cost down, as the database search
 * must be.
 *
 * Until the flat index has loaded (start-up), searches go to the database.
 */
export class FlatKeywordIndex implements KeywordIndex {
  readonly kind = 'flat';
  private readonly fallback: PostgresKeywordIndex;

  constructor(
    private readonly db: Queryable,
    private readonly index: FlatVectorIndex,
  ) {
    this.fallback = new PostgresKeywordIndex(db);
  }

  async search(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
    if (!this.index.servesKeywords) return this.fallback.search(params);
    const words = await queryLexemes(this.db, params.query, params.configs);
    return this.index.keywordSearch({ filter: params.filter, words, limit: params.limit });
  }

  async searchPlatform(params: KeywordSearchParams & { filter: PlatformChunkFilter }): Promise<KeywordHit[]> {
    if (!params.filter.corpusIds.length) return [];
    if (!this.index.servesKeywords) return this.fallback.searchPlatform(params);
    const words = await queryLexemes(this.db, params.query, params.configs);
    return this.index.keywordSearchPlatform({ filter: params.filter, words, limit: params.limit });
  }
}
