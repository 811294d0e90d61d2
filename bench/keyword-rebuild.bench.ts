/**
 * What `npm run cli -- keyword-index rebuild` costs: the LibreOffice help's pages of each language
 * (bench/libreoffice-help.ts, Debian's packages, cached in `.bench/`) ingested through Lore's own
 * code path (PGlite in memory), then every chunk's keyword index set back to an older analysis
 * (title and text only, as migration 0017 wrote them) and rebuilt, `--runs` times; then a run with
 * nothing to rewrite. Prints per language the chunks and the median milliseconds per chunk of a
 * rebuild that rewrites every chunk and of one that rewrites none.
 *
 * Usage: npx tsx bench/keyword-rebuild.bench.ts [--languages fr,de] [--pages 600] [--runs 3] [--cache .bench/libreoffice]
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { rebuildKeywordIndex } from '../core/search/keyword-rebuild.js';
import { KEYWORD_ANALYSIS } from '../core/search/text-search-config.js';
import { loadHelpCollection } from './libreoffice-help.js';
import { ROOT, median, startBenchLore } from './support.js';

const { values } = parseArgs({
  options: {
    languages: { type: 'string', default: 'fr,de' },
    pages: { type: 'string', default: '600' },
    runs: { type: 'string', default: '3' },
    cache: { type: 'string', default: '.bench/libreoffice' },
  },
});
const runs = Number(values.runs);

console.log('language  chunks  rewriting every chunk ms/chunk  rewriting none ms/chunk');
for (const language of values.languages.split(',')) {
  const help = await loadHelpCollection(path.resolve(ROOT, values.cache), language);
  const lore = await startBenchLore({}, `rebuild-${language}`, pino({ level: 'silent' }));
  try {
    const { db, runtime, services, scope } = lore;
    const kb = await services.knowledgeBases.create(scope, { name: `help (${language})`, dimensions: 1024 });
    for (const page of help.pages.slice(0, Number(values.pages))) {
      await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: page.title, content: page.text });
    }
    await runtime.engine.drain();
    const cases = Object.entries(KEYWORD_ANALYSIS).map(([code, cfg]) => `WHEN '${code}' THEN '${cfg === 'bulgarian' ? 'simple' : cfg}'`);
    const older = `(CASE language ${cases.join(' ')} ELSE 'simple' END)::regconfig`;
    const timings = { all: [] as number[], none: [] as number[] };
    let chunks = 0;
    for (let run = 0; run < runs; run++) {
      await db.query(`UPDATE chunks SET tsv = setweight(to_tsvector(${older}, doc_title), 'A') || to_tsvector(${older}, content)`);
      for (const kind of ['all', 'none'] as const) {
        const start = performance.now();
        const report = await rebuildKeywordIndex(db, services.adapters.decompounder);
        timings[kind].push((performance.now() - start) / report.chunks);
        chunks = report.chunks;
        if (kind === 'none' && report.rewritten) throw new Error(`a second run rewrote ${report.rewritten} chunks`);
      }
    }
    console.log(`${language.padEnd(8)}  ${String(chunks).padStart(6)}  ${median(timings.all).toFixed(2).padStart(31)}  ${median(timings.none).toFixed(2).padStart(23)}`);
  } finally {
    await lore.close();
  }
}
