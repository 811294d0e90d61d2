import { type Scope, scopeParams, scopeSql } from '../shared/scope.js';
import type { Queryable } from '../db/database.js';
import { BM25_PARAMETERS, type Bm25Parameters, Bm25Query, type KeywordStatistics, type WordForms, lexemesOf } from './bm25.js';
import { ALL_KEYWORD_ANALYSES, isOwnAnalysis, keywordAnalysis, ownAnalysisLexeme, postgresConfigs, withSlashParts } from './text-search-config.js';
import { foldAccents, withFoldedWords } from './accent-folding.js';
import { queryLexemesSql, textsLexemesInSql, textsLexemesSql } from './search-sql.js';

/**
 * The query's words, each as its forms: its lexemes under each analysis (its forms in each
 * language: PostgreSQL's configurations, see `queryLexemesSql`, and Lore's own), each with the
 * analyses that make it; a slash-joined word also as its words (withSlashParts, as chunks are
 * indexed). Lexemes holding a backslash are left out (a tsquery would read it as an escape); a
 * word left with none is dropped.
 */
export async function queryLexemes(db: Queryable, query: string, analyses: readonly string[] = ALL_KEYWORD_ANALYSES): Promise<WordForms[]> {
  const configs = postgresConfigs(analyses);
  const { text, added } = withFoldedWords(withSlashParts(query));
  const { rows } = await db.query<Record<string, string[]> & { w: string }>(queryLexemesSql(configs), [text]);
  return wordsOfRows(rows, configs, analyses, added);
}

/** As `queryLexemes`, for each of several texts, in one statement: each text's words, in the texts' order. */
export async function textsLexemes(db: Queryable, texts: readonly string[], analyses: readonly string[] = ALL_KEYWORD_ANALYSES): Promise<WordForms[][]> {
  if (!texts.length) return [];
  const configs = postgresConfigs(analyses);
  const prepared = texts.map((text) => withFoldedWords(withSlashParts(text)));
  const { rows } = await db.query<Record<string, string[]> & { w: string; t: string }>(textsLexemesSql(configs), [prepared.map((p) => p.text)]);
  return prepared.map((p, i) => wordsOfRows(rows.filter((row) => Number(row.t) === i + 1), configs, analyses, p.added));
}

/**
 * The lexemes each text's words make under one analysis of its own (the text's `analysis`), in one
 * statement: per text, its lexemes (a stop word makes none). No folded spellings or slash parts:
 * for dictionary words, which are plain words.
 */
export async function textsLexemesIn(db: Queryable, texts: ReadonlyArray<{ text: string; analysis: string }>): Promise<string[][]> {
  if (!texts.length) return [];
  const { rows } = await db.query<{ t: string; w: string; c: string[] }>(textsLexemesInSql(), [
    texts.map((x) => x.text),
    texts.map((x) => (isOwnAnalysis(x.analysis) ? 'simple' : x.analysis)),
  ]);
  const out: string[][] = texts.map(() => []);
  for (const row of rows) {
    const i = Number(row.t) - 1;
    const { analysis } = texts[i]!;
    const lexemes = isOwnAnalysis(analysis) ? [ownAnalysisLexeme(analysis, row.w)].filter((l): l is string => l !== null) : row.c;
    for (const lexeme of lexemes) if (!lexeme.includes('\\') && !out[i]!.includes(lexeme)) out[i]!.push(lexeme);
  }
  return out;
}

/**
 * The query's words from the normalising statement's rows, each as its forms under every analysis.
 * A word and its accent-folded spelling ("información", "informacion") are one word with the forms
 * of both: chunks index the folded spelling's lexemes too (keywordTsvectorSql), so a query typed
 * with or without accents finds either spelling, and BM25F takes the word's best form. A folded
 * spelling the query did not hold (`added`) counts under an analysis only where the word as typed
 * is not a stop word, as chunks index it.
 */
function wordsOfRows(
  rows: Array<Record<string, string[]> & { w: string }>,
  configs: readonly string[],
  analyses: readonly string[],
  added: ReadonlySet<string>,
): WordForms[] {
  const byFolded = new Map<string, Array<Record<string, string[]> & { w: string }>>();
  for (const row of rows) {
    const key = foldAccents(row.w);
    const spellings = byFolded.get(key);
    if (spellings) spellings.push(row);
    else byFolded.set(key, [row]);
  }
  const lexemesOfRow = (row: Record<string, string[]> & { w: string }, analysis: string): string[] => {
    if (!isOwnAnalysis(analysis)) return row[`c${configs.indexOf(analysis)}`] ?? [];
    const own = ownAnalysisLexeme(analysis, row.w);
    return own ? [own] : [];
  };
  return [...byFolded.values()]
    .map((spellings) => {
      const forms = new Map<string, string[]>();
      const add = (lexeme: string, analysis: string) => {
        if (lexeme.includes('\\')) return;
        const made = forms.get(lexeme);
        if (!made) forms.set(lexeme, [analysis]);
        else if (!made.includes(analysis)) made.push(analysis);
      };
      const typed = spellings.filter((row) => !added.has(row.w));
      for (const analysis of analyses) {
        const asTyped = typed.map((row) => lexemesOfRow(row, analysis));
        for (const lexemes of asTyped) for (const lexeme of lexemes) add(lexeme, analysis);
        if (!asTyped.some((lexemes) => lexemes.length)) continue;
        for (const row of spellings) if (added.has(row.w)) for (const lexeme of lexemesOfRow(row, analysis)) add(lexeme, analysis);
      }
      return [...forms].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([lexeme, made]) => ({ lexeme, analyses: made }));
    })
    .filter((forms) => forms.length);
}

/**
 * The keyword statistics of the collections searched (knowledge bases or corpora, by id) for these
 * lexemes: chunks (in all and per analysis of their language), their lengths summed, and how many
 * chunks hold each lexeme, summed over the collections. Triggers on the chunk tables keep them
 * exact with every write (migrations 0017 and 0018).
 */
export async function keywordStatistics(db: Queryable, collectionIds: readonly string[], lexemes: readonly string[]): Promise<KeywordStatistics> {
  const { rows } = await db.query<{ kind: 'total' | 'language' | 'lexeme'; name: string; chunks: string; lexemes: string | null }>(
    `SELECT 'total' AS kind, '' AS name, coalesce(sum(chunks), 0)::text AS chunks, coalesce(sum(lexemes), 0)::text AS lexemes
     FROM keyword_collections WHERE collection_id = ANY($1::uuid[])
     UNION ALL
     SELECT 'language', language, sum(chunks)::text, NULL FROM keyword_languages
     WHERE collection_id = ANY($1::uuid[]) GROUP BY language
     UNION ALL
     SELECT 'lexeme', lexeme, sum(chunks)::text, NULL FROM keyword_terms
     WHERE collection_id = ANY($1::uuid[]) AND lexeme = ANY($2::text[]) GROUP BY lexeme`,
    [collectionIds, [...new Set(lexemes)]],
  );
  const totals = rows.find((r) => r.kind === 'total');
  const chunksByAnalysis = new Map<string, number>();
  for (const r of rows) {
    if (r.kind !== 'language') continue;
    const analysis = keywordAnalysis(r.name || null);
    chunksByAnalysis.set(analysis, (chunksByAnalysis.get(analysis) ?? 0) + Number(r.chunks));
  }
  return {
    chunks: Number(totals?.chunks ?? 0),
    chunksByAnalysis,
    lexemes: Number(totals?.lexemes ?? 0),
    holding: new Map(rows.filter((r) => r.kind === 'lexeme').map((r) => [r.name, Number(r.chunks)])),
  };
}

/** The ranking of the query's words over these collections (their statistics read as keywordStatistics reads them). */
export async function keywordRanking(
  db: Queryable,
  collectionIds: readonly string[],
  words: ReadonlyArray<WordForms>,
  parameters: Bm25Parameters = BM25_PARAMETERS,
  weights?: readonly number[],
): Promise<Bm25Query> {
  return new Bm25Query(words, await keywordStatistics(db, collectionIds, lexemesOf(words).flat()), parameters, weights);
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
export async function chunkDetails(db: Queryable, scope: Scope, ids: string[]): Promise<Map<string, ChunkDetail>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<ChunkDetail>(
    `SELECT c.id, c.content, c.document_id, c.knowledge_base_id, c.doc_title, c.chunk_index, c.doc_tags, c.language
     FROM chunks c WHERE c.id = ANY($1::uuid[]) AND ${scopeSql('c', 2)}`,
    [ids, ...scopeParams(scope)],
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

/** A chunk's language and tsvector (as text), for pseudo-relevance feedback. */
export interface ChunkLexemes {
  language: string | null;
  tsv: string;
}

/**
 * The language and tsvector of tenant chunks (re-checked against the tenant) and of corpus chunks
 * (against the corpora the query may search), by id.
 */
export async function chunkLexemes(
  db: Queryable,
  scope: Scope,
  ids: readonly string[],
  corpusIds: readonly string[],
  corpusChunkIds: readonly string[],
): Promise<Map<string, ChunkLexemes>> {
  if (!ids.length && !corpusChunkIds.length) return new Map();
  const { rows } = await db.query<ChunkLexemes & { id: string }>(
    `SELECT c.id, c.language, c.tsv::text AS tsv FROM chunks c WHERE c.id = ANY($1::uuid[]) AND ${scopeSql('c', 4)}
     UNION ALL
     SELECT pc.id, pc.language, pc.tsv::text FROM platform_chunks pc WHERE pc.id = ANY($2::uuid[]) AND pc.corpus_id = ANY($3::uuid[])`,
    [ids, corpusChunkIds, corpusIds, ...scopeParams(scope)],
  );
  return new Map(rows.map((r) => [r.id, { language: r.language, tsv: r.tsv }]));
}
