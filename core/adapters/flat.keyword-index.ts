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
 * configuration; only the ranking leaves the database. Every row holding a query word is ranked,
 * where the database search must narrow the rows it ranks to keep its cost down.
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
    const lexemes = (await queryLexemes(this.db, params.query, params.configs)).flat();
    return this.index.keywordSearch({ filter: params.filter, lexemes, limit: params.limit });
  }

  async searchPlatform(params: KeywordSearchParams & { filter: PlatformChunkFilter }): Promise<KeywordHit[]> {
    if (!params.filter.corpusIds.length) return [];
    if (!this.index.servesKeywords) return this.fallback.searchPlatform(params);
    const lexemes = (await queryLexemes(this.db, params.query, params.configs)).flat();
    return this.index.keywordSearchPlatform({ filter: params.filter, lexemes, limit: params.limit });
  }
}
