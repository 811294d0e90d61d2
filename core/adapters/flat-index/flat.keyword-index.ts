import type { KeywordHit, KeywordIndex, KeywordSearchParams } from '../../ports/keyword-index.js';
import type { ChunkFilter, CorpusChunkFilter } from '../../search/chunk-filter.js';

/** The in-memory keyword search over the flat vector index's segments (FlatVectorIndex). */
export interface SegmentKeywordSearch {
  /** Whether keyword searches can be served from memory now (the index keeps lexemes and has loaded). */
  readonly servesKeywords: boolean;
  keywordSearch(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]>;
  keywordSearchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]>;
}

/**
 * The embedded topology's keyword search: the flat vector index's segments also keep each chunk's
 * lexemes (from the tsvector PostgreSQL built for it, with its language's configuration), and rank
 * rows in memory by BM25F with the database search's arithmetic (KeywordPostings). PostgreSQL
 * still does the language work: it builds the chunks' tsvectors when they are written and
 * normalises each query with every configuration (queryLexemes, before a search reaches this);
 * only the ranking leaves the database. Every chunk holding a query word is ranked; the database
 * search, for which a row costs a heap visit, ranks those its rare words select
 * (`wordSelections`), so on the same selection the two answer alike.
 *
 * Until the flat index has loaded (start-up), searches go to `fallback` (the database's search: see
 * createKeywordIndex).
 */
export class FlatKeywordIndex implements KeywordIndex {
  readonly kind = 'flat';

  constructor(
    private readonly index: SegmentKeywordSearch,
    private readonly fallback: KeywordIndex,
  ) {}

  search(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
    return this.index.servesKeywords ? this.index.keywordSearch(params) : this.fallback.search(params);
  }

  searchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]> {
    return this.index.servesKeywords ? this.index.keywordSearchCorpora(params) : this.fallback.searchCorpora(params);
  }
}
