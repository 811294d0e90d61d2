/**
 * What accent folding costs a chunk's keyword index when it is written: the LibreOffice help's
 * pages of each language (bench/libreoffice-help.ts, Debian's packages, cached in `.bench/`), cut
 * into pieces of about 1,000 characters as chunks are, analysed in PGlite by the expression
 * ingestion writes (`keywordTsvectorSql`: title and text, then the lexemes only the folded
 * spellings make) against the title and text alone, in statements of 200 chunks as ingestion
 * sends them, alternating, `--runs` times. Prints per language the median microseconds per chunk
 * of each, of `foldedWords` in JavaScript, and how many lexemes folding adds.
 *
 * Usage: npx tsx bench/accent-folding.bench.ts [--languages de,fr,es,it,nl] [--chunks 2000] [--runs 5] [--cache .bench/libreoffice]
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import { foldedWords } from '../core/search/accent-folding.js';
import { keywordTsvectorSql } from '../core/search/search-sql.js';
import { textSearchConfig } from '../core/search/text-search-config.js';
import { loadHelpCollection } from './libreoffice-help.js';
import { ROOT, median } from './support.js';

const { values } = parseArgs({
  options: {
    languages: { type: 'string', default: 'de,fr,es,it,nl' },
    chunks: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '5' },
    cache: { type: 'string', default: '.bench/libreoffice' },
  },
});
const chunkCount = Number(values.chunks);
const runs = Number(values.runs);
const BATCH = 200;
const PIECE = 1000;

/** A page's text in pieces of about PIECE characters, cut at spaces. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (rest.length > PIECE) {
    const cut = rest.lastIndexOf(' ', PIECE);
    out.push(rest.slice(0, cut > 0 ? cut : PIECE));
    rest = rest.slice(cut > 0 ? cut + 1 : PIECE);
  }
  if (rest) out.push(rest);
  return out;
}

const db = await openPgliteDatabase('memory://');
const fmt = (n: number, digits = 0) => n.toFixed(digits);
console.log('language  chunks  with folded words  plain µs/chunk  folded µs/chunk  ratio  foldedWords µs/chunk  lexemes plain  added by folding');
for (const language of values.languages.split(',')) {
  const help = await loadHelpCollection(path.resolve(ROOT, values.cache), language);
  const chunks = help.pages.flatMap((p) => pieces(p.text).map((text) => ({ title: p.title, text }))).slice(0, chunkCount);
  const cfg = textSearchConfig(language);
  const foldStart = performance.now();
  const folded = chunks.map((c) => ({ text: foldedWords(c.text), title: foldedWords(c.title) }));
  const foldMicros = ((performance.now() - foldStart) * 1000) / chunks.length;
  const plainSql = `SELECT sum(length(setweight(to_tsvector($1::regconfig, t.title), 'A') || to_tsvector($1::regconfig, t.text)))::int AS lexemes
    FROM unnest($2::text[], $3::text[]) AS t(title, text)`;
  const foldedSql = `SELECT sum(length(${keywordTsvectorSql({
    cfg: '$1',
    title: 't.title',
    text: 't.text',
    foldedTitle: { words: 't.title_words', folded: 't.title_folded' },
    foldedText: { words: 't.text_words', folded: 't.text_folded' },
  })}))::int AS lexemes
    FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS t(title, text, title_words, title_folded, text_words, text_folded)`;
  const timings = { plain: [] as number[], folded: [] as number[] };
  const lexemes = { plain: 0, folded: 0 };
  for (let run = 0; run < runs; run++) {
    for (const kind of run % 2 ? (['folded', 'plain'] as const) : (['plain', 'folded'] as const)) {
      let total = 0;
      const start = performance.now();
      for (let i = 0; i < chunks.length; i += BATCH) {
        const batch = chunks.slice(i, i + BATCH);
        const fb = folded.slice(i, i + BATCH);
        const params =
          kind === 'plain'
            ? [cfg, batch.map((c) => c.title), batch.map((c) => c.text)]
            : [
                cfg,
                batch.map((c) => c.title),
                batch.map((c) => c.text),
                fb.map((f) => f.title.words.join(' ')),
                fb.map((f) => f.title.folded.join(' ')),
                fb.map((f) => f.text.words.join(' ')),
                fb.map((f) => f.text.folded.join(' ')),
              ];
        const { rows } = await db.query<{ lexemes: number }>(kind === 'plain' ? plainSql : foldedSql, params);
        total += rows[0]!.lexemes;
      }
      timings[kind].push(((performance.now() - start) * 1000) / chunks.length);
      lexemes[kind] = total;
    }
  }
  const withFolded = folded.filter((f) => f.text.words.length || f.title.words.length).length;
  const plain = median(timings.plain);
  const withFolding = median(timings.folded);
  console.log(
    `${language.padEnd(8)}  ${String(chunks.length).padStart(6)}  ${fmt((100 * withFolded) / chunks.length).padStart(16)} %  ${fmt(plain).padStart(14)}  ${fmt(withFolding).padStart(15)}  ${fmt(withFolding / plain, 2).padStart(5)}  ${fmt(foldMicros, 1).padStart(20)}  ${fmt(lexemes.plain / chunks.length, 1).padStart(13)}  ${fmt((lexemes.folded - lexemes.plain) / chunks.length, 1).padStart(16)}`,
  );
}
await db.close();
