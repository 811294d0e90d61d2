import type { Queryable } from '../db/database.js';
import type { KeywordHit, KeywordIndex, KeywordSearchParams } from '../ports/keyword-index.js';
import { type ChunkFilter, type CorpusChunkFilter, chunkFilterSql, corpusChunkFilterSql, documentMatcher, metadataMatcher } from '../search/chunk-filter.js';
import { type KeywordTable, matchQueries, rankedKeywordSql, withFrequencies } from '../search/search-sql.js';
import type { SqlParams } from '../shared/sql-params.js';

/**
 * Keyword search in the database: PostgreSQL full-text search over the chunk tables' GIN-indexed
 * tsvectors, ranked by BM25F (Bm25Query), the rows to rank narrowed by word frequency (see `matchQueries`).
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

export interface PostgresKeywordSearchParams extends KeywordSearchParams {
  frequencies: LexemeFrequencies;
  /** MATCH_ROW_BUDGET unless set. */
  matchRowBudget?: number | undefined;
}

/**
 * Full-text search over chunks. Each chunk's tsvector was built with its own language's
 * configuration, so the query is normalised with every configuration and a query word matches in
 * whichever language stems it the same way (a word: any of its lexemes). Rows are ranked by BM25F
 * (`rankedKeywordSql`); which rows are ranked at all is narrowed by `matchQueries`.
 */
export async function keywordSearch(db: Queryable, params: PostgresKeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
  return rankedKeywordSearch(db, {
    ...params,
    table: 'chunks',
    where: (p) => chunkFilterSql(params.filter, p),
    filtered: documentMatcher(params.filter) !== null,
  });
}

/** As `keywordSearch`, over the chunks of platform corpora (the same ranking, so the two compare). */
export async function corpusKeywordSearch(db: Queryable, params: PostgresKeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]> {
  if (!params.filter.corpusIds.length) return [];
  return rankedKeywordSearch(db, {
    ...params,
    table: 'platform_chunks',
    where: (p) => corpusChunkFilterSql(params.filter, p),
    filtered: metadataMatcher(params.filter) !== null,
  });
}

/** A table's most common lexemes with the share of rows holding each, and its row count. */
export interface TableLexemes {
  rows: number;
  frequencies: Map<string, number>;
}

/**
 * The share of a table's rows holding each of its most common lexemes, from the planner's
 * statistics (ANALYZE keeps up to 1,000 per tsvector column, down to about 1 % of rows), read at
 * most once a minute: reading `pg_stats` costs more than a keyword search.
 */
export class LexemeFrequencies {
  private readonly cached = new Map<KeywordTable, { at: number; frequencies: Promise<TableLexemes> }>();

  constructor(
    private readonly db: Queryable,
    private readonly maxAgeMs = 60_000,
  ) {}

  of(table: KeywordTable): Promise<TableLexemes> {
    const entry = this.cached.get(table);
    if (entry && Date.now() - entry.at < this.maxAgeMs) return entry.frequencies;
    const frequencies = this.read(table);
    this.cached.set(table, { at: Date.now(), frequencies });
    // A failed read is not kept: the next search asks again.
    frequencies.catch(() => this.cached.delete(table));
    return frequencies;
  }

  private async read(table: KeywordTable): Promise<TableLexemes> {
    const { rows } = await this.db.query<{ elem: string; freq: number }>(
      `SELECT e.elem, e.freq FROM pg_stats s,
         LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(elem, freq)
       WHERE s.schemaname = current_schema() AND s.tablename = $1 AND s.attname = 'tsv' AND e.elem IS NOT NULL`,
      [table],
    );
    const size = await this.db.query<{ rows: number }>(
      `SELECT greatest(c.reltuples, 0)::float8 AS rows FROM pg_class c
       WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace`,
      [table],
    );
    return { rows: Number(size.rows[0]?.rows ?? 0), frequencies: new Map(rows.map((r) => [r.elem, Number(r.freq)])) };
  }
}

async function rankedKeywordSearch(
  db: Queryable,
  params: PostgresKeywordSearchParams & {
    table: KeywordTable;
    where: (p: SqlParams) => string;
    /** Filters beyond the tenant's scope and the knowledge bases (tags, dates, title, sub-tenant, metadata). */
    filtered: boolean;
  },
): Promise<KeywordHit[]> {
  if (!params.words.length) return [];
  const lexemes = await params.frequencies.of(params.table);
  const words = withFrequencies(params.words, (l) => lexemes.frequencies.get(l) ?? 0);
  if (!params.ranking.lexemes.length) return [];
  const search = async (match: string) => {
    const statement = rankedKeywordSql({ table: params.table, match, ranking: params.ranking, where: params.where, limit: params.limit });
    const { rows } = await db.query<{ id: string; rank: number }>(statement.text, statement.values);
    return rows.map((r) => ({ chunkId: r.id, rank: Number(r.rank) }));
  };
  // A filter leaves a share of the rows: the rows holding two rare words rarely fill the limit
  // among them, and trying cost a second statement (at 100k chunks with a 10% filter, p50 7 → 13 ms).
  for (const match of matchQueries(words, lexemes.rows, params.matchRowBudget, !params.filtered)) {
    const hits = await search(match.tsquery);
    if (match.narrowing ? hits.length >= params.limit : hits.length) return hits;
  }
  return [];
}
