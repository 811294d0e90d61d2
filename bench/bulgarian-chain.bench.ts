/**
 * Whether Apertium's Macedonian pairs make a useful Bulgarian → English translation (issue 21:
 * "measure whether chains through them help before enabling"). Debian ships `bul-mkd` and
 * `mkd-eng` (apertium-mkd-bul, apertium-mkd-eng) but no English → Bulgarian or Macedonian →
 * Bulgarian-from-English mode, so the chain bg → mk → en is the only one, and only in that direction.
 *
 * Test data no one here wrote and the catalogue dictionaries never saw: LibreOffice's own user
 * interface strings in English and as its Bulgarian translators wrote them (libreoffice-l10n-bg's
 * gettext catalogues; scripts/build-catalogue-dictionaries.ts leaves LibreOffice's catalogues out).
 * A seeded sample of English strings of 3–20 words is ingested as an English knowledge base, one
 * document each; each of the first `--queries` of them is asked in Bulgarian, its English string
 * the one relevant document (a known-item task, like the manual pages' descriptions). Every
 * system is Lore's own search (lexical embedder, keyword index in memory), measured at document
 * level over the top 10:
 *
 * - `en>en`: the English strings themselves (the same-language reference);
 * - `bg>en, never`: the Bulgarian asked untranslated;
 * - `bg>en, auto` and `declared`: the product today, through QueryService (no engine serves bg → en:
 *   the catalogue dictionary's words, their first translations as the text), the language detected
 *   or declared;
 * - what-ifs through SearchService: the dictionary's gloss with its words (what `auto` searches
 *   beside the untranslated leg), the chain's English alone, and the chain's English with the
 *   dictionary's words (what the product would search were the chain its engine for the pair).
 *
 * Needs: apt-get install libreoffice-l10n-bg apertium-mkd-bul apertium-mkd-eng.
 *
 * Usage: npx tsx bench/bulgarian-chain.bench.ts [--documents 3000] [--queries 300] [--seed 1]
 *          [--catalogues /usr/lib/libreoffice/program/resource/bg/LC_MESSAGES]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mo } from 'gettext-parser';
import { pino } from 'pino';
import { DEFAULT_SEARCH_OPTIONS, SearchService } from '../core/search/search.service.js';
import { seededRandom } from '../core/shared/seeded-random.js';
import { runCrossPair } from './cross-lingual.js';
import { rankingScore, startBenchLore } from './support.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    documents: { type: 'string', default: '3000' },
    queries: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    catalogues: { type: 'string', default: '/usr/lib/libreoffice/program/resource/bg/LC_MESSAGES' },
  },
});
const documents = Number(values.documents);
const queryCount = Number(values.queries);
if (!(documents > 0 && queryCount > 0 && queryCount <= documents)) throw new Error('--documents and --queries are whole numbers, queries ≤ documents');
const TOP_K = 10;

/** A user-interface string's words: LibreOffice's accelerator marks (`~`) and markup out. */
const plain = (s: string) => s.replace(/~/g, '').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
const words = (s: string) => s.match(/\p{L}+/gu) ?? [];

/** English string → its Bulgarian translation, each English string once (the first catalogue's). */
function parallelStrings(dir: string): Array<{ en: string; bg: string }> {
  const byEnglish = new Map<string, { en: string; bg: string }>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.mo')).sort()) {
    const parsed = mo.parse(readFileSync(path.join(dir, name)));
    for (const entries of Object.values(parsed.translations)) {
      for (const entry of Object.values(entries)) {
        const en = plain(entry.msgid ?? '');
        const bg = plain(entry.msgstr[0] ?? '');
        const n = words(en).length;
        if (n < 3 || n > 20 || !/\p{Script=Cyrillic}/u.test(bg) || /[%$]|\{\d/.test(en)) continue;
        const key = en.toLowerCase();
        if (!byEnglish.has(key)) byEnglish.set(key, { en, bg });
      }
    }
  }
  return [...byEnglish.values()];
}

/** Bulgarian → Macedonian → English with Apertium, a text a paragraph (`-u`: unknown words as they are), through files as ApertiumTranslator runs it. */
function chain(texts: string[]): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'lore-chain-'));
  try {
    const files = [path.join(dir, 'bg.txt'), path.join(dir, 'mk.txt'), path.join(dir, 'en.txt')];
    writeFileSync(files[0]!, texts.map((t) => t.replace(/\u241e/g, ' ')).join('\n\n\u241e\n\n'));
    for (const [i, mode] of ['bul-mkd', 'mkd-eng'].entries()) {
      const run = spawnSync('apertium', ['-u', mode, files[i]!, files[i + 1]!], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`apertium ${mode}: ${run.stderr}`);
    }
    const out = readFileSync(files[2]!, 'utf8').split('\u241e').map((t) => t.trim());
    if (out.length !== texts.length) throw new Error(`the chain answered ${out.length} texts for ${texts.length}`);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const log = pino({ level: 'silent' });
const all = parallelStrings(values.catalogues);
const random = seededRandom(Number(values.seed));
for (let i = all.length - 1; i > 0; i--) {
  const j = Math.floor(random() * (i + 1));
  [all[i], all[j]] = [all[j]!, all[i]!];
}
const sample = all.slice(0, documents);
const queries = sample.slice(0, queryCount);
console.log(`${all.length} English strings of 3–20 words with a Bulgarian translation; ${sample.length} ingested, ${queries.length} asked`);

const started = performance.now();
const chained = chain(queries.map((q) => q.bg));
console.log(`chain bg → mk → en: ${((performance.now() - started) / queries.length).toFixed(1)} ms a query in one batch`);
for (const [i, q] of queries.slice(0, 5).entries()) console.log(`  ${q.bg} → ${chained[i]}  (${q.en})`);

const lore = await startBenchLore({ TRANSLATION_ENGINES: 'apertium' }, 'bulgarian-chain', log);
try {
  const { services, scope, ctx, db } = lore;
  const kb = await services.knowledgeBases.create(scope, { name: 'LibreOffice strings (en)', dimensions: 1024 });
  const stringOfDocument = new Map<string, number>();
  for (const [i, s] of sample.entries()) {
    const { documentId } = await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: s.en, content: s.en });
    stringOfDocument.set(documentId, i);
  }
  await lore.runtime.engine.drain();
  const chunks = await db.query<{ id: string; document_id: string }>('SELECT id, document_id FROM chunks WHERE knowledge_base_id = $1', [kb.id]);
  const stringOfChunk = new Map(chunks.rows.map((c) => [c.id, stringOfDocument.get(c.document_id)!]));
  const { embedder, vectorIndex, keywordIndex, decompounder, synonymDictionary } = services.adapters;
  const search = (options = DEFAULT_SEARCH_OPTIONS) => new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, synonymDictionary ?? null, options);
  const target = {
    services,
    scope,
    ctx,
    knowledgeBaseId: kb.id,
    search,
    chunkIds: (results: Array<{ chunk_id?: string }>) => results.map((r) => r.chunk_id!),
  };

  const score = (label: string, ranked: string[][]) => {
    let ndcg = 0;
    let recall = 0;
    let rr = 0;
    ranked.forEach((ids, i) => {
      const strings = [...new Set(ids.map((id) => stringOfChunk.get(id)!))];
      const s = rankingScore(strings.map(String), new Set([String(i)]), TOP_K);
      ndcg += s.ndcg;
      recall += s.recall;
      const at = strings.indexOf(i);
      rr += at >= 0 && at < TOP_K ? 1 / (at + 1) : 0;
    });
    const n = ranked.length;
    console.log(`${label.padEnd(58)} nDCG@10 ${(ndcg / n).toFixed(3)}  MRR@10 ${(rr / n).toFixed(3)}  recall@10 ${(recall / n).toFixed(3)}`);
    return ndcg / n;
  };
  const searchAll = async (texts: string[], dictionaries?: (i: number) => Parameters<SearchService['query']>[2]) => {
    const service = search();
    const ranked: string[][] = [];
    for (const [i, query] of texts.entries()) {
      const answer = await service.query(ctx, { query, top_k: TOP_K, knowledge_base_ids: [kb.id], source_language: 'auto' }, dictionaries?.(i));
      ranked.push(target.chunkIds(answer.results));
    }
    return ranked;
  };

  const same = score('en>en (the same strings in English)', await searchAll(queries.map((q) => q.en)));
  const run = await runCrossPair(target, { source: 'bg', target: 'en' }, queries.map((q) => q.bg), { topK: TOP_K, productOptions: DEFAULT_SEARCH_OPTIONS });
  console.log(`route bg → en: ${JSON.stringify(run.route ?? null)}; detected: ${JSON.stringify(Object.fromEntries(run.detected))}`);
  score('bg>en, never (untranslated)', run.untranslated.hybrid);
  const auto = score('bg>en, auto (the product: the dictionary, detected)', run.translated.hybrid);
  const declared = score('bg>en, declared bg (the product, source_language bg)', run.declaredSource);
  // Each query's dictionary words, looked up once for the what-ifs that use them.
  const pair = { source: 'bg', target: 'en' } as const;
  const looked: Array<Awaited<ReturnType<typeof services.translation.lookUpWords>>> = [];
  for (const q of queries) looked.push(await services.translation.lookUpWords(scope, [q.bg], pair));
  const lookUp = (i: number) => looked[i]?.[0] && [{ language: 'en' as const, words: looked[i][0] }];
  // The text QueryTranslationStep.gloss makes: each word's first translation.
  const glosses = queries.map((q, i) => looked[i]?.[0]?.map((w) => w.translations[0] ?? w.word).join(' ') ?? q.bg);
  score('what-if: the dictionary\'s gloss with its words', await searchAll(glosses, lookUp));
  score('what-if: the chain\'s English alone', await searchAll(chained));
  const withChain = score('what-if: the chain\'s English with the dictionary\'s words', await searchAll(chained, lookUp));
  console.log(`ratio to en>en: product ${(auto / same).toFixed(2)} (declared ${(declared / same).toFixed(2)}); chain with the dictionary's words ${(withChain / same).toFixed(2)}`);
} finally {
  await lore.close();
}
