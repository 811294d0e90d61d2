/**
 * The statements and selections of keyword search, shared by the search repository (normalising a
 * query) and the keyword indexes (the database's search and the in-memory one, which select the
 * rows to rank alike): pure builders, no database calls.
 */
import type { SqlParam } from '../db/database.js';
import { SqlParams } from '../shared/sql-params.js';
import { type Bm25Query, MAX_TEXT_OCCURRENCES } from './bm25.js';
import type { ChunkKeywords } from './chunk-keywords.js';

/**
 * Words in more than this share of a table's chunks (by the planner's statistics) still count in
 * the ranking but do not select rows: a query word found in most chunks would otherwise make the
 * search rank most of a knowledge base (~50k rows at 100k chunks), where BM25F gives it little
 * weight anyway.
 */
export const MAX_MATCH_FREQUENCY = 0.05;

/**
 * How many rows the selecting words may match together, by the statistics: rare words select rows
 * rarest first until their estimated rows pass this (the rarest always selects). Ranking a row by
 * BM25F in the database costs ~26 µs on a PostgreSQL server and ~43 µs in PGlite (ts_rank, before
 * BM25F: 5–8 µs, when the budget was 1,000), and at 100k chunks the words under 5 % matched up to
 * ~5,000 rows each. A word left out still ranks.
 */
export const MATCH_ROW_BUDGET = 300;

export interface QueryWord {
  /** The word's lexemes under every configuration searched (its forms in each language). */
  lexemes: string[];
  /** Share of the table's chunks holding one of them; 0 when too rare for the statistics to list. */
  frequency: number;
}

/** The tables keyword search runs over. */
export type KeywordTable = 'chunks' | 'platform_chunks';

/** A tsquery OR-ing lexemes (quoted, so no lexeme is read as an operator). */
export function anyOf(lexemes: readonly string[]): string {
  return lexemes.map((l) => `'${l.replace(/'/g, "''")}'`).join(' | ');
}

/**
 * The statement normalising a query ($1) into its words (`w`, as 'simple' normalises them), each
 * with its lexemes under every configuration in `configs` (its forms in each language), one column
 * per configuration in their order (`c0`…). The configurations are written into the statement: joining the words with an array of
 * configurations cost twice as much (~1.1 against ~0.6 ms a query).
 */
export function queryLexemesSql(configs: readonly string[]): string {
  return `SELECT ${['w', ...normalisedColumns(configs)].join(', ')} FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS w`;
}

/** As `queryLexemesSql`, for each of several texts ($1, an array) at once: each row also names its text (`t`, from 1). */
export function textsLexemesSql(configs: readonly string[]): string {
  return (
    `SELECT ${['t', 'w', ...normalisedColumns(configs)].join(', ')} ` +
    `FROM unnest($1::text[]) WITH ORDINALITY AS texts(text, t), unnest(tsvector_to_array(to_tsvector('simple', texts.text))) AS w ORDER BY t, w`
  );
}

/**
 * Each text's words (rows `t`, from 1, and `w`, 'simple'-normalised) with the lexemes of one
 * configuration of its own (`c`): the texts are $1, their configurations $2 (aligned). One
 * configuration per text costs a tenth of normalising it under every one.
 */
export function textsLexemesInSql(): string {
  return (
    `SELECT t, w, tsvector_to_array(to_tsvector(texts.cfg::regconfig, w)) AS c ` +
    `FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS texts(text, cfg, t), unnest(tsvector_to_array(to_tsvector('simple', texts.text))) AS w ORDER BY t, w`
  );
}

function normalisedColumns(configs: readonly string[]): string[] {
  return configs.map((config, i) => {
    if (!/^[a-z_]+$/.test(config)) throw new Error(`invalid text-search configuration ${config}`);
    return `tsvector_to_array(to_tsvector('${config}', w)) AS c${i}`;
  });
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
 * results but does not select them (BM25F weighs it little), and in the database a query of
 * common words ranked ~50,000 rows at 100k chunks (0.5 s).
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

/**
 * The statement ranking by BM25F (`ranking`) the rows of `table` that `match` selects and `where`
 * (over alias `c`) keeps: the `limit` best, ties by id. Each row's score is computed from its
 * tsvector as Bm25Query.weigh computes it, in the same float8 operations and order (per lexeme,
 * then the best lexeme per word, summed in word order), so the in-memory index ranks alike.
 */
export function rankedKeywordSql(params: {
  table: KeywordTable;
  match: string;
  ranking: Bm25Query;
  where: (p: SqlParams) => string;
  limit: number;
}): { text: string; values: SqlParam[] } {
  const p = new SqlParams();
  const r = params.ranking;
  const matchQ = p.add(params.match);
  const lexemes = p.add(r.lexemes.map((l) => l.lexeme));
  const words = p.add(r.lexemes.map((l) => l.word));
  const idfs = p.add(r.lexemes.map((l) => l.idf));
  const [k1, k1Plus1, titleWeight, lengthBase, lengthFactor] = [r.k1, r.k1Plus1, r.titleWeight, r.lengthBase, r.lengthFactor].map((v) => `${p.add(v)}::float8`);
  const where = params.where(p);
  // The tsquery is a parameter, so the planner weighs the match's selectivity against the filter's.
  // Each selected row's tsvector is cut down to the query's lexemes twice — their text positions
  // (weight D) and their title positions (weight A) — by setweight and ts_filter, C functions that
  // copy it once each: unnesting the whole tsvector per row (~100 lexemes) cost 3–4 times as much.
  // A title counts once; text occurrences up to 255, as Occurrences keeps them.
  return {
    text: `WITH selected AS MATERIALIZED (
         SELECT c.id, length(c.tsv) AS length,
                ts_filter(setweight(ts_filter(c.tsv, '{d}'), 'b', ${lexemes}::text[]), '{b}') AS in_text,
                ts_filter(setweight(ts_filter(c.tsv, '{a}'), 'b', ${lexemes}::text[]), '{b}') AS in_title
         FROM ${params.table} c
         WHERE c.tsv @@ ${matchQ}::tsquery AND ${where}
       ), occurrences AS (
         SELECT id, length, lexeme, max(title) AS title, sum(text) AS text FROM (
           SELECT s.id, s.length, u.lexeme, 0 AS title, cardinality(u.positions) AS text FROM selected s, unnest(s.in_text) u
           UNION ALL
           SELECT s.id, s.length, u.lexeme, 1, 0 FROM selected s, unnest(s.in_title) u
         ) o GROUP BY id, length, lexeme
       ), words AS (
         SELECT o.id, q.word, max(q.idf * w.t * ${k1Plus1} / (${k1} + w.t)) AS best
         FROM occurrences o
         JOIN unnest(${lexemes}::text[], ${words}::int[], ${idfs}::float8[]) AS q(lexeme, word, idf) ON q.lexeme = o.lexeme
         CROSS JOIN LATERAL (
           SELECT ${titleWeight} * o.title + least(o.text, ${MAX_TEXT_OCCURRENCES}) / (${lengthBase} + ${lengthFactor} * o.length) AS t
         ) w
         GROUP BY o.id, q.word
       )
       SELECT id, sum(best ORDER BY word) AS rank FROM words
       GROUP BY id
       ORDER BY rank DESC, id
       LIMIT ${Math.trunc(params.limit)}`,
    values: p.values,
  };
}

/** SQL expressions of a text's words that accent folding changes and of their folded spellings: space-joined, aligned (foldedWords). */
export interface FoldedWordsSql {
  words: string;
  folded: string;
}

/**
 * The SQL expression of a chunk's keyword index (tsvector) under configuration `cfg`: the title (if
 * any) with weight A, then the text; then the lexemes of their accent-folded words (foldedWords:
 * "informacion" for "información", which PostgreSQL's Spanish configuration stems to 'inform'), so
 * a query typed without accents finds the chunk too. A folded word adds nothing when its own
 * spelling is a stop word (the German "für" does not bring 'fur'), nor when the chunk already holds
 * its lexeme ('pagin' of both "página" and "pagina"): no count is doubled. Arguments are SQL
 * expressions; the folded words' positions follow the text's.
 */
export function keywordTsvectorSql(a: { cfg: string; title?: string; text: string; foldedTitle?: FoldedWordsSql; foldedText: FoldedWordsSql }): string {
  const cfg = `${a.cfg}::regconfig`;
  const vector = (title: string | undefined, text: string) =>
    title === undefined ? `to_tsvector(${cfg}, ${text})` : `setweight(to_tsvector(${cfg}, ${title}), 'A') || to_tsvector(${cfg}, ${text})`;
  // A word is a stop word when the configuration makes no lexeme of it.
  const kept = (f: FoldedWordsSql) =>
    `coalesce((SELECT string_agg(p.f, ' ' ORDER BY p.n) FROM unnest(string_to_array(${f.words}, ' '), string_to_array(${f.folded}, ' ')) ` +
    `WITH ORDINALITY AS p(o, f, n) WHERE to_tsvector(${cfg}, p.o) <> ''::tsvector), '')`;
  const folded = vector(a.foldedTitle && kept(a.foldedTitle), kept(a.foldedText));
  // OFFSET 0: pulled up, the subquery's vector would be computed for each use (the text analysed twice).
  return `(SELECT k.m || ts_delete(${folded}, tsvector_to_array(k.m)) FROM (SELECT ${vector(a.title, a.text)} AS m OFFSET 0) k)`;
}

/** A batch of chunks' keyword-index inputs as columns of an `unnest` row aliased `t` (keywordIndexColumns). */
export interface KeywordIndexColumns {
  /** The columns' names, comma-separated, for the row's alias: `AS t(…, ${names})`. */
  names: string;
  /** The columns' typed parameters from `$first` on, for `unnest(…, ${placeholders(first)})`. */
  placeholders(first: number): string;
  /** One parameter value per column, each aligned with the chunks. */
  values: string[][];
  /** The chunk's keyword index over the columns (keywordTsvectorSql). */
  tsvector: string;
}

/**
 * Ingestion, corpus ingestion and the keyword index's rebuild write a chunk's keyword index from
 * its ChunkKeywords through this one definition of the columns. `titled`: the chunks have a
 * document title (tenant chunks; corpus chunks have none).
 */
export function keywordIndexColumns(keywords: readonly ChunkKeywords[], titled: boolean): KeywordIndexColumns {
  const joined = (words: string[] | undefined) => words?.join(' ') ?? '';
  const columns: Array<[string, (k: ChunkKeywords) => string]> = [
    ['cfg', (k) => k.textSearchConfig],
    ['keyword_text', (k) => k.text],
    ['accented_text', (k) => joined(k.foldedText.words)],
    ['folded_text', (k) => joined(k.foldedText.folded)],
  ];
  if (titled) {
    columns.push(
      ['keyword_title', (k) => k.title ?? ''],
      ['accented_title', (k) => joined(k.foldedTitle?.words)],
      ['folded_title', (k) => joined(k.foldedTitle?.folded)],
    );
  }
  return {
    names: columns.map(([name]) => name).join(', '),
    placeholders: (first) => columns.map((_, i) => `$${first + i}::text[]`).join(', '),
    values: columns.map(([, value]) => keywords.map(value)),
    tsvector: keywordTsvectorSql({
      cfg: 't.cfg',
      text: 't.keyword_text',
      foldedText: { words: 't.accented_text', folded: 't.folded_text' },
      ...(titled ? { title: 't.keyword_title', foldedTitle: { words: 't.accented_title', folded: 't.folded_title' } } : {}),
    }),
  };
}
