import type { Queryable } from '../db/database.js';
import type { KeywordHit, KeywordIndex, KeywordSearchParams } from '../ports/keyword-index.js';
import type { ChunkFilter, CorpusChunkFilter } from '../search/chunk-filter.js';
import { LexemeFrequencies, keywordSearch, corpusKeywordSearch } from '../search/search.repository.js';

/**
 * Keyword search in the database: PostgreSQL full-text search over the chunk tables' GIN-indexed
 * tsvectors, ranked by ts_rank, the rows to rank narrowed by word frequency (see `matchQueries`).
 * The default with `DATABASE_URL`, where every API replica searches the same tables.
 */
export class PostgresKeywordIndex implements KeywordIndex {
  readonly kind = 'postgres';
  private readonly frequencies: LexemeFrequencies;

  constructor(
    private readonly db: Queryable,
    /** How many rows a search's rare words may select (MATCH_ROW_BUDGET unless set; benchmarks vary it). */
    private readonly matchRowBudget?: number,
  ) {
    this.frequencies = new LexemeFrequencies(db);
  }

  search(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
    return keywordSearch(this.db, { ...params, frequencies: this.frequencies, matchRowBudget: this.matchRowBudget });
  }

  searchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]> {
    return corpusKeywordSearch(this.db, { ...params, frequencies: this.frequencies, matchRowBudget: this.matchRowBudget });
  }
}
