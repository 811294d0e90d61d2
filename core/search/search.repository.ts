import type { Queryable } from '../db/database.js';
import type { KeywordHit, KeywordSearchParams as SearchParams } from '../ports/keyword-index.js';
import { SqlParams } from '../shared/sql-params.js';
import { type ChunkFilter, type CorpusChunkFilter, chunkFilterSql, documentMatcher, metadataMatcher, corpusChunkFilterSql } from './chunk-filter.js';

export interface KeywordSearchParams extends SearchParams {
  frequencies: LexemeFrequencies;
  /** MATCH_ROW_BUDGET unless set. */
  matchRowBudget?: number | undefined;
}

/**
 * Full-text search over chunks. Each chunk's tsvector was built with its own language's
 * configuration, so the query is normalised with every configuration in `configs` and the
 * resulting lexemes are OR-ed: a query word matches in whichever language stems it the same way.
 * Rows are ranked by ts_rank, which rewards each distinct query word a chunk holds (ts_rank_cd, cover
 * density, counts the occurrences of any one word of an OR query, so a frequent word outweighed
 * matching several: on the LibreOffice help it scored nDCG@10 0.53 against ts_rank's 0.69, at three
 * times the cost per row). Which rows are ranked at all is narrowed by `matchQueries`.
 */
export async function keywordSearch(db: Queryable, params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
  return rankedKeywordSearch(db, {
    ...params,
    table: 'chunks',
    where: (p) => chunkFilterSql(params.filter, p),
    filtered: documentMatcher(params.filter) !== null,
  });
}

/** As `keywordSearch`, over the chunks of platform corpora (the same ranking, so the two compare). */
export async function corpusKeywordSearch(db: Queryable, params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]> {
  if (!params.filter.corpusIds.length) return [];
  return rankedKeywordSearch(db, {
    ...params,
    table: 'platform_chunks',
    where: (p) => corpusChunkFilterSql(params.filter, p),
    filtered: metadataMatcher(params.filter) !== null,
  });
}

/**
 * Words in more than this share of a table's chunks (by the planner's statistics) still count in
 * the ranking but do not select rows: a query word found in most chunks would otherwise make the
 * search rank most of a knowledge base (~50k rows at 100k chunks), and ts_rank gives it no less
 * weight than a rare word anyway.
 */
export const MAX_MATCH_FREQUENCY = 0.05;

/**
 * How many rows the selecting words may match together, by the statistics: rare words select rows
 * rarest first until their estimated rows pass this (the rarest always selects). Ranking a row
 * costs ~4–5 µs in PGlite (fetching and ranking its tsvector), and at 100k chunks the words under
 * 5 % matched up to ~5,000 rows each: 20–40 ms per search. A word left out still ranks.
 */
export const MATCH_ROW_BUDGET = 1_000;

export interface QueryWord {
  /** The word's lexemes under every configuration searched (its forms in each language). */
  lexemes: string[];
  /** Share of the table's chunks holding one of them; 0 when too rare for the statistics to list. */
  frequency: number;
}

/** A table's most common lexemes with the share of rows holding each, and its row count. */
export interface TableLexemes {
  rows: number;
  frequencies: Map<string, number>;
}

/** A tsquery OR-ing lexemes (quoted, so no lexeme is read as an operator). */
function anyOf(lexemes: readonly string[]): string {
  return lexemes.map((l) => `'${l.replace(/'/g, "''")}'`).join(' | ');
}

type KeywordTable = 'chunks' | 'platform_chunks';

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

/**
 * The query's words, each as its lexemes under every configuration (its forms in each language).
 * The configurations are written into the statement, each word's tsvectors concatenated (which
 * merges equal lexemes): half the cost of joining the words with an array of configurations and
 * grouping (~0.6 against ~1.1 ms a query). Lexemes holding a backslash are left out (a tsquery
 * would read it as an escape).
 */
export async function queryLexemes(db: Queryable, query: string, configs: readonly string[]): Promise<string[][]> {
  if (!configs.length) return [];
  const normalised = configs.map((config) => {
    if (!/^[a-z_]+$/.test(config)) throw new Error(`invalid text-search configuration ${config}`);
    return `to_tsvector('${config}', w)`;
  });
  const { rows } = await db.query<{ lexemes: string[] }>(
    `SELECT tsvector_to_array(${normalised.join(' || ')}) AS lexemes
     FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS w`,
    [query],
  );
  return rows.map((r) => r.lexemes.filter((l) => !l.includes('\\'))).filter((lexemes) => lexemes.length);
}

/** The query's words with how common each is, from the share of rows holding each of its lexemes. */
export function withFrequencies(words: ReadonlyArray<readonly string[]>, frequency: (lexeme: string) => number): QueryWord[] {
  return words.map((lexemes) => ({
    lexemes: [...lexemes],
    frequency: Math.min(1, lexemes.reduce((sum, l) => sum + frequency(l), 0)),
  }));
}

/**
 * Rows a keyword search ranks: those holding, for some group, every word of it (a word: any of its
 * lexemes).
 */
export interface WordSelection {
  groups: ReadonlyArray<readonly QueryWord[]>;
  /** Used only when it selects at least the search's limit of rows (a narrowing); else the next is tried. */
  narrowing: boolean;
}

/**
 * Which rows a keyword search ranks, as the selections to try in turn until one finds rows.
 * Ranking always uses every word. First: the rare words — those too rare for the statistics (free:
 * they match few rows, often none, like a stop word kept by the 'simple' configuration), and those
 * under MAX_MATCH_FREQUENCY rarest first within `rowBudget` estimated rows of a table of
 * `tableRows` (the rarest always); then the two rarest common words together; then either of the
 * two rarest words. A search never ranks the rows of every word: a word in most chunks orders the
 * results but does not select them (ts_rank has no notion of a word's rarity; this is where it
 * enters), and in the database a query of common words ranked ~50,000 rows at 100k chunks (0.5 s).
 *
 * When even the rare words pass the budget (in the database, at 100k chunks, the rarest word of a
 * query can be in ~4,000), the rows holding two of the three rarest words come first, used when
 * they fill the search's limit: a chunk with two of a query's rarest words is the better match in
 * all but odd cases, and such rows are usually a few hundred. Not for a filtered search (`narrow`
 * false): among the share of rows a filter leaves, the pairs rarely fill the limit. The in-memory
 * keyword index, whose cost per row is negligible, has no budget (Infinity).
 */
export function wordSelections(words: readonly QueryWord[], tableRows = 0, rowBudget = MATCH_ROW_BUDGET, narrow = true): WordSelection[] {
  const byFrequency = [...words].sort((a, b) => a.frequency - b.frequency);
  const unknown = byFrequency.filter((w) => w.frequency === 0);
  const known = byFrequency.filter((w) => w.frequency > 0);
  const rare = known.filter((w) => w.frequency <= MAX_MATCH_FREQUENCY);
  const common = known.filter((w) => w.frequency > MAX_MATCH_FREQUENCY);
  let rows = 0;
  const selectingRare = rare.filter((w, i) => {
    rows += w.frequency * tableRows;
    return i === 0 || rows <= rowBudget;
  });
  const selecting = [...unknown, ...selectingRare];
  const selectedRows = selectingRare.reduce((sum, w) => sum + w.frequency * tableRows, 0);
  const anyOne = (list: readonly QueryWord[]) => list.map((w) => [w]);
  const out: WordSelection[] = [];
  if (narrow && selectedRows > rowBudget && byFrequency.length >= 2) {
    const [a, b, c] = byFrequency;
    out.push({ groups: c ? [[a!, b!], [a!, c], [b!, c]] : [[a!, b!]], narrowing: true });
  }
  if (selecting.length) out.push({ groups: anyOne(selecting), narrowing: false });
  if (common.length >= 2) out.push({ groups: [common.slice(0, 2)], narrowing: false });
  out.push({ groups: anyOne((known.length ? known : byFrequency).slice(0, 2)), narrowing: false });
  return out;
}

/** A tsquery selecting the rows a keyword search ranks. */
export interface MatchQuery {
  tsquery: string;
  /** Used only when it selects at least the search's limit of rows (a narrowing); else the next is tried. */
  narrowing: boolean;
}

/** `wordSelections` as tsqueries (the same selection twice is tried once). */
export function matchQueries(words: readonly QueryWord[], tableRows = 0, rowBudget = MATCH_ROW_BUDGET, narrow = true): MatchQuery[] {
  const all = (group: readonly QueryWord[]) => group.map((w) => `(${anyOf(w.lexemes)})`).join(' & ');
  const candidates = wordSelections(words, tableRows, rowBudget, narrow).map(({ groups, narrowing }) => ({
    tsquery: narrowing
      ? groups.map((group) => `(${all(group)})`).join(' | ')
      : groups.every((group) => group.length === 1)
        ? anyOf(groups.flatMap((group) => group[0]!.lexemes))
        : groups.map(all).join(' | '),
    narrowing,
  }));
  return candidates.filter((c, i) => candidates.findIndex((o) => o.tsquery === c.tsquery) === i);
}

async function rankedKeywordSearch(
  db: Queryable,
  params: KeywordSearchParams & {
    table: KeywordTable;
    where: (p: SqlParams) => string;
    /** Filters beyond the tenant's scope and the knowledge bases (tags, dates, title, sub-tenant, metadata). */
    filtered: boolean;
  },
): Promise<KeywordHit[]> {
  if (!params.words.length) return [];
  const lexemes = await params.frequencies.of(params.table);
  const words = withFrequencies(params.words, (l) => lexemes.frequencies.get(l) ?? 0);
  const rank = anyOf(words.flatMap((w) => w.lexemes));
  const search = async (match: string) => {
    const p = new SqlParams();
    const matchQ = p.add(match);
    const rankQ = p.add(rank);
    const where = params.where(p);
    // The tsqueries are parameters, so the planner weighs the match's selectivity against the filter's.
    const { rows } = await db.query<{ id: string; rank: number }>(
      `SELECT c.id, ts_rank(c.tsv, ${rankQ}::tsquery) AS rank
       FROM ${params.table} c
       WHERE c.tsv @@ ${matchQ}::tsquery AND ${where}
       ORDER BY rank DESC, c.id
       LIMIT ${Math.trunc(params.limit)}`,
      p.values,
    );
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
export async function chunkDetails(db: Queryable, tenantId: string, ids: string[]): Promise<Map<string, ChunkDetail>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<ChunkDetail>(
    `SELECT id, content, document_id, knowledge_base_id, doc_title, chunk_index, doc_tags, language
     FROM chunks WHERE id = ANY($1::uuid[]) AND tenant_id = $2`,
    [ids, tenantId],
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
