/**
 * Translation with the engines this deployment configures (`TRANSLATION_ENGINES` and friends from
 * the environment; unset: Apertium when installed), on real third-party text: the LibreOffice help
 * of Debian's `libreoffice-help-*` packages, whose paragraphs carry the same `id="par_id…"` in
 * every language (see bench/libreoffice-help.ts).
 *
 * 1. Quality, per available pair (as `GET /v1/translation/languages` lists them) whose two
 *    languages have a help package (en, de, fr, es, it, nl; Debian has none for bg and ro): corpus
 *    chrF (chrF2, as sacreBLEU; bench/chrf.ts) of a seeded sample of aligned paragraphs, skipping
 *    short ones, ones identical in both languages and ones a translation left in English. "copy"
 *    is the chrF of the untranslated source against the reference: what translating adds.
 *    `--texts packages` takes Debian's package descriptions instead (bench/debian-packages.ts: a
 *    package's short and long description in two languages, both translated from the English one;
 *    the same six languages), a second text no route was chosen on alone.
 * 2. Latency, per pair, through `TranslationService` (what POST /v1/translate and
 *    /v1/translate/batch run: validation, the tenant's translation cache, the engine, metering),
 *    with paragraphs never sent before so every call reaches the engine: single paragraphs and
 *    batches of 100, one call at a time; p50 and p99 per round and their median over the rounds
 *    (batches: pooled over the rounds, as a round holds only a few). The single paragraphs are
 *    also looked up word by word in the pair's bilingual dictionary (`lookUpWords`, what query
 *    translation runs beside the translation).
 * 3. Cross-lingual retrieval: the pages of one language's help (default English; a seeded subset)
 *    ingested into a knowledge base (lexical embedder, PGlite in memory, as
 *    retrieval-quality.bench.ts), queried through `QueryService` (POST /v1/query) with the index
 *    terms of other languages' help — their bookmarks link to the same page ids — with the
 *    knowledge base's `translation_config` `{query_translation: never | auto, preferred_language:
 *    <documents' language>}`; nDCG@10 and recall@10 at page level. Terms identical to an English
 *    index term of the page (left untranslated) are left out. The documents' own language is run
 *    too, as the monolingual reference.
 *
 * Needs apt-get and dpkg the first time (packages go to `--cache`, git-ignored); Apertium from
 * Debian for the default engine.
 *
 * Usage: npx tsx bench/translation.bench.ts [--paragraphs 200] [--seed 1] [--min-chars 40]
 *          [--max-chars 1500] [--rounds 3] [--single-calls 20] [--batches 2] [--batch-size 100]
 *          [--pairs en-es,es-en,…] [--sections quality,latency,retrieval] [--texts help|packages]
 *          [--docs en] [--query-languages es,fr,it] [--pages 800] [--queries 150] [--max-relevant 20]
 *          [--cache .bench/libreoffice]
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { LanguagePair } from '../core/ports/translator.js';
import { pairKey } from '../core/ports/translator.js';
import { queryRequestSchema } from '../core/search/search.schema.js';
import { seededRandom } from '../core/shared/seeded-random.js';
import type { Language } from '../core/translation/translation.schema.js';
import { MAX_BATCH_TEXTS } from '../core/translation/translation.schema.js';
import { corpusChrf } from './chrf.js';
import { loadPackageTexts } from './debian-packages.js';
import { type RetrievalQuery, HELP_PACKAGES, loadHelpCollection, loadHelpIndex, loadHelpParagraphs, queryOf, sampleQueries } from './libreoffice-help.js';
import { ROOT, mean, median, pairedStandardError, percentile, rankingScore, startBenchLore } from './support.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    paragraphs: { type: 'string', default: '200' },
    seed: { type: 'string', default: '1' },
    'min-chars': { type: 'string', default: '40' },
    'max-chars': { type: 'string', default: '1500' },
    rounds: { type: 'string', default: '3' },
    'single-calls': { type: 'string', default: '20' },
    batches: { type: 'string', default: '2' },
    'batch-size': { type: 'string', default: String(MAX_BATCH_TEXTS) },
    pairs: { type: 'string', default: '' },
    sections: { type: 'string', default: 'quality,latency,retrieval' },
    docs: { type: 'string', default: 'en' },
    'query-languages': { type: 'string', default: 'es,fr,it' },
    pages: { type: 'string', default: '800' },
    queries: { type: 'string', default: '150' },
    'max-relevant': { type: 'string', default: '20' },
    cache: { type: 'string', default: '.bench/libreoffice' },
    texts: { type: 'string', default: 'help' },
  },
  allowPositionals: true,
});

const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);
const count = (name: string, s: string, min = 0): number => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, not '${s}'`);
  return n;
};
const paragraphCount = count('paragraphs', values.paragraphs);
const seed = count('seed', values.seed);
const minChars = count('min-chars', values['min-chars']);
const maxChars = count('max-chars', values['max-chars'], 1);
const rounds = count('rounds', values.rounds, 1);
const singleCalls = count('single-calls', values['single-calls']);
const batches = count('batches', values.batches);
const batchSize = count('batch-size', values['batch-size'], 1);
if (batchSize > MAX_BATCH_TEXTS) throw new Error(`--batch-size is at most ${MAX_BATCH_TEXTS} (the batch endpoint's limit)`);
const wantedPairs = new Set(list(values.pairs));
const SECTIONS = ['quality', 'latency', 'retrieval'] as const;
const sections = new Set(list(values.sections));
for (const s of sections) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`--sections: unknown '${s}'; use ${SECTIONS.join(', ')}`);
const docsLanguage = values.docs as Language;
const queryLanguages = list(values['query-languages']) as Language[];
for (const l of [docsLanguage, ...queryLanguages]) if (!HELP_PACKAGES[l]) throw new Error(`no LibreOffice help is known for '${l}'`);
const pageCount = count('pages', values.pages, 1);
const queryCount = count('queries', values.queries);
const maxRelevant = count('max-relevant', values['max-relevant'], 1);
const cacheDir = path.resolve(ROOT, values.cache);
if (values.texts !== 'help' && values.texts !== 'packages') throw new Error(`--texts: 'help' or 'packages', not '${values.texts}'`);
const packagesDir = path.resolve(ROOT, '.bench/debian-packages');

/** Languages whose help Debian packages (HELP_PACKAGES also names bg and ro, which it does not). */
const HELP_LANGUAGES: ReadonlySet<string> = new Set(['en', 'de', 'fr', 'es', 'it', 'nl']);
const TOP_K = 10;
const silent = pino({ level: 'silent' });
const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');

function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

function shuffled<T>(items: T[], seedValue: number): T[] {
  const out = [...items];
  const random = seededRandom(seedValue);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The environment's translation settings only: the bench decides the database and the embedder. */
function translationEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && /^(TRANSLATION_|APERTIUM_|LIBRETRANSLATE_|DEEPL_)/.test(e[0]),
    ),
  );
}

const started = performance.now();
const lore = await startBenchLore(translationEnv(), 'translation-bench', silent);
const translation = lore.services.translation;
const health = await translation.health();
const engineOf = new Map(health.models.map((m) => [pairKey(m), m]));
const available: LanguagePair[] = (await translation.languages()).filter((p) => !wantedPairs.size || wantedPairs.has(pairKey(p)));
console.log(
  `Engines: ${health.engines.join(', ') || 'none'} (translation ${health.status}, ${health.models_loaded} of ${health.models_total} pairs loaded); ` +
    `${available.length} pairs measured or skipped below${wantedPairs.size ? ' (filtered by --pairs)' : ''}.`,
);
const measured = available.filter((p) => HELP_LANGUAGES.has(p.source) && HELP_LANGUAGES.has(p.target));
const skipped = available.filter((p) => !measured.includes(p));
if (skipped.length) {
  console.log(
    `Skipped (no libreoffice-help package in Debian for ${[...new Set(skipped.flatMap((p) => [p.source, p.target]).filter((l) => !HELP_LANGUAGES.has(l)))].join(', ')}): ` +
      skipped.map(pairKey).join(', '),
  );
}
const route = (p: LanguagePair): string => {
  const m = engineOf.get(pairKey(p));
  return m?.engine ? `${m.engine}${m.pivot ? ` via ${m.pivot}` : ''}` : '-';
};

// ---------------------------------------------------------------------------------------------
// Paragraphs
// ---------------------------------------------------------------------------------------------

const paragraphsOf = new Map<string, Map<string, string>>();
let textsVersion = '';
async function paragraphs(language: string): Promise<Map<string, string>> {
  let map = paragraphsOf.get(language);
  if (!map) {
    const loaded = await (values.texts === 'packages' ? loadPackageTexts(packagesDir, language) : loadHelpParagraphs(cacheDir, language));
    textsVersion = loaded.version;
    map = loaded.paragraphs;
    paragraphsOf.set(language, map);
  }
  return map;
}

const words = (s: string): number => s.split(/\s+/).filter(Boolean).length;

/**
 * Aligned paragraphs of a pair worth translating: both sides `minChars`–`maxChars` long and at
 * least 4 words, different from each other, neither a copy of the English text (an untranslated
 * paragraph), one per distinct source text; in a seeded order.
 */
async function alignedParagraphs(pair: LanguagePair): Promise<Array<{ key: string; source: string; reference: string }>> {
  const [source, target, english] = await Promise.all([paragraphs(pair.source), paragraphs(pair.target), paragraphs('en')]);
  const usable = (language: string, text: string, key: string): boolean =>
    text.length >= minChars && text.length <= maxChars && words(text) >= 4 && (language === 'en' || english.get(key) !== text);
  const seen = new Set<string>();
  const out: Array<{ key: string; source: string; reference: string }> = [];
  for (const key of [...source.keys()].sort()) {
    const s = source.get(key)!;
    const t = target.get(key);
    if (t === undefined || s === t || seen.has(s) || !usable(pair.source, s, key) || !usable(pair.target, t, key)) continue;
    seen.add(s);
    out.push({ key, source: s, reference: t });
  }
  return shuffled(out, seed);
}

// ---------------------------------------------------------------------------------------------
// 1 + 2: quality and latency
// ---------------------------------------------------------------------------------------------

interface PairRun {
  pair: LanguagePair;
  eligible: number;
  sampled: number;
  chrf: number;
  copy: number;
  qualitySeconds: number;
  sourceChars: number;
  single: { p50: number; p99: number; calls: number; meanChars: number } | undefined;
  batch: { p50: number; p99: number; calls: number; meanChars: number } | undefined;
  /** The single calls' texts looked up in the pair's bilingual dictionary (query translation's look-up; cache misses). */
  lookUp: { p50: number; p99: number; calls: number; meanChars: number } | undefined;
}

/**
 * p50 and p99 of each round, and their medians over the rounds; with fewer than 10 calls a round
 * (the batches) the rounds are pooled instead, since a round's p99 would be its only call.
 */
const summarise = (perRound: number[][], texts: string[]) => {
  const pooled = perRound.flat();
  const perRoundFigures = perRound.every((r) => r.length >= 10);
  return {
    p50: perRoundFigures ? median(perRound.map((r) => percentile(r, 50))) : percentile(pooled, 50),
    p99: perRoundFigures ? median(perRound.map((r) => percentile(r, 99))) : percentile(pooled, 99),
    calls: pooled.length,
    meanChars: mean(texts.map((t) => t.length)),
  };
};

const pairRuns: PairRun[] = [];
if (sections.has('quality') || sections.has('latency')) {
  for (const pair of measured) {
    const aligned = await alignedParagraphs(pair);
    const sample = aligned.slice(0, paragraphCount);
    const run: PairRun = { pair, eligible: aligned.length, sampled: sample.length, chrf: NaN, copy: NaN, qualitySeconds: NaN, sourceChars: 0, single: undefined, batch: undefined, lookUp: undefined };
    // Warm-up (engine discovery, the first program start): not measured.
    await translation.translate(lore.ctx, { text: 'Warm-up.', source: pair.source, target: pair.target });

    if (sections.has('quality') && sample.length) {
      const t0 = performance.now();
      const hypotheses: string[] = [];
      for (let i = 0; i < sample.length; i += MAX_BATCH_TEXTS) {
        const part = sample.slice(i, i + MAX_BATCH_TEXTS);
        hypotheses.push(...(await translation.translateTexts(lore.scope, part.map((p) => p.source), pair)).texts);
      }
      run.qualitySeconds = (performance.now() - t0) / 1000;
      run.chrf = corpusChrf(hypotheses, sample.map((p) => p.reference));
      run.copy = corpusChrf(sample.map((p) => p.source), sample.map((p) => p.reference));
      run.sourceChars = sample.reduce((n, p) => n + p.source.length, 0);
    }

    if (sections.has('latency')) {
      // Source paragraphs not sampled for quality (those are cached now), each sent once.
      const pool = aligned.slice(sample.length).map((p) => p.source);
      const needed = rounds * (singleCalls + batches * batchSize);
      if (pool.length < needed) console.log(`  ${pairKey(pair)}: only ${pool.length} fresh paragraphs for ${needed} latency texts; texts repeat (cache hits)`);
      let next = 0;
      const take = (): string => pool[next++ % Math.max(1, pool.length)] ?? 'The house is big.';
      const singles: number[][] = [];
      const lookUps: number[][] = [];
      const batchTimes: number[][] = [];
      const singleTexts: string[] = [];
      const batchTexts: string[] = [];
      for (let r = 0; r < rounds; r++) {
        const times: number[] = [];
        for (let i = 0; i < singleCalls; i++) {
          const text = take();
          singleTexts.push(text);
          const t0 = performance.now();
          await translation.translate(lore.ctx, { text, source: pair.source, target: pair.target });
          times.push(performance.now() - t0);
        }
        singles.push(times);
        // The same texts looked up word by word (a cache of its own: every look-up reaches the dictionary).
        const lookUpTimes: number[] = [];
        for (const text of singleTexts.slice(-singleCalls)) {
          const t0 = performance.now();
          await translation.lookUpWords(lore.scope, [text], pair);
          lookUpTimes.push(performance.now() - t0);
        }
        lookUps.push(lookUpTimes);
        const btimes: number[] = [];
        for (let b = 0; b < batches; b++) {
          const texts = Array.from({ length: batchSize }, take);
          batchTexts.push(texts.join(''));
          const t0 = performance.now();
          await translation.translateBatch(lore.ctx, { texts, source: pair.source, target: pair.target });
          btimes.push(performance.now() - t0);
        }
        batchTimes.push(btimes);
      }
      if (singleCalls) run.single = summarise(singles, singleTexts);
      if (singleCalls) run.lookUp = summarise(lookUps, singleTexts);
      if (batches) run.batch = summarise(batchTimes, batchTexts);
    }
    pairRuns.push(run);
    console.log(
      `${pairKey(pair)} (${route(pair)}): ${run.sampled} of ${run.eligible} aligned paragraphs; chrF ${fmt(run.chrf)} (copy ${fmt(run.copy)})` +
        (run.single ? `; single p50 ${fmt(run.single.p50, 0)} ms p99 ${fmt(run.single.p99, 0)} ms` : '') +
        (run.lookUp ? `; look-up p50 ${fmt(run.lookUp.p50, 0)} ms p99 ${fmt(run.lookUp.p99, 0)} ms` : '') +
        (run.batch ? `; batch of ${batchSize} p50 ${fmt(run.batch.p50, 0)} ms p99 ${fmt(run.batch.p99, 0)} ms` : ''),
    );
  }
}

await lore.close();

// ---------------------------------------------------------------------------------------------
// 3: cross-lingual retrieval
// ---------------------------------------------------------------------------------------------

interface RetrievalRun {
  language: Language;
  eligible: number;
  untranslated: number;
  queries: number;
  detected: number;
  translatedPair: boolean;
  modes: Record<'never' | 'auto', { ndcg: number[]; recall: number[]; ms: number[]; translated: number; translationMs: number[] }>;
}

const retrievalRuns: RetrievalRun[] = [];
let ingestInfo = '';
if (sections.has('retrieval')) {
  const docs = await loadHelpCollection(cacheDir, docsLanguage);
  if (values.texts === 'help') textsVersion = docs.version;
  const pages = shuffled(docs.pages, seed).slice(0, pageCount);
  const target = await startBenchLore(translationEnv(), `translation-bench-${docsLanguage}`, silent);
  try {
    const { services, scope, ctx } = target;
    const kb = await services.knowledgeBases.create(scope, { name: `LibreOffice help (${docsLanguage})`, dimensions: 1024 });
    const pageOfDocument = new Map<string, string>();
    const t0 = performance.now();
    for (const page of pages) {
      const { documentId } = await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: page.title, content: page.text });
      pageOfDocument.set(documentId, page.id);
    }
    await target.runtime.engine.drain();
    const { rows: counted } = await target.db.query<{ ready: number; chunks: number }>(
      `SELECT count(*) FILTER (WHERE status = 'ready')::int AS ready, COALESCE(sum(chunk_count) FILTER (WHERE status = 'ready'), 0)::int AS chunks
       FROM documents WHERE knowledge_base_id = $1`,
      [kb.id],
    );
    ingestInfo = `${counted[0]?.ready ?? 0} of ${pages.length} ${docsLanguage} pages ready (${counted[0]?.chunks ?? 0} chunks) in ${fmt((performance.now() - t0) / 1000, 0)} s`;
    console.log(`\nCross-lingual retrieval: ${ingestInfo}.`);
    const ingested = new Set(pageOfDocument.values());
    const englishIndex = await loadHelpIndex(cacheDir, 'en');
    const englishTerms = new Set(englishIndex.map((e) => `${e.page}\t${queryOf(e.term, 'entries').toLocaleLowerCase('und')}`));

    for (const language of [docsLanguage, ...queryLanguages.filter((l) => l !== docsLanguage)]) {
      const index = language === 'en' ? englishIndex : await loadHelpIndex(cacheDir, language);
      // Terms left in English are not queries in `language`: drop them before sampling.
      const own =
        language === 'en'
          ? index
          : index.filter((e) => !englishTerms.has(`${e.page}\t${queryOf(e.term, 'entries').toLocaleLowerCase('und')}`));
      const { queries, eligible } = sampleQueries(own, ingested, { set: 'entries', count: queryCount, seed, maxRelevant });
      const untranslated = index.length - own.length;
      const run: RetrievalRun = {
        language,
        eligible,
        untranslated,
        queries: queries.length,
        detected: queries.filter((q) => services.translation.detect(q.query).language === language).length,
        translatedPair: await services.translation.serves({ source: language, target: docsLanguage }),
        modes: {
          never: { ndcg: [], recall: [], ms: [], translated: 0, translationMs: [] },
          auto: { ndcg: [], recall: [], ms: [], translated: 0, translationMs: [] },
        },
      };
      for (const mode of ['never', 'auto'] as const) {
        await services.knowledgeBases.update(scope, kb.id, { translation_config: { query_translation: mode, preferred_language: docsLanguage } });
        const m = run.modes[mode];
        for (const q of queries) {
          const request = queryRequestSchema.parse({ query: q.query, top_k: TOP_K, knowledge_base_ids: [kb.id], corpora: [], source_language: 'auto' });
          const t1 = performance.now();
          const answer = await services.queries.run({ ...ctx, requestId: randomUUID() }, request);
          m.ms.push(performance.now() - t1);
          if (answer.metadata) {
            m.translated += 1;
            m.translationMs.push(answer.metadata.translation_latency_ms);
          }
          const ranked: string[] = [];
          for (const item of answer.results) {
            const page = item.document_id ? pageOfDocument.get(item.document_id) : undefined;
            if (page && !ranked.includes(page)) ranked.push(page);
          }
          const { ndcg, recall } = score(ranked, q);
          m.ndcg.push(ndcg);
          m.recall.push(recall);
        }
      }
      retrievalRuns.push(run);
      console.log(
        `  ${language} queries → ${docsLanguage} pages: ${run.queries} of ${run.eligible} eligible terms (${untranslated} index entries left in English dropped); ` +
          `nDCG@10 never ${fmt(mean(run.modes.never.ndcg), 3)}, auto ${fmt(mean(run.modes.auto.ndcg), 3)}`,
      );
    }
  } finally {
    await target.close();
  }
}

/** Binary-relevance nDCG@10 and recall@10 of a page ranking (each page at its best rank). */
function score(ranked: string[], q: RetrievalQuery): { ndcg: number; recall: number } {
  return rankingScore(ranked, q.relevant, TOP_K);
}

// ---------------------------------------------------------------------------------------------
// Summary
// ---------------------------------------------------------------------------------------------

console.log(
  `\n== Summary (${values.texts === 'packages' ? 'package descriptions' : 'LibreOffice help'} ${textsVersion || '?'} from Debian; seed ${seed}; paragraphs ${minChars}-${maxChars} chars, ≥ 4 words; ` +
    `latency: ${rounds} rounds of ${singleCalls} single calls and ${batches} batch(es) of ${batchSize}, one at a time; ` +
    `singles: median of the per-round p50/p99, batches: pooled)`,
);
if (pairRuns.length) {
  printTable(
    'Translation quality (corpus chrF2, 0-100; copy = untranslated source vs reference) and latency (ms, TranslationService, cache misses)',
    ['pair', 'engine', 'paragraphs', 'chrF', 'copy', 'chars/s', 'single p50', 'single p99', 'look-up p50', 'look-up p99', `batch${batchSize} p50`, `batch${batchSize} p99`],
    pairRuns.map((r) => [
      pairKey(r.pair),
      route(r.pair),
      `${r.sampled}/${r.eligible}`,
      fmt(r.chrf),
      fmt(r.copy),
      fmt(r.sourceChars / r.qualitySeconds, 0),
      fmt(r.single?.p50 ?? NaN, 0),
      fmt(r.single?.p99 ?? NaN, 0),
      fmt(r.lookUp?.p50 ?? NaN, 0),
      fmt(r.lookUp?.p99 ?? NaN, 0),
      fmt(r.batch?.p50 ?? NaN, 0),
      fmt(r.batch?.p99 ?? NaN, 0),
    ]),
  );
  const direct = pairRuns.filter((r) => !engineOf.get(pairKey(r.pair))?.pivot);
  const pivoted = pairRuns.filter((r) => engineOf.get(pairKey(r.pair))?.pivot);
  console.log(
    `Mean chrF: direct pairs ${fmt(mean(direct.map((r) => r.chrf)))} (${direct.length}), pivoted ${fmt(mean(pivoted.map((r) => r.chrf)))} (${pivoted.length}); ` +
      `mean paragraph ${fmt(mean(pairRuns.map((r) => r.single?.meanChars ?? NaN)), 0)} chars.`,
  );
}
if (retrievalRuns.length) {
  printTable(
    `Cross-lingual retrieval: ${ingestInfo}; queries = index terms, source_language auto, QueryService (hybrid), top_k ${TOP_K} chunks → pages; ` +
      `query_translation never vs auto (preferred_language ${docsLanguage})`,
    ['queries', 'n', 'detected', 'pair served', 'nDCG never', 'nDCG auto', 'Δ nDCG', 'R@10 never', 'R@10 auto', 'translated', 'ms never', 'ms auto'],
    retrievalRuns.map((r) => {
      const { never, auto } = r.modes;
      return [
        `${r.language}→${docsLanguage}`,
        String(r.queries),
        `${fmt((100 * r.detected) / (r.queries || 1), 0)}%`,
        r.language === docsLanguage ? '-' : r.translatedPair ? 'yes' : 'no',
        fmt(mean(never.ndcg), 3),
        fmt(mean(auto.ndcg), 3),
        `${mean(auto.ndcg) - mean(never.ndcg) >= 0 ? '+' : ''}${fmt(mean(auto.ndcg) - mean(never.ndcg), 3)} ± ${fmt(pairedStandardError(never.ndcg, auto.ndcg), 3)}`,
        fmt(mean(never.recall), 3),
        fmt(mean(auto.recall), 3),
        `${fmt((100 * auto.translated) / (r.queries || 1), 0)}%`,
        fmt(median(never.ms), 0),
        fmt(median(auto.ms), 0),
      ];
    }),
  );
  console.log(
    '"detected": share of queries whose language detection gives the language they are in (source_language auto); "translated": share of ' +
      'auto queries answered with translation metadata; ms: median per query; Δ ± paired standard error.',
  );
}
console.log(`\nTotal ${fmt((performance.now() - started) / 1000, 0)} s.`);
