import type { Queryable } from '../../db/database.js';
import type { KeywordHit, KeywordIndex, KeywordSearchParams } from '../../ports/keyword-index.js';
import type { ChunkFilter, CorpusChunkFilter } from '../../search/chunk-filter.js';
import type { FlatVectorIndex } from './flat.vector-index.js';
import { PostgresKeywordIndex } from '../postgres.keyword-index.js';

/**
 * The embedded topology's keyword search: the flat vector index's segments also keep each chunk's
 * lexemes (from the tsvector PostgreSQL built for it, with its language's configuration), and rank
 * rows in memory exactly as ts_rank does (KeywordPostings). PostgreSQL still does the language
 * work: it builds the chunks' tsvectors when they are written and normalises each query with every
 * configuration (queryLexemes, before a search reaches this); only the ranking leaves the database. Rows are selected by the query words' share
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
    db: Queryable,
    private readonly index: FlatVectorIndex,
  ) {
    this.fallback = new PostgresKeywordIndex(db);
  }

  search(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
    return this.index.servesKeywords ? this.index.keywordSearch(params) : this.fallback.search(params);
  }

  searchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]> {
    return this.index.servesKeywords ? this.index.keywordSearchCorpora(params) : this.fallback.searchCorpora(params);
  }
}
