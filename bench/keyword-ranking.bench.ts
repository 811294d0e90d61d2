/**
 * The in-memory keyword ranking alone (KeywordPostings, what `KEYWORD_INDEX=flat` runs on the main
 * thread for every query): walking every posting of the query's lexemes against leaving the common
 * words unwalked once they cannot change the top (`rank`), at the row counts of issue 24.
 *
 * Rows: distinct chunks of the LibreOffice help in six languages (bench/help-chunks.ts), analysed
 * by PGlite as ingestion analyses them (the title with weight A, then the text, in the chunk's
 * language's configuration); `--distinct` of them, repeated (with new row numbers) until there are
 * `--rows` rows, so a word is as common at 1,000,000 rows as at 100,000, with ten times the
 * postings. Queries: the help's own index entries (`--queries` per language), normalised as a
 * query is (every configuration), ranked with the statistics of those rows, the product's limit
 * (50) unfiltered and with 10 %, 1 % and 0.1 % of rows accepted, a document's 100 consecutive rows
 * at a time (as a tag filter passes a document's chunks); where the segment would walk the
 * postings only within the passing rows instead (`prefersRuns`: a selective filter), so does the
 * bench. Both rankings are checked to return the same rows with the same scores; latencies are
 * medians over `--rounds` rounds, the two alternating.
 *
 * Usage: npx tsx bench/keyword-ranking.bench.ts [--rows 100000,1000000] [--distinct 50000]
 *   [--queries 50] [--rounds 3]
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { KeywordPostings, runsOf } from '../core/adapters/flat-index/keyword-postings.js';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import { tsvectorOccurrences } from '../core/db/tsvector.js';
import { Bm25Query, type Occurrences } from '../core/search/bm25.js';
import { queryLexemes } from '../core/search/search.repository.js';
import { keywordAnalysis, textSearchConfig } from '../core/search/text-search-config.js';
import { HELP_LANGUAGES, helpChunks, loadHelpCollections } from './help-chunks.js';
import { loadHelpIndex, queryOf } from './libreoffice-help.js';
import { ROOT, median, percentile } from './support.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000,1000000' },
    distinct: { type: 'string', default: '50000' },
    queries: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
  },
});
const sizes = values.rows.split(',').map(Number);
const distinct = Number(values.distinct);
const rounds = Number(values.rounds);
const LIMIT = 50;

const db = await openPgliteDatabase('memory://');
const started = performance.now();
const analysed: Array<{ terms: Map<string, Occurrences>; language: string }> = [];
const batch: Array<{ title: string; content: string; language: string }> = [];
const analyse = async () => {
  const { rows } = await db.query<{ tsv: string }>(
    `SELECT (setweight(to_tsvector(c.cfg::regconfig, c.title), 'A') || to_tsvector(c.cfg::regconfig, c.content))::text AS tsv
     FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS c(title, content, cfg, n) ORDER BY n`,
    [batch.map((c) => c.title), batch.map((c) => c.content), batch.map((c) => textSearchConfig(c.language))],
  );
  rows.forEach((r, i) => analysed.push({ terms: tsvectorOccurrences(r.tsv), language: batch[i]!.language }));
  batch.length = 0;
};
for (const chunk of helpChunks(await loadHelpCollections())) {
  batch.push(chunk);
  if (batch.length === 500) await analyse();
  if (analysed.length + batch.length >= distinct) break;
}
if (batch.length) await analyse();
console.log(`${analysed.length} distinct chunks analysed in ${((performance.now() - started) / 1000).toFixed(0)} s`);

const queries: string[] = [];
for (const language of HELP_LANGUAGES) {
  const entries = await loadHelpIndex(path.join(ROOT, '.bench', 'libreoffice'), language);
  const terms = [...new Set(entries.map((e) => queryOf(e.term, 'entries')))].filter((q) => q.split(' ').length > 1);
  // Evenly through the index, not its alphabetical start.
  for (let i = 0; i < Number(values.queries); i++) queries.push(terms[Math.floor((i * terms.length) / Number(values.queries))]!);
}
const queryWords = await Promise.all(queries.map((q) => queryLexemes(db, q)));
await db.close();

console.log(
  `\n| rows | filter | walking every posting p50 / p99 ms | common words unwalked, or only the passing rows walked, p50 / p99 ms | ratio of p50s | postings walked | queries walking only the passing rows |`,
);
console.log('|---|---|---|---|---|---|---|');
for (const size of sizes) {
  const postings = new KeywordPostings();
  const holding = new Map<string, number>();
  const chunksByAnalysis = new Map<string, number>();
  let lexemes = 0;
  for (let row = 0; row < size; row++) {
    const { terms, language } = analysed[row % analysed.length]!;
    postings.add(row, terms);
    for (const lexeme of terms.keys()) holding.set(lexeme, (holding.get(lexeme) ?? 0) + 1);
    const analysis = keywordAnalysis(language);
    chunksByAnalysis.set(analysis, (chunksByAnalysis.get(analysis) ?? 0) + 1);
    lexemes += terms.size;
  }
  const statistics = { chunks: size, chunksByAnalysis, lexemes, holding };
  const rankings = queryWords.filter((w) => w.length).map((words) => new Bm25Query(words, statistics));
  for (const [filter, accept, share] of [
    ['none', () => true, 1],
    ['10 % of rows', (row: number) => Math.floor(row / 100) % 10 === 3, 0.1],
    ['1 % of rows', (row: number) => Math.floor(row / 100) % 100 === 3, 0.01],
    ['0.1 % of rows', (row: number) => Math.floor(row / 100) % 1000 === 3, 0.001],
  ] as const) {
    // The rows a filter passes, as the segment lists them for a selective filter.
    const passing = share < 1 ? runsOf([Array.from({ length: size }, (_, row) => row).filter(accept)]) : null;
    const walking: number[][] = [];
    const pruned: number[][] = [];
    let walkedAll = 0;
    let walkedPruned = 0;
    let withinRuns = 0;
    for (let round = 0; round < rounds; round++) {
      const w: number[] = [];
      const p: number[] = [];
      for (const query of rankings) {
        let t0 = performance.now();
        const expected = postings.rankByWalking(query, size, LIMIT, accept, String);
        w.push(performance.now() - t0);
        walkedAll += postings.entriesWalked;
        t0 = performance.now();
        // What the segment does: the postings walked within the passing rows when that is cheaper, else the pruned walk.
        const got =
          passing && postings.prefersRuns(query, passing.runs, passing.rows, size)
            ? (withinRuns++, postings.rankRuns(query, passing.runs, LIMIT, String))
            : postings.rank(query, size, LIMIT, accept, String);
        p.push(performance.now() - t0);
        walkedPruned += postings.entriesWalked;
        if (round === 0) assert.deepEqual(got, expected, 'both rankings return the same rows and scores');
      }
      walking.push(w);
      pruned.push(p);
    }
    const at = (runs: number[][], q: number) => median(runs.map((r) => percentile(r, q)));
    console.log(
      `| ${size.toLocaleString('en')} | ${filter} | ${at(walking, 50).toFixed(2)} / ${at(walking, 99).toFixed(2)} | ` +
        `${at(pruned, 50).toFixed(2)} / ${at(pruned, 99).toFixed(2)} | ${(at(walking, 50) / at(pruned, 50)).toFixed(1)}× | ` +
        `${((100 * walkedPruned) / walkedAll).toFixed(0)} % | ${((100 * withinRuns) / (rankings.length * rounds)).toFixed(0)} % |`,
    );
  }
}
console.log(`\n${queryWords.filter((w) => w.length).length} queries (help index entries of two words or more, ${values.queries} per language), limit ${LIMIT}, medians of ${rounds} rounds; Node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
