/**
 * Retrieval quality on real third-party data: the LibreOffice help (≈2,550 pages per language,
 * Debian's `libreoffice-help-*` packages) with its hand-made index as relevance judgements. Each
 * language's pages are ingested into one knowledge base of a fresh tenant through Lore's own code
 * path (document service, ingestion job, the embedder the environment configures, PGlite in
 * memory); index terms are the queries and the pages the index links them to are the relevant
 * documents.
 *
 * The embedder is the built-in lexical one unless EMBEDDER and its settings name another, as they
 * do for Lore itself (docs/configuration.md): `EMBEDDER=onnx EMBEDDER_MODEL_DIR=… --dimensions 384`
 * or `EMBEDDER=openai EMBEDDER_URL=… EMBEDDER_MODEL=… --dimensions 1024` measures a model of one's
 * own, fused as the product fuses any embedder other than the lexical one; likewise
 * TRANSLATION_ENGINES with DEEPL_* or LIBRETRANSLATE_* for `--cross`. `--dimensions` (default 1024)
 * is the knowledge bases' vector size, which must suit the model.
 *
 * Prints, per language, nDCG@10 (binary relevance), MRR@10 and recall@10 at document level for
 * keyword-only, vector-only and fused (hybrid) search and for a plain BM25 library on the same
 * chunks (bench/bm25-peer.ts), once over title and text and once over the text alone, which is all
 * Lore's keyword index holds; ingestion throughput and query latency; then fusion variants (RRF k,
 * weights, candidates per retriever; with `peer`, the BM25 peer's ranking fused as a third list, a
 * what-if of a second keyword leg) and, with `--variants …,chunks`, chunk sizes (re-ingesting
 * `--chunk-languages`).
 *
 * Each query runs once per retriever, through `SearchService` in `vector` and in `keyword` mode
 * with 100 candidates; the hybrid result of any fusion setting is then Lore's own
 * `reciprocalRankFusion` over prefixes of those two lists, which is what `SearchService` computes
 * in `hybrid` mode (both retrievers order totally, so a shorter candidate list is a prefix of a
 * longer one). The first `--check` queries of every run also go through a hybrid `SearchService`
 * with the default options, and the results must be identical. A fusion variant then costs
 * arithmetic instead of a search per query.
 *
 * `--feedback` tries pseudo-relevance feedback (core/search/feedback.ts) over a grid of settings
 * (feedback chunks × terms × the query's weight λ) on the first query set: keyword and fused
 * nDCG@10 per setting, against none. `--proximity` does the same for term proximity
 * (core/search/proximity.ts: weight × window × candidates re-ordered). `--synonyms off` runs every
 * search without its words' synonyms (core/search/synonyms.ts): the product as it was before them,
 * on any collection, to measure what they add and cost; `--synonym-options pivots=2,back=5` finds
 * them with those of SynonymOptions' settings instead of the product's (a tuning collection's what-if).
 *
 * `--diagnostics` adds two what-ifs for keyword search: only the pages' own text-search
 * configuration (Lore ORs the lexemes of all of them), and ts_rank_cd (cover density, Lore's ranking
 * until 2026-11) in place of ts_rank, with every query word selecting rows.
 *
 * `--dump FILE` appends a JSON line per query (its relevant pages, each system's first ten pages and
 * nDCG@10), to read where Lore and the peer differ query by query; refused on the held-back collection.
 * With `--cross`, each pair's queries too (`language` A>B; the product's first ten pages, `fused`,
 * and with the source language declared, `declared`), so rankings can be fused offline.
 * `--features FILE` appends a JSON line per query with every candidate of the two retrievers' first 50
 * and the features a learned second-stage ranking could weigh (bench/ranking-features.ts), for
 * bench/learn-ranking.ts; refused on the held-back collection too.
 *
 * Keyword search is the one KEYWORD_INDEX names (`flat`, in memory, by default, which ranks every
 * row holding a query word; `postgres` in the database). `--match-row-budget N` searches in the database instead
 * (PostgresKeywordIndex) with that row budget (MATCH_ROW_BUDGET is 300): about 70 makes these
 * ~7,000-chunk knowledge bases select and narrow rows as a 100k-chunk one does.
 *
 * `--cross en>es,es>en,…` (issue 21) also measures cross-lingual retrieval: for each pair
 * A>B, A's queries (on the help drawn as A's own run draws them, the first `--cross-queries` of
 * them; on a known-item collection drawn among the descriptions of the pages B holds) are asked
 * of B's knowledge base through `QueryService`, Lore's POST /v1/query path, once with the knowledge
 * base's `query_translation` at `auto` (Lore detects the query's language and translates it with
 * the configured engine, Apertium unless TRANSLATION_ENGINES says otherwise) and once at `never`. A
 * query's relevant documents are its pages in B (a page has the same id in every language: a help
 * page's id, a package's name, a manual page's file; a query none of whose pages B has is left out:
 * each language has its own set of manual pages and translated packages). Printed per pair: nDCG@10, MRR@10 and recall@10 fused, keyword and vector with and
 * without translation, B's same-language figure (B's own queries) and the ratio, and the
 * translation's cost per query, cold and from the translation cache (bench/cross-lingual.ts); and
 * what-ifs on Lore's path: the queries with `source_language` set to A (no detection); for each of
 * `--untranslated-weights`, the fusion with that weight of the untranslated leg; and for each of
 * `--translation-options` (JSON objects separated by `;`), query translation with those of its
 * options (QueryTranslationOptions) changed (by default `{"dictionary":false}` and the other
 * `mergeLanguages`).
 * B must be among `--languages`; A need not be.
 *
 * `--collection packages` runs it on the second TUNING collection (bench/debian-packages.ts): Debian
 * 12's package descriptions in English and as translated by the DDTP, each package a document (its
 * long description) and its short description a known-item query, the shape of the held-back
 * collection's queries; tuning options work on it as on the help.
 *
 * `--collection manpages` runs the same measurement on the HELD-BACK collection (bench/manpages.ts):
 * Debian's translated manual pages (manpages-l10n; man-pages for English), each page's NAME
 * description a known-item query for that page. It is for checking only, never for tuning: fusion
 * variants, chunk sizes and diagnostics are refused on it, and a setting chosen on the help is
 * confirmed or refuted there once, not adjusted until it passes.
 *
 * Needs apt-get and dpkg (Debian/Ubuntu) the first time: the packages are downloaded into
 * `--cache` (default `.bench/libreoffice`, `.bench/debian-packages` or `.bench/manpages`; git-ignored) and unpacked there;
 * later runs reuse them. The manual pages also need groff, and are rendered once into that cache.
 *
 * Usage: npx tsx bench/retrieval-quality.bench.ts [--collection help] [--languages en,de] [--queries 300]
 *          [--seed 1] [--query-sets entries[,heads]] [--variants k,weights,candidates[,peer][,chunks] | all | none]
 *          [--chunk-languages en] [--chunk-sizes 600,1500] [--check 20] [--max-relevant 20]
 *          [--dimensions 1024] [--diagnostics] [--dump FILE] [--features FILE] [--match-row-budget N] [--cache .bench/libreoffice] [--synonyms off] [--synonym-options weight=W,outward=N,back=N,pivots=N]
 *          [--tune [--tune-k1 …] [--tune-b …] [--tune-title …]]
 *          [--feedback [--feedback-documents 5,10] [--feedback-terms 10,20] [--feedback-weight 0.5,0.7]]
 *          [--proximity [--proximity-weight 0.25,0.5,1] [--proximity-window 3,6] [--proximity-candidates 50]]
 *          [--cross en>es,es>en,… [--cross-queries N (default --queries)] [--untranslated-weights 0.25,0]
 *           [--translation-options '{"fusionK":5};{"shareWeights":true}']]
 *        npx tsx bench/retrieval-quality.bench.ts --collection packages [--languages en,de,fr,es,it,nl] [--max-documents 3000] …
 *        npx tsx bench/retrieval-quality.bench.ts --collection manpages [--languages en,de,fr,es,it,nl,ro]
 *          [--queries 300] [--seed 1] [--max-documents 3000] [--check 20] [--match-row-budget N]
 * Six languages with `--variants none` took 8.5 minutes on two shared cores (2026-11-26): ~50 s of
 * ingestion and ~10 s of queries (~15 ms per query and retriever) a language, ~6 s to index the
 * BM25 peers. Fusion variants are arithmetic on the lists already fetched; each chunk size is
 * another ingestion per `--chunk-languages` language. The manual pages' seven languages took 5 to
 * 5.5 minutes (2026-11-26), and rendering them the first time about 3 more. `--cross` with twelve
 * pairs of 100 queries added 16 minutes (2026-11-26, a loaded machine): an uncached Apertium run
 * took ~0.5 s, a pair chained through Spanish (or a query translated into two languages) twice that.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { RequestContext } from '../core/context.js';
import type { Database } from '../core/db/database.js';
import { LexemeFrequencies, PostgresKeywordIndex, keywordSearch } from '../core/adapters/postgres.keyword-index.js';
import { KEYWORD_ANALYSIS, postgresConfigs } from '../core/search/text-search-config.js';
import { type ChunkFilter, chunkFilterSql } from '../core/search/chunk-filter.js';
import { type FusionOptions, reciprocalRankFusion } from '../core/search/fusion.js';
import { foldAccents } from '../core/search/accent-folding.js';
import { PROXIMITY } from '../core/search/proximity.js';
import { keywordRanking, queryLexemes } from '../core/search/search.repository.js';
import type { QueryResultItem } from '../core/search/search.schema.js';
import { DEFAULT_SEARCH_OPTIONS, type SearchOptions, SearchService, searchOptionsFor } from '../core/search/search.service.js';
import { SYNONYMS, type SynonymOptions } from '../core/search/synonyms.js';
import { createEmbedder } from '../runtime/adapters.js';
import { loadConfig } from '../core/config.js';
import { type Bm25Parameters, lexemesOf } from '../core/search/bm25.js';
import type { Scope } from '../core/shared/scope.js';
import { SqlParams } from '../core/shared/sql-params.js';
import type { Language } from '../core/translation/translation.schema.js';
import type { Services } from '../runtime/services.js';
import { type Bm25Peer, bm25Peer } from './bm25-peer.js';
import { FeatureWriter } from './ranking-features.js';
import {
  type HelpPage,
  type IndexEntry,
  type QuerySet,
  type RetrievalQuery,
  HELP_PACKAGES,
  loadHelpCollection,
  loadHelpIndex,
  queryOf,
  sampleQueries,
} from './libreoffice-help.js';
import { CROSS_MODES, type CrossMode, type CrossPair, type CrossRun, pairLabel, parseCrossPairs, runCrossPair } from './cross-lingual.js';
import { QUERY_TRANSLATION_OPTIONS, type QueryTranslationOptions } from '../core/translation/query-translation.service.js';
import { MAN_PACKAGES, MIN_DESCRIPTION_WORDS, loadManCollection, loadManIndex } from './manpages.js';
import { PACKAGE_LANGUAGES, loadPackageCollection, loadPackageIndex } from './debian-packages.js';
import { ROOT, mean, median, pairedStandardError, percentile, rankingScore, startBenchLore } from './support.js';

/** A query's words under these configurations, and their ranking over these knowledge bases. */
async function rankedWords(db: Database, knowledgeBaseIds: string[], query: string, configs: string[]) {
  const words = await queryLexemes(db, query, configs);
  return { words: lexemesOf(words), ranking: await keywordRanking(db, knowledgeBaseIds, words) };
}

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    collection: { type: 'string', default: 'help' },
    languages: { type: 'string', default: 'en,de' },
    queries: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    'query-sets': { type: 'string' },
    'max-relevant': { type: 'string', default: '20' },
    'max-documents': { type: 'string', default: '3000' },
    variants: { type: 'string' },
    'chunk-languages': { type: 'string', default: 'en' },
    'chunk-sizes': { type: 'string', default: '600,1500' },
    check: { type: 'string', default: '20' },
    dump: { type: 'string' },
    features: { type: 'string' },
    diagnostics: { type: 'boolean', default: false },
    tune: { type: 'boolean', default: false },
    feedback: { type: 'boolean', default: false },
    'feedback-documents': { type: 'string', default: '5,10' },
    'feedback-terms': { type: 'string', default: '10,20' },
    'feedback-weight': { type: 'string', default: '0.5,0.7' },
    proximity: { type: 'boolean', default: false },
    synonyms: { type: 'string', default: 'on' },
    'synonym-options': { type: 'string' },
    'proximity-weight': { type: 'string', default: '0.25,0.5,1' },
    'proximity-window': { type: 'string', default: '3,6' },
    'proximity-candidates': { type: 'string', default: String(PROXIMITY.candidates) },
    'tune-k1': { type: 'string', default: '0.9,1.2,1.6' },
    'tune-b': { type: 'string', default: '0.3,0.5,0.75,0.9' },
    'tune-title': { type: 'string', default: '1,2,4' },
    'match-row-budget': { type: 'string' },
    cross: { type: 'string' },
    'cross-queries': { type: 'string' },
    'untranslated-weights': { type: 'string', default: '' },
    'translation-options': { type: 'string' },
    cache: { type: 'string' },
    dimensions: { type: 'string', default: '1024' },
    'unaccented-queries': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);
const count = (name: string, s: string): number => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, not '${s}'`);
  return n;
};
function oneOf<T extends string>(name: string, given: string[], allowed: readonly T[]): T[] {
  const bad = given.find((g) => !(allowed as readonly string[]).includes(g));
  if (bad !== undefined) throw new Error(`--${name}: unknown value '${bad}'; use ${allowed.join(', ')}`);
  return given as T[];
}

/**
 * `help` and `packages` are the collections settings are tuned on (index terms; package
 * descriptions, queries shaped like the held-back ones); `manpages` is held back, for checking only.
 */
const COLLECTIONS = ['help', 'packages', 'manpages'] as const;
type CollectionName = (typeof COLLECTIONS)[number];
const [collectionName] = oneOf<CollectionName>('collection', [values.collection], COLLECTIONS) as [CollectionName];
const heldBack = collectionName === 'manpages';
/** Known-item collections: each document's description is its query (the manual pages, the packages). */
const described = collectionName !== 'help';
/** What differs between the collections: name, languages, default cache, and the English queries' source. */
const COLLECTION_SOURCES: Record<
  CollectionName,
  { title: string; languages: readonly string[]; cache: string; englishIndex: (cacheDir: string) => Promise<IndexEntry[]> }
> = {
  help: { title: 'LibreOffice help', languages: Object.keys(HELP_PACKAGES), cache: '.bench/libreoffice', englishIndex: (dir) => loadHelpIndex(dir, 'en') },
  packages: {
    title: 'package descriptions',
    languages: Object.keys(PACKAGE_LANGUAGES),
    cache: '.bench/debian-packages',
    englishIndex: (dir) => loadPackageIndex(dir, 'en'),
  },
  manpages: { title: 'manual pages', languages: Object.keys(MAN_PACKAGES), cache: '.bench/manpages', englishIndex: (dir) => loadManIndex(dir, 'en') },
};
const collectionSource = COLLECTION_SOURCES[collectionName];

const languages = list(values.languages);
oneOf('languages', languages, collectionSource.languages);
const queryCount = count('queries', values.queries);
const seed = count('seed', values.seed);
const maxRelevant = count('max-relevant', values['max-relevant']);
const checkCount = count('check', values.check);
const maxDocuments = count('max-documents', values['max-documents']);
// The keyword search's row budget (MATCH_ROW_BUDGET); a small one makes these ~7k-chunk knowledge
// bases behave as 100k-chunk ones do (the narrowing to rows holding two of the rarest words).
const matchRowBudget = values['match-row-budget'] === undefined ? undefined : count('match-row-budget', values['match-row-budget']);
/** The help's index entries or heads; the manual pages' NAME descriptions. */
type BenchQuerySet = QuerySet | 'descriptions';
const querySets = described
  ? oneOf<BenchQuerySet>('query-sets', list(values['query-sets'] ?? 'descriptions'), ['descriptions'])
  : oneOf<BenchQuerySet>('query-sets', list(values['query-sets'] ?? 'entries'), ['entries', 'heads']);
const VARIANT_GROUPS = ['k', 'weights', 'candidates', 'peer', 'chunks'] as const;
type VariantGroup = (typeof VARIANT_GROUPS)[number];
const variantsArg = values.variants ?? (heldBack ? 'none' : 'k,weights,candidates');
const variantGroups = new Set(
  variantsArg === 'all' ? VARIANT_GROUPS : variantsArg === 'none' ? [] : oneOf<VariantGroup>('variants', list(variantsArg), VARIANT_GROUPS),
);
// Fusion variants, chunk sizes and the ranking what-ifs are there to choose settings: choosing
// them on the held-back collection would make it one more tuning set.
if (!['on', 'off'].includes(values.synonyms)) throw new Error('--synonyms is on (the product) or off');
/** `--synonyms off`: every search without its words' synonyms (core/search/synonyms.ts), to measure what they add. */
const withSynonyms = values.synonyms === 'on';
/** `--synonym-options weight=0.5,back=5`: those SynonymOptions in place of the product's (SYNONYMS). */
const synonymOptions: Partial<SynonymOptions> | undefined =
  values['synonym-options'] === undefined
    ? undefined
    : Object.fromEntries(
        list(values['synonym-options']).map((item) => {
          const [name, value] = item.split('=');
          const n = Number(value);
          if (!name || !(name in SYNONYMS) || !(n > 0) || (name !== 'weight' && !Number.isInteger(n))) {
            throw new Error(`--synonym-options: '${item}' is not one of ${Object.keys(SYNONYMS).join(', ')} = a number > 0 (whole but for weight)`);
          }
          return [name, n];
        }),
      );
if (
  heldBack &&
  (variantGroups.size > 0 || values.diagnostics || values.tune || values.feedback || values.proximity || values.dump || values.features || synonymOptions !== undefined)
) {
  throw new Error(
    '--collection manpages is held back for checking only: run it with --variants none and without --diagnostics, --tune, --feedback, --proximity, --dump, --features or --synonym-options',
  );
}
/** `--dump FILE`: every query's relevant pages and each system's first ten pages, a JSON line each (appended). */
const dumpFile = values.dump === undefined ? undefined : path.resolve(values.dump);
/** `--features FILE`: every query's candidates with ranking features (bench/ranking-features.ts), a JSON line each (appended). */
const featuresFile = values.features === undefined ? undefined : path.resolve(values.features);
// A page has the same id in every language (a help page's, a package's name, a manual page's file),
// so a query's relevant pages in another language are its pages there.
const crossPairs = values.cross === undefined ? [] : parseCrossPairs(values.cross, collectionSource.languages);
const untargeted = crossPairs.find((p) => !languages.includes(p.target));
if (untargeted) throw new Error(`--cross ${pairLabel(untargeted)}: ${untargeted.target} must be among --languages (its knowledge base is searched)`);
/** The first this many of a language's sampled queries are asked across languages: a prefix of its own run's sample. */
const crossQueryCount = Math.min(queryCount, count('cross-queries', values['cross-queries'] ?? values.queries));
/**
 * What-ifs of query translation's options: `--untranslated-weights`, then each of
 * `--translation-options` (by default: without the bilingual dictionaries' words, and the other
 * choice of searches for a knowledge base of several languages).
 */
const DEFAULT_TRANSLATION_WHAT_IFS = `{"dictionary":false};{"mergeLanguages":${!QUERY_TRANSLATION_OPTIONS.mergeLanguages}}`;
const translationWhatIfs: Array<Partial<QueryTranslationOptions>> = [
  ...list(values['untranslated-weights']).map((w) => {
    const weight = Number(w);
    if (!(weight >= 0 && weight <= 1)) throw new Error(`--untranslated-weights: ${w} is not a weight between 0 and 1`);
    return { untranslatedWeight: weight };
  }),
  ...(values['translation-options'] ?? DEFAULT_TRANSLATION_WHAT_IFS)
    .split(';')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      const parsed: unknown = JSON.parse(o);
      if (typeof parsed !== 'object' || !parsed || Object.keys(parsed).some((k) => !(k in QUERY_TRANSLATION_OPTIONS))) {
        throw new Error(`--translation-options: '${o}' is not an object of QueryTranslationOptions`);
      }
      const options: Partial<QueryTranslationOptions> = parsed;
      return options;
    }),
];
const whatIfLabel = (options: Partial<QueryTranslationOptions>) =>
  Object.entries(options)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
const chunkLanguages = variantGroups.has('chunks') ? list(values['chunk-languages']).filter((l) => languages.includes(l)) : [];
const chunkSizes = list(values['chunk-sizes']).map((s) => count('chunk-sizes', s));
const cacheDir = path.resolve(ROOT, values.cache ?? collectionSource.cache);

const TOP_K = 10;
/**
 * The embedder and translation engines as the environment configures them (EMBEDDER,
 * EMBEDDER_MODEL_DIR, EMBEDDER_URL, …; TRANSLATION_ENGINES, DEEPL_*, LIBRETRANSLATE_*): the built-in
 * lexical embedder and Apertium unless a user points the bench at a model or engine of their own.
 */
const MODEL_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => /^(EMBEDDER|DEEPL_|LIBRETRANSLATE_)/.test(name)));
const benchEmbedder = createEmbedder(loadConfig(MODEL_ENV));
/** The knowledge bases' vector size (`--dimensions`): the lexical embedder's any; a model's own output size. */
const dimensions = count('dimensions', values.dimensions);
/** What the product searches with here: the defaults, with the fusion for the embedder the bench ingests with. */
const PRODUCT_OPTIONS = searchOptionsFor(benchEmbedder);
/** Candidates fetched per retriever: the largest number any variant fuses. */
const MAX_CANDIDATES = 100;
const DEFAULT_CHUNK_TARGET = 1000;
const MODES = ['keyword', 'vector', 'hybrid'] as const;
/** Lore's modes and the BM25 peer with and without the title field: everything scored per query. */
const SYSTEMS = ['peer', 'peerText', ...MODES] as const;
type System = (typeof SYSTEMS)[number];
const SYSTEM_LABELS: Record<System, string> = {
  peer: 'BM25 peer (MiniSearch)',
  peerText: 'peer, text only',
  keyword: 'keyword',
  vector: 'vector',
  hybrid: 'fused',
};
const METRICS = ['ndcg', 'mrr', 'recall'] as const;
type Metric = (typeof METRICS)[number];
const METRIC_LABELS: Record<Metric, string> = { ndcg: 'nDCG@10', mrr: 'MRR@10', recall: 'recall@10' };

const silent = pino({ level: 'silent' });

interface Ingested {
  db: Database;
  search: (options: SearchOptions) => SearchService;
  ctx: RequestContext;
  /** For `--cross`: the runtime's services (query translation, settings) and the tenant's scope. */
  services: Services;
  scope: Scope;
  knowledgeBaseId: string;
  /** Help page id of every Lore document and every chunk. */
  pageOfDocument: Map<string, string>;
  pageOfChunk: Map<string, string>;
  stats: { documents: number; notReady: number; chunks: number; storeSeconds: number; indexSeconds: number };
  close(): Promise<void>;
}

/** One language of a collection as the bench runs it: the pages to ingest, and the queries. */
interface BenchCollection {
  language: string;
  /** Debian package version(s) the pages come from. */
  version: string;
  pages: HelpPage[];
  /** The queries of a query set whose relevant pages are all ingested, and how many were eligible. */
  sample(set: BenchQuerySet, ingested: ReadonlySet<string>): { queries: RetrievalQuery[]; eligible: number };
  /**
   * The queries asked of another language's knowledge base, which holds `targetPages` (`--cross`):
   * on the help the first `--cross-queries` of this language's own sample (its pages are parallel
   * across languages); on a known-item collection as many drawn afresh, with the same seed, among
   * the descriptions of `targetPages` (each language has its own manual pages and translated
   * packages, so its own queries seldom have a page in another).
   */
  crossQueries(set: BenchQuerySet, targetPages: ReadonlySet<string>): RetrievalQuery[];
}

async function loadCollection(language: string): Promise<BenchCollection> {
  if (!described) {
    const help = await loadHelpCollection(cacheDir, language);
    const sample = (set: BenchQuerySet, ingested: ReadonlySet<string>) =>
      sampleQueries(help.index, ingested, { set: set as QuerySet, count: queryCount, seed, maxRelevant });
    const ownPages = new Set(help.pages.map((p) => p.id));
    return {
      language,
      version: help.version,
      pages: help.pages,
      sample,
      crossQueries: (set) => sample(set, ownPages).queries.slice(0, crossQueryCount),
    };
  }
  // Drawn before the pages are capped, so that every judged page is among those ingested.
  const options = { count: queryCount, seed, maxRelevant, maxDocuments };
  const man = await (heldBack ? loadManCollection : loadPackageCollection)(cacheDir, language, options);
  console.log(
    `${language}: ${man.available} ${collectionSource.title}, ${man.index.length} with a description of ${MIN_DESCRIPTION_WORDS}+ words, ` +
      `${man.pages.length} kept as documents`,
  );
  return {
    language,
    version: man.version,
    pages: man.pages,
    sample: () => ({ queries: man.queries, eligible: man.eligible }),
    crossQueries: (_set, targetPages) => sampleQueries(man.index, targetPages, { set: 'entries', count: crossQueryCount, seed, maxRelevant }).queries,
  };
}

/** Ingests every page of `help` into a knowledge base of a fresh tenant on a fresh in-memory database. */
async function ingest(help: BenchCollection, chunkTargetChars: number): Promise<Ingested> {
  const lore = await startBenchLore(
    {
      CHUNK_TARGET_CHARS: String(chunkTargetChars),
      // The default hard cap (2000) unless the target itself is larger.
      CHUNK_MAX_CHARS: String(Math.max(chunkTargetChars, 2000)),
      ...MODEL_ENV,
      KEYWORD_INDEX: process.env.KEYWORD_INDEX,
      WORD_LISTS: process.env.WORD_LISTS,
      // Unset would also mean Apertium when it is installed (`auto`); named, so --cross measures it.
      TRANSLATION_ENGINES: process.env.TRANSLATION_ENGINES ?? 'apertium',
      // `none` measures query translation without the catalogue dictionaries.
      CATALOGUE_DICTIONARY_DIR: process.env.CATALOGUE_DICTIONARY_DIR,
      // Apertium's routes other than the default (`es-fr:ca,…`), to measure them against it.
      APERTIUM_ROUTES: process.env.APERTIUM_ROUTES,
    },
    `${collectionName}-${help.language}`,
    silent,
  );
  try {
    const { db, runtime, services, scope } = lore;
    const kb = await services.knowledgeBases.create(scope, { name: `${collectionSource.title} (${help.language})`, dimensions });

    const pageOfDocument = new Map<string, string>();
    const t0 = performance.now();
    for (const page of help.pages) {
      const { documentId } = await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: page.title, content: page.text });
      pageOfDocument.set(documentId, page.id);
    }
    const t1 = performance.now();
    await runtime.engine.drain();
    await runtime.maintenance?.run(); // fresh planner statistics, as a running server has them shortly after
    const t2 = performance.now();
    const { rows } = await db.query<{ ready: number; not_ready: number; chunks: number }>(
      `SELECT count(*) FILTER (WHERE status = 'ready')::int AS ready, count(*) FILTER (WHERE status <> 'ready')::int AS not_ready,
              COALESCE(sum(chunk_count) FILTER (WHERE status = 'ready'), 0)::int AS chunks
       FROM documents WHERE knowledge_base_id = $1`,
      [kb.id],
    );
    const counts = rows[0] ?? { ready: 0, not_ready: 0, chunks: 0 };
    const chunks = await db.query<{ id: string; document_id: string }>('SELECT id, document_id FROM chunks WHERE knowledge_base_id = $1', [kb.id]);
    const pageOfChunk = new Map(chunks.rows.map((c) => [c.id, pageOfDocument.get(c.document_id)!]));
    const { embedder, vectorIndex, decompounder } = services.adapters;
    const keywordIndex = matchRowBudget === undefined ? services.adapters.keywordIndex : new PostgresKeywordIndex(db, matchRowBudget);
    return {
      db,
      search: (options) =>
        new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, withSynonyms ? (services.adapters.synonymDictionary ?? null) : null, {
          ...options,
          synonyms: options.synonyms && synonymOptions ? { ...options.synonyms, ...synonymOptions } : options.synonyms,
        }),
      ctx: lore.ctx,
      services,
      scope,
      knowledgeBaseId: kb.id,
      pageOfDocument,
      pageOfChunk,
      stats: {
        documents: counts.ready,
        notReady: counts.not_ready,
        chunks: counts.chunks,
        storeSeconds: (t1 - t0) / 1000,
        indexSeconds: (t2 - t1) / 1000,
      },
      close: () => lore.close(),
    };
  } catch (err) {
    await lore.close().catch(() => undefined);
    throw err;
  }
}

/** One query's candidate lists: chunk ids in retriever order. */
interface Candidates {
  vector: string[];
  keyword: string[];
  /** The BM25 peer over title and text, and over the text alone. */
  peer: string[];
  peerText: string[];
  /** Diagnostics: keyword search with the pages' own text-search configuration only. */
  keywordOwn: string[];
  /** Diagnostics: Lore's keyword query ranked by ts_rank_cd instead of ts_rank, every word selecting. */
  keywordCoverDensity: string[];
}


/**
 * Diagnostics only: `keywordSearch` (core/adapters/postgres.keyword-index.ts) as it ranked before, by
 * ts_rank_cd, with every query word selecting rows. For an OR of lexemes, cover density counts
 * occurrences of any one term, so a frequent word outweighs matching several; ts_rank rewards every
 * distinct term matched.
 */
async function keywordSearchCoverDensity(db: Database, filter: ChunkFilter, query: string, limit: number): Promise<string[]> {
  const p = new SqlParams();
  const q = p.add(query);
  const configs = p.add(postgresConfigs());
  const where = chunkFilterSql(filter, p);
  const { rows } = await db.query<{ id: string }>(
    `WITH q AS (
       SELECT string_agg(DISTINCT quote_literal(lexeme), ' | ')::tsquery AS tsq
       FROM unnest(${configs}::regconfig[]) AS cfg,
            LATERAL unnest(tsvector_to_array(to_tsvector(cfg, ${q}))) AS lexeme
       WHERE position('\\' in lexeme) = 0
     )
     SELECT c.id FROM chunks c, q
     WHERE q.tsq IS NOT NULL AND c.tsv @@ q.tsq AND ${where}
     ORDER BY ts_rank_cd(c.tsv, q.tsq) DESC, c.id
     LIMIT ${Math.trunc(limit)}`,
    p.values,
  );
  return rows.map((r) => r.id);
}

interface Retrieved {
  candidates: Candidates[];
  /** Mean milliseconds per query of each retriever alone (SearchService in that mode). */
  vectorMs: number;
  keywordMs: number;
  peerMs: number;
  /** Mean milliseconds per query of the default hybrid SearchService on the checked queries. */
  hybridMs: number;
  checked: number;
  mismatches: string[];
}

const request = (target: Ingested, query: string, topK: number) => ({
  query,
  top_k: topK,
  knowledge_base_ids: [target.knowledgeBaseId],
  source_language: 'auto',
});

function chunkIds(results: QueryResultItem[], target: Ingested): string[] {
  return results.map((r) => {
    if (r.chunk_id === undefined || !target.pageOfChunk.has(r.chunk_id)) throw new Error(`a result that is no chunk of this run: ${JSON.stringify(r)}`);
    return r.chunk_id;
  });
}

/** The BM25 peer over title and text, and over the text alone (Lore's keyword index has no title). */
interface Peers {
  peer: Bm25Peer;
  peerText: Bm25Peer;
}

async function retrieve(target: Ingested, peers: Peers, language: string, queries: RetrievalQuery[]): Promise<Retrieved> {
  // top_k = minCandidates = MAX_CANDIDATES with factor 1: each retriever returns exactly the longest
  // candidate list any variant fuses, and fusing a single list keeps the retriever's order.
  const alone = (mode: 'vector' | 'keyword'): SearchService =>
    target.search({ ...DEFAULT_SEARCH_OPTIONS, mode, minCandidates: MAX_CANDIDATES, candidateFactor: 1 });
  const vectorSearch = alone('vector');
  const keywordSearchService = alone('keyword');
  const hybridSearch = target.search(PRODUCT_OPTIONS);
  const ownConfig = KEYWORD_ANALYSIS[language as Language];
  const filter: ChunkFilter = { scope: { tenantId: target.ctx.tenantId, subTenantId: null }, knowledgeBaseIds: [target.knowledgeBaseId], tags: {} };
  const candidates: Candidates[] = [];
  let vectorMs = 0;
  let keywordMs = 0;
  let peerMs = 0;
  let hybridMs = 0;
  const mismatches: string[] = [];
  const checked = Math.min(checkCount, queries.length);
  for (const [i, q] of queries.entries()) {
    const t0 = performance.now();
    const vector = chunkIds((await vectorSearch.query(target.ctx, request(target, q.query, MAX_CANDIDATES))).results, target);
    const t1 = performance.now();
    const keyword = chunkIds((await keywordSearchService.query(target.ctx, request(target, q.query, MAX_CANDIDATES))).results, target);
    const t2 = performance.now();
    const peer = peers.peer.search(q.query, MAX_CANDIDATES);
    vectorMs += t1 - t0;
    keywordMs += t2 - t1;
    peerMs += performance.now() - t2;
    const peerText = peers.peerText.search(q.query, MAX_CANDIDATES);
    const keywordOwn = values.diagnostics
      ? (
          await keywordSearch(target.db, {
            filter,
            ...(await rankedWords(target.db, filter.knowledgeBaseIds, q.query, [ownConfig])),
            limit: MAX_CANDIDATES,
            frequencies: new LexemeFrequencies(target.db),
          })
        ).map((h) => h.chunkId)
      : [];
    const keywordCoverDensity = values.diagnostics ? await keywordSearchCoverDensity(target.db, filter, q.query, MAX_CANDIDATES) : [];
    const c = { vector, keyword, peer, peerText, keywordOwn, keywordCoverDensity };
    candidates.push(c);
    if (i < checked) {
      const t3 = performance.now();
      const real = chunkIds((await hybridSearch.query(target.ctx, request(target, q.query, TOP_K))).results, target);
      hybridMs += performance.now() - t3;
      if (real.join() !== fuse(c, PRODUCT_OPTIONS).join()) mismatches.push(q.query);
    }
  }
  const n = queries.length || 1;
  return { candidates, vectorMs: vectorMs / n, keywordMs: keywordMs / n, peerMs: peerMs / n, hybridMs: hybridMs / (checked || 1), checked, mismatches };
}

type FusionSettings = Pick<SearchOptions, 'fusion' | 'minCandidates' | 'candidateFactor'>;

/** The top-k chunk ids SearchService returns in hybrid mode with `options`, from the candidate lists. */
function fuse(c: Candidates, options: FusionSettings, keyword = c.keyword): string[] {
  const limit = Math.max(options.minCandidates, options.candidateFactor * TOP_K);
  if (limit > MAX_CANDIDATES) throw new Error(`a variant needs ${limit} candidates; MAX_CANDIDATES is ${MAX_CANDIDATES}`);
  const lists = [c.vector.slice(0, limit), keyword.slice(0, limit)];
  // A third weight fuses the peer's ranking too: what a second keyword leg would add (`--variants peer`).
  if (options.fusion.weights.length > 2) lists.push(c.peer.slice(0, limit));
  return reciprocalRankFusion(lists, options.fusion)
    .slice(0, TOP_K)
    .map((f) => f.id);
}

type PerQuery = Record<Metric, number[]>;

/**
 * Binary-relevance nDCG@10, MRR@10 and recall@10 at document level: chunks map to their page and a
 * page counts at its first (best) rank, as a caller listing matching documents would show them.
 */
function score<C>(run: { candidates: C[]; queries: RetrievalQuery[]; pageOfChunk: Map<string, string> }, rank: (c: C) => string[]): PerQuery {
  const out: PerQuery = { ndcg: [], mrr: [], recall: [] };
  for (const [i, q] of run.queries.entries()) {
    const pages = pagesOf(rank(run.candidates[i]!), run.pageOfChunk);
    const { ndcg, recall } = rankingScore(pages, q.relevant, TOP_K);
    const first = pages.slice(0, TOP_K).findIndex((p) => q.relevant.has(p));
    out.ndcg.push(ndcg);
    out.mrr.push(first === -1 ? 0 : 1 / (first + 1));
    out.recall.push(recall);
  }
  return out;
}

/** The distinct pages of ranked chunks, each at its first (best) rank. */
function pagesOf(chunks: string[], pageOfChunk: Map<string, string>): string[] {
  const pages: string[] = [];
  for (const chunk of chunks) {
    const page = pageOfChunk.get(chunk)!;
    if (!pages.includes(page)) pages.push(page);
  }
  return pages;
}

const rankOf = (system: System) => (c: Candidates): string[] => (system === 'hybrid' ? fuse(c, PRODUCT_OPTIONS) : c[system].slice(0, TOP_K));

interface FusionVariant {
  name: string;
  options: FusionSettings;
}

/**
 * `candidates` is what each retriever contributes, max(minCandidates, candidateFactor × top_k):
 * with the default factor 3 nothing below 30 is reachable at top_k 10, so variants set factor 1.
 */
const variant = (name: string, fusion: Partial<FusionOptions>, candidates?: number): FusionVariant => ({
  name,
  options: {
    fusion: { ...PRODUCT_OPTIONS.fusion, ...fusion },
    minCandidates: candidates ?? DEFAULT_SEARCH_OPTIONS.minCandidates,
    candidateFactor: candidates === undefined ? DEFAULT_SEARCH_OPTIONS.candidateFactor : 1,
  },
});

const DEFAULT_CANDIDATES = Math.max(DEFAULT_SEARCH_OPTIONS.minCandidates, DEFAULT_SEARCH_OPTIONS.candidateFactor * TOP_K);
const DEFAULT_VARIANT = variant(`default (k=${PRODUCT_OPTIONS.fusion.k}, v:kw ${PRODUCT_OPTIONS.fusion.weights.join(':')}, candidates ${DEFAULT_CANDIDATES})`, {});
const K_VALUES = [5, 10, 20, 40, 60, 100];
const WEIGHTS = [[0, 1], [1, 10], [1, 6], [1, 4], [1, 3], [1, 2], [2, 3], [1, 1], [3, 2], [2, 1], [3, 1]];
const CANDIDATE_COUNTS = [10, 20, 30, 50, 100];
/**
 * The peer's ranking (BM25+ over unstemmed words, stop words kept, title and text) fused as a third
 * list: what a second keyword leg in SearchService would add to the product's two.
 */
const PEER_VARIANTS: FusionVariant[] = [5, 10, 20].flatMap((k) =>
  [[1, 4, 1], [1, 4, 2], [1, 4, 3], [1, 4, 4]].map((w) => variant(`+ peer: k=${k}, v:kw:peer ${w.join(':')}`, { k, weights: w })),
);
/** One factor at a time around the defaults. */
const FUSION_VARIANTS: FusionVariant[] = [
  DEFAULT_VARIANT,
  ...(variantGroups.has('k') ? K_VALUES.filter((k) => k !== PRODUCT_OPTIONS.fusion.k).map((k) => variant(`k=${k}`, { k })) : []),
  ...(variantGroups.has('weights') ? WEIGHTS.filter((w) => w[0] !== w[1]).map((w) => variant(`vector:keyword ${w.join(':')}`, { weights: w })) : []),
  ...(variantGroups.has('candidates') ? CANDIDATE_COUNTS.filter((n) => n !== DEFAULT_CANDIDATES).map((n) => variant(`candidates ${n}`, {}, n)) : []),
  ...(variantGroups.has('peer') ? PEER_VARIANTS : []),
];
/** The full grid over the same values, for interactions the one-factor table misses. */
const GRID: FusionVariant[] = K_VALUES.flatMap((k) =>
  WEIGHTS.flatMap((w) => CANDIDATE_COUNTS.map((n) => variant(`k=${k}, v:kw ${w.join(':')}, candidates ${n}`, { k, weights: w }, n))),
);

const fmt = (x: number, digits = 3): string => x.toFixed(digits);
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${fmt(x)}`;

function printTable(title: string, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

interface SetRun {
  set: BenchQuerySet;
  queries: RetrievalQuery[];
  eligible: number;
  /** Sampled queries whose term is also, verbatim, an English index term (or description) of the same page. */
  sameAsEnglish: number;
  retrieved: Retrieved;
  candidates: Candidates[];
  pageOfChunk: Map<string, string>;
  modes: Record<System, PerQuery>;
}

interface LanguageRun {
  language: string;
  chunkTarget: number;
  stats: Ingested['stats'];
  peerIndexSeconds: number;
  sets: SetRun[];
}

/** The text an index term or description gives as a query in a query set. */
const queryText = (term: string, set: BenchQuerySet): string => queryOf(term, set === 'descriptions' ? 'entries' : set);
const englishIndex: IndexEntry[] = await collectionSource.englishIndex(cacheDir);
/** `page \t query` of the English index in each query set, to spot terms left untranslated. */
const englishQueries = Object.fromEntries(
  querySets.map((set) => [set, new Set(englishIndex.map((e) => `${e.page}\t${queryText(e.term, set).toLocaleLowerCase('und')}`))]),
) as Record<BenchQuerySet, Set<string>>;

/** `--tune`: the keyword ranking's parameters tried (k1 × b × title weight), each over every query of the first set. */
const numbers = (name: string, s: string): number[] =>
  list(s).map((x) => {
    const n = Number(x);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}: '${x}' is not a non-negative number`);
    return n;
  });
const tuneLabel = (p: Bm25Parameters) => `k1 ${p.k1}, b ${p.b}, title ${p.titleWeight}`;
/** The grid, and the setting in use whether or not the grid holds it (every setting is compared with it). */
const TUNE_GRID: Bm25Parameters[] = [
  ...numbers('tune-k1', values['tune-k1']).flatMap((k1) =>
    numbers('tune-b', values['tune-b']).flatMap((b) => numbers('tune-title', values['tune-title']).map((titleWeight) => ({ k1, b, titleWeight }))),
  ),
  DEFAULT_SEARCH_OPTIONS.bm25,
].filter((p, i, all) => all.findIndex((q) => tuneLabel(q) === tuneLabel(p)) === i);
/** Per language, keyword nDCG@10 per query for each TUNE_GRID setting (by label). */
const tuned = new Map<string, Map<string, number[]>>();

async function tune(target: Ingested, queries: RetrievalQuery[], language: string): Promise<void> {
  const byLabel = new Map<string, number[]>();
  for (const bm25 of TUNE_GRID) {
    const search = target.search({ ...DEFAULT_SEARCH_OPTIONS, mode: 'keyword', bm25, minCandidates: MAX_CANDIDATES, candidateFactor: 1 });
    const candidates: Candidates[] = [];
    for (const q of queries) {
      const keyword = chunkIds((await search.query(target.ctx, request(target, q.query, TOP_K))).results, target);
      candidates.push({ vector: [], keyword, peer: [], peerText: [], keywordOwn: [], keywordCoverDensity: [] });
    }
    byLabel.set(tuneLabel(bm25), score({ candidates, queries, pageOfChunk: target.pageOfChunk }, (c) => c.keyword).ndcg);
  }
  tuned.set(language, byLabel);
}

/** A keyword-search setting one experiment tries (`--feedback`, `--proximity`), over the product's options. */
interface KeywordSetting {
  label: string;
  options: Partial<SearchOptions>;
}
interface KeywordExperiment {
  title: string;
  settings: KeywordSetting[];
  /** Per language, per setting (by label): keyword and fused (product fusion) nDCG@10 per query. */
  scores: Map<string, Map<string, { keyword: number[]; fused: number[] }>>;
}
/** `none`: the experiment's technique turned off (`off`), which every setting is compared with. */
const experiment = (title: string, off: Partial<SearchOptions>, settings: KeywordSetting[]): KeywordExperiment => ({
  title,
  settings: [{ label: 'none', options: off }, ...settings],
  scores: new Map(),
});
/** The experiments asked for, each tried on the first query set. */
const KEYWORD_EXPERIMENTS: KeywordExperiment[] = [
  ...(values.feedback
    ? [
        experiment(
          "Pseudo-relevance feedback (--feedback; the first search's best chunk kept first)",
          { feedback: null },
          numbers('feedback-documents', values['feedback-documents']).flatMap((documents) =>
            numbers('feedback-terms', values['feedback-terms']).flatMap((terms) =>
              numbers('feedback-weight', values['feedback-weight']).map((queryWeight) => ({
                label: `${documents} chunks, ${terms} terms, λ ${queryWeight}`,
                options: { feedback: { documents, terms, queryWeight } },
              })),
            ),
          ),
        ),
      ]
    : []),
  ...(values.proximity
    ? [
        experiment(
          'Term proximity (--proximity; keyword candidates re-ordered by BM25F plus proximity)',
          { proximity: null },
          numbers('proximity-weight', values['proximity-weight']).flatMap((weight) =>
            numbers('proximity-window', values['proximity-window']).flatMap((window) =>
              numbers('proximity-candidates', values['proximity-candidates']).map((candidates) => ({
                label: `weight ${weight}, window ${window}, ${candidates} candidates`,
                options: { proximity: { weight, window, candidates } },
              })),
            ),
          ),
        ),
      ]
    : []),
];

async function tryKeywordSettings(target: Ingested, queries: RetrievalQuery[], language: string, retrieved: Candidates[]): Promise<void> {
  for (const { settings, scores } of KEYWORD_EXPERIMENTS) {
    const byLabel = new Map<string, { keyword: number[]; fused: number[] }>();
    for (const { label, options } of settings) {
      const search = target.search({ ...DEFAULT_SEARCH_OPTIONS, ...options, mode: 'keyword', minCandidates: MAX_CANDIDATES, candidateFactor: 1 });
      const candidates: Candidates[] = [];
      for (const [i, q] of queries.entries()) {
        const keyword = chunkIds((await search.query(target.ctx, request(target, q.query, MAX_CANDIDATES))).results, target);
        candidates.push({ ...retrieved[i]!, keyword });
      }
      const base = { candidates, queries, pageOfChunk: target.pageOfChunk };
      byLabel.set(label, { keyword: score(base, (c) => c.keyword).ndcg, fused: score(base, (c) => fuse(c, PRODUCT_OPTIONS)).ndcg });
    }
    scores.set(language, byLabel);
  }
}

/** Each language's collection, loaded once: a language may be ingested and also be a `--cross` source. */
const collections = new Map<string, Promise<BenchCollection>>();
function collection(language: string): Promise<BenchCollection> {
  const loaded = collections.get(language) ?? loadCollection(language);
  collections.set(language, loaded);
  return loaded;
}

/** `--cross`: one pair's figures on one query set. */
interface CrossResult {
  pair: CrossPair;
  set: BenchQuerySet;
  /** A's queries drawn; `queries` keeps those with a relevant page in B, judged by those pages only. */
  sampled: number;
  queries: RetrievalQuery[];
  run: CrossRun;
  translated: Record<CrossMode, PerQuery>;
  untranslated: Record<CrossMode, PerQuery>;
  translationAlone: PerQuery | undefined;
  /** Fused with `source_language` A, and with each of `translationWhatIfs` (in order). */
  declaredSource: PerQuery;
  whatIfs: PerQuery[];
  /** B's own queries on B's knowledge base: B's same-language run. */
  sameLanguage: Record<CrossMode, PerQuery>;
}
const crossResults: CrossResult[] = [];

/** Every `--cross` pair into the knowledge base `target` holds, on each query set its own run used. */
async function measureCross(target: Ingested, language: string, setRuns: SetRun[]): Promise<void> {
  const pagesHere = new Set(target.pageOfDocument.values());
  for (const pair of crossPairs.filter((p) => p.target === language)) {
    const source = await collection(pair.source);
    for (const own of setRuns) {
      const started = performance.now();
      const sampled = source.crossQueries(own.set, pagesHere);
      const queries = sampled
        .map((q) => ({ query: q.query, relevant: new Set([...q.relevant].filter((page) => pagesHere.has(page))) }))
        .filter((q) => q.relevant.size > 0);
      const run = await runCrossPair({ ...target, chunkIds: (results) => chunkIds(results, target) }, pair, queries.map((q) => q.query), {
        topK: TOP_K,
        productOptions: PRODUCT_OPTIONS,
        whatIfs: translationWhatIfs,
      });
      if (dumpFile) {
        const top = (chunks: string[]) => pagesOf(chunks, target.pageOfChunk).slice(0, TOP_K);
        const lines = queries.map((q, i) => {
          const ranked = { fused: top(run.translated.hybrid[i]!), declared: top(run.declaredSource[i]!) };
          return JSON.stringify({ language: pairLabel(pair), set: own.set, query: q.query, relevant: [...q.relevant], ranked });
        });
        await fs.appendFile(dumpFile, `${lines.join('\n')}\n`);
      }
      const scored = (lists: string[][]) => score({ candidates: lists, queries, pageOfChunk: target.pageOfChunk }, (ids) => ids);
      const byMode = (lists: Record<CrossMode, string[][]>) => Object.fromEntries(CROSS_MODES.map((m) => [m, scored(lists[m])])) as Record<CrossMode, PerQuery>;
      const result: CrossResult = {
        pair,
        set: own.set,
        sampled: sampled.length,
        queries,
        run,
        translated: byMode(run.translated),
        untranslated: byMode(run.untranslated),
        translationAlone: run.translationAlone && scored(run.translationAlone),
        declaredSource: scored(run.declaredSource),
        whatIfs: run.whatIfs.map((ranked) => scored(ranked)),
        sameLanguage: { hybrid: own.modes.hybrid, keyword: own.modes.keyword, vector: own.modes.vector },
      };
      crossResults.push(result);
      console.log(
        `  ${pairLabel(pair)} (${own.set}): ${queries.length} of ${sampled.length} queries with a relevant page here, ` +
          `${run.translationMs.cold.filter((ms) => ms !== undefined).length} translated; fused nDCG@10 ` +
          `${fmt(mean(result.translated.hybrid.ndcg))} with translation, ${fmt(mean(result.untranslated.hybrid.ndcg))} without ` +
          `(${language}'s own ${fmt(mean(own.modes.hybrid.ndcg))}); ${fmt((performance.now() - started) / 1000, 0)} s`,
      );
    }
  }
}

async function run(help: BenchCollection, chunkTarget: number, sets: BenchQuerySet[]): Promise<LanguageRun> {
  const target = await ingest(help, chunkTarget);
  try {
    const s = target.stats;
    const t0 = performance.now();
    const peers: Peers = {
      peer: await bm25Peer(target.db, target.knowledgeBaseId, ['title', 'content']),
      peerText: await bm25Peer(target.db, target.knowledgeBaseId, ['content']),
    };
    const peerIndexSeconds = (performance.now() - t0) / 1000;
    console.log(
      `${help.language}, chunk target ${chunkTarget}: ${help.pages.length} pages, ${s.documents} ready, ${s.notReady} not ready, ` +
        `${s.chunks} chunks, ingested in ${fmt(s.storeSeconds + s.indexSeconds, 0)} s; BM25 peers indexed in ${fmt(peerIndexSeconds, 1)} s`,
    );
    const setRuns: SetRun[] = [];
    // Every chunk's text and lexemes, read once for all the query sets.
    const featureWriter = featuresFile ? await FeatureWriter.load(target.db, target.knowledgeBaseId) : undefined;
    for (const set of sets) {
      const sampled = help.sample(set, new Set(target.pageOfDocument.values()));
      const { eligible } = sampled;
      // `--unaccented-queries`: the queries as typed by someone who leaves accents out.
      const queries = values['unaccented-queries'] ? sampled.queries.map((q) => ({ ...q, query: foldAccents(q.query) })) : sampled.queries;
      const retrieved = await retrieve(target, peers, help.language, queries);
      if (values.tune && set === sets[0] && chunkTarget === DEFAULT_CHUNK_TARGET) await tune(target, queries, help.language);
      if (set === sets[0] && chunkTarget === DEFAULT_CHUNK_TARGET) await tryKeywordSettings(target, queries, help.language, retrieved.candidates);
      const base = { candidates: retrieved.candidates, queries, pageOfChunk: target.pageOfChunk };
      const modes = Object.fromEntries(SYSTEMS.map((m) => [m, score(base, rankOf(m))])) as Record<System, PerQuery>;
      const english = englishQueries[set];
      const sameAsEnglish = queries.filter((q) => [...q.relevant].some((p) => english.has(`${p}\t${q.query.toLocaleLowerCase('und')}`))).length;
      setRuns.push({ set, eligible, sameAsEnglish, retrieved, ...base, modes });
      if (dumpFile) {
        const lines = queries.map((q, i) => {
          const c = retrieved.candidates[i]!;
          const ranked = Object.fromEntries(SYSTEMS.map((m) => [m, pagesOf(rankOf(m)(c), target.pageOfChunk).slice(0, TOP_K)]));
          const ndcg = Object.fromEntries(SYSTEMS.map((m) => [m, modes[m].ndcg[i]]));
          return JSON.stringify({ language: help.language, set, query: q.query, relevant: [...q.relevant], ndcg, ranked });
        });
        await fs.appendFile(dumpFile, `${lines.join('\n')}\n`);
      }
      if (featureWriter) {
        const lines: string[] = [];
        for (const [i, q] of queries.entries()) {
          const c = retrieved.candidates[i]!;
          lines.push(await featureWriter.line({ collection: collectionName, language: help.language, set }, q, c.keyword, c.vector, target.pageOfChunk));
        }
        await fs.appendFile(featuresFile!, `${lines.join('\n')}\n`);
      }
      console.log(
        `  ${set}: ${queries.length} of ${eligible} eligible ${described ? 'descriptions' : 'terms'}; nDCG@10 ` +
          SYSTEMS.map((m) => `${SYSTEM_LABELS[m]} ${fmt(mean(modes[m].ndcg))}`).join(', ') +
          `; hybrid check ${retrieved.checked - retrieved.mismatches.length}/${retrieved.checked} identical`,
      );
      if (retrieved.mismatches.length) {
        console.log(`  WARNING: local fusion differs from SearchService (hybrid) for: ${retrieved.mismatches.slice(0, 5).join(' | ')}`);
      }
    }
    if (chunkTarget === DEFAULT_CHUNK_TARGET) await measureCross(target, help.language, setRuns);
    return { language: help.language, chunkTarget, stats: s, peerIndexSeconds, sets: setRuns };
  } finally {
    await target.close();
  }
}

const HELD_BACK_NOTE = 'HELD BACK: for checking only, never for tuning';
if (heldBack) console.log(`Collection: ${collectionSource.title} (${HELD_BACK_NOTE}).`);

const started = performance.now();
const runs: LanguageRun[] = [];
const versions = new Set<string>();
for (const language of languages) {
  const help = await collection(language);
  versions.add(help.version);
  runs.push(await run(help, DEFAULT_CHUNK_TARGET, querySets));
  if (chunkLanguages.includes(language)) {
    for (const size of chunkSizes.filter((n) => n !== DEFAULT_CHUNK_TARGET)) runs.push(await run(help, size, querySets));
  }
}

const main = runs.filter((r) => r.chunkTarget === DEFAULT_CHUNK_TARGET);
const setup = `seed ${seed}, 1-${maxRelevant} relevant pages; top_k ${TOP_K} chunks → documents; embedder ${benchEmbedder.id}, ${dimensions} dimensions; chunk target ${DEFAULT_CHUNK_TARGET}.`;
console.log(
  heldBack
    ? `\nManual pages (${HELD_BACK_NOTE}): ${[...versions].join('; ')} (Debian); each page a document (title 'name(section)', ` +
        `text rendered by groff without its NAME section, at most ${maxDocuments} a language, every judged page kept); queries are ` +
        `NAME descriptions of ${MIN_DESCRIPTION_WORDS}+ words, the page relevant (every page of an identical description), ${setup}`
    : described
      ? `\nDebian package descriptions: ${[...versions].join('; ')}; each package a document (title its name, text its long description, ` +
        `at most ${maxDocuments} a language, every judged package kept); queries are short descriptions of ${MIN_DESCRIPTION_WORDS}+ words, ` +
        `the package relevant (every package of an identical description), ${setup}`
      : `\nLibreOffice help ${[...versions].join(', ')} (Debian); queries are index terms ('--' between levels read as a space), ${setup}`,
);

for (const set of querySets) {
  const rowsOf = main.map((r) => ({ r, s: r.sets.find((x) => x.set === set)! }));
  const sizes = rowsOf.flatMap(({ s }) => s.queries.map((q) => q.relevant.size));
  console.log(
    `\n== Query set '${set}': relevant pages per query mean ${fmt(mean(sizes), 2)}, ` +
      `${fmt((100 * sizes.filter((n) => n === 1).length) / (sizes.length || 1), 0)}% exactly one.`,
  );
  for (const metric of METRICS) {
    const rows = rowsOf.map(({ r, s }) => [
      r.language,
      String(r.stats.documents),
      String(s.queries.length),
      r.language === 'en' ? '-' : `${fmt((100 * s.sameAsEnglish) / (s.queries.length || 1), 0)}%`,
      ...SYSTEMS.map((m) => fmt(mean(s.modes[m][metric]))),
    ]);
    rows.push(['mean', '', '', '', ...SYSTEMS.map((m) => fmt(mean(rowsOf.map(({ s }) => mean(s.modes[m][metric])))))]);
    printTable(
      `${METRIC_LABELS[metric]} (${set}; "as en": share of queries identical to an English ${described ? 'description' : 'index term'} of the page)`,
      ['language', 'docs', 'queries', 'as en', ...SYSTEMS.map((m) => SYSTEM_LABELS[m])],
      rows,
    );
  }

  if (values.diagnostics) {
    const diagnostics = rowsOf.map(({ r, s }) => ({
      r,
      cells: [
        s.modes.keyword.ndcg,
        score(s, (c) => c.keywordOwn.slice(0, TOP_K)).ndcg,
        score(s, (c) => c.keywordCoverDensity.slice(0, TOP_K)).ndcg,
        s.modes.hybrid.ndcg,
        score(s, (c) => fuse(c, PRODUCT_OPTIONS, c.keywordOwn)).ndcg,
        score(s, (c) => fuse(c, PRODUCT_OPTIONS, c.keywordCoverDensity)).ndcg,
      ],
    }));
    const diagnosticRows = diagnostics.map(({ r, cells }) => [r.language, KEYWORD_ANALYSIS[r.language as Language], ...cells.map((x) => fmt(mean(x)))]);
    diagnosticRows.push(['mean', '', ...[0, 1, 2, 3, 4, 5].map((i) => fmt(mean(diagnostics.map((d) => mean(d.cells[i]!)))))]);
    printTable(
      `Diagnostics (${set}), nDCG@10: keyword search as Lore runs it (all text-search configurations OR-ed, ts_rank), ` +
        `with the pages' own configuration only, and ranked by ts_rank_cd with every word selecting; hybrid = default fusion with that keyword list`,
      ['language', 'own config', 'keyword', 'kw own config', 'kw ts_rank_cd', 'hybrid', 'hybrid own config', 'hybrid ts_rank_cd'],
      diagnosticRows,
    );
  }

  if ([...variantGroups].some((g) => g !== 'chunks') && rowsOf.length) {
    const perVariant = (v: FusionVariant, s: SetRun): PerQuery => score(s, (c) => fuse(c, v.options));
    const baseAll = rowsOf.flatMap(({ s }) => perVariant(DEFAULT_VARIANT, s).ndcg);
    const rows = FUSION_VARIANTS.map((v) => {
      const scores = rowsOf.map(({ s }) => perVariant(v, s));
      const all = scores.flatMap((p) => p.ndcg);
      return [
        v.name,
        ...scores.map((p) => fmt(mean(p.ndcg))),
        fmt(mean(scores.map((p) => mean(p.ndcg)))),
        v === DEFAULT_VARIANT ? '' : `${signed(mean(all) - mean(baseAll))} ± ${fmt(pairedStandardError(baseAll, all))}`,
        fmt(mean(scores.map((p) => mean(p.recall)))),
      ];
    });
    printTable(
      `Fusion variants (${set}), one factor at a time: hybrid nDCG@10 (Δ vs default over all queries ± paired standard error)`,
      ['variant', ...rowsOf.map(({ r }) => r.language), 'mean', 'Δ', 'recall mean'],
      rows,
    );
    const grid = GRID.map((v) => {
      const scores = rowsOf.map(({ s }) => perVariant(v, s));
      return { v, perLanguage: scores.map((p) => mean(p.ndcg)), mean: mean(scores.map((p) => mean(p.ndcg))), all: scores.flatMap((p) => p.ndcg) };
    }).sort((a, b) => b.mean - a.mean);
    printTable(
      `Best of the ${GRID.length}-setting grid (${set}; k × weights × candidates): hybrid nDCG@10, chosen on these same queries, so optimistic`,
      ['setting', ...rowsOf.map(({ r }) => r.language), 'mean', 'Δ'],
      grid.slice(0, 8).map((g) => [
        g.v.name,
        ...g.perLanguage.map((x) => fmt(x)),
        fmt(g.mean),
        `${signed(mean(g.all) - mean(baseAll))} ± ${fmt(pairedStandardError(baseAll, g.all))}`,
      ]),
    );
  }

  const chunkRuns = runs
    .filter((r) => chunkLanguages.includes(r.language))
    .sort((a, b) => a.language.localeCompare(b.language) || a.chunkTarget - b.chunkTarget);
  if (chunkRuns.some((r) => r.chunkTarget !== DEFAULT_CHUNK_TARGET)) {
    printTable(
      `Chunk size (${set}; CHUNK_TARGET_CHARS, re-ingested): nDCG@10 per system with default fusion, and hybrid recall@10`,
      ['language', 'chunk target', 'chunks', ...SYSTEMS.map((m) => SYSTEM_LABELS[m]), 'hybrid recall'],
      chunkRuns.map((r) => {
        const s = r.sets.find((x) => x.set === set)!;
        return [r.language, String(r.chunkTarget), String(r.stats.chunks), ...SYSTEMS.map((m) => fmt(mean(s.modes[m].ndcg))), fmt(mean(s.modes.hybrid.recall))];
      }),
    );
  }
}

printTable(
  'Ingestion: documents.ingest for every page, then engine.drain() (one job at a time)',
  ['language', 'chunk target', 'docs', 'chunks', 'store s', 'index s', 'chunks/s', 'docs/s', 'BM25 peers s'],
  runs.map((r) => {
    const total = r.stats.storeSeconds + r.stats.indexSeconds;
    return [
      r.language,
      String(r.chunkTarget),
      String(r.stats.documents),
      String(r.stats.chunks),
      fmt(r.stats.storeSeconds, 1),
      fmt(r.stats.indexSeconds, 1),
      fmt(r.stats.chunks / total, 1),
      fmt(r.stats.documents / total, 1),
      fmt(r.peerIndexSeconds, 1),
    ];
  }),
);

printTable(
  'Query latency, ms per query, sequential (vector, keyword, BM25 peer over title and text: alone, 100 candidates; hybrid: default options, checked queries only)',
  ['language', 'chunk target', 'query set', 'vector', 'keyword', 'BM25 peer', 'hybrid'],
  runs.flatMap((r) =>
    r.sets.map((s) => [
      r.language,
      String(r.chunkTarget),
      s.set,
      fmt(s.retrieved.vectorMs, 0),
      fmt(s.retrieved.keywordMs, 0),
      fmt(s.retrieved.peerMs, 1),
      fmt(s.retrieved.hybridMs, 0),
    ]),
  ),
);

if (tuned.size) {
  const tunedLanguages = [...tuned.keys()];
  const rows = TUNE_GRID.map((p) => {
    const label = tuneLabel(p);
    const perLanguage = tunedLanguages.map((l) => mean(tuned.get(l)!.get(label)!));
    return { label, perLanguage, mean: mean(perLanguage) };
  }).sort((a, b) => b.mean - a.mean);
  const current = tuneLabel(DEFAULT_SEARCH_OPTIONS.bm25);
  printTable(
    `Keyword ranking parameters (--tune; keyword nDCG@10 on ${querySets[0]}, the same queries, best mean first; in use: ${current})`,
    ['setting', ...tunedLanguages, 'mean'],
    rows.map((r) => [r.label === current ? `${r.label} (in use)` : r.label, ...r.perLanguage.map((x) => fmt(x)), fmt(r.mean)]),
  );
  const best = tunedLanguages.map((l) => {
    const [label, scores] = [...tuned.get(l)!].sort((a, b) => mean(b[1]) - mean(a[1]))[0]!;
    return [l, label, fmt(mean(scores)), fmt(mean(tuned.get(l)!.get(current)!)), fmt(pairedStandardError(tuned.get(l)!.get(current)!, scores), 3)];
  });
  printTable('Best setting per language (nDCG@10; against the setting in use, with the standard error of the difference)', ['language', 'best', 'nDCG@10', 'in use', 'SE'], best);
}

for (const { title, settings, scores } of KEYWORD_EXPERIMENTS) {
  const tried = [...scores.keys()];
  if (!tried.length) continue;
  for (const side of ['keyword', 'fused'] as const) {
    printTable(
      `${title}: ${side} nDCG@10 on ${querySets[0]}, the same queries; SE: standard error of the mean difference from none`,
      ['setting', ...tried, 'mean', 'SE'],
      settings.map(({ label }, i) => {
        const perLanguage = tried.map((l) => mean(scores.get(l)!.get(label)![side]));
        const all = tried.flatMap((l) => scores.get(l)!.get(label)![side]);
        const none = tried.flatMap((l) => scores.get(l)!.get('none')![side]);
        return [label, ...perLanguage.map((x) => fmt(x)), fmt(mean(perLanguage)), i > 0 ? fmt(pairedStandardError(none, all), 3) : '-'];
      }),
    );
  }
}

/** Issue 21's bar: cross-lingual fused nDCG@10 at least this share of the target language's own, for pairs with an engine. */
const CROSS_TARGET_RATIO = 0.8;
const routeLabel = (route: CrossRun['route']): string =>
  !route ? 'same language' : route.status === 'unavailable' ? 'none' : `${route.engine}${route.pivot ? ` via ${route.pivot}` : ''}${route.status === 'failed' ? ' (probe FAILED)' : ''}`;
/** Mean, median and 95th percentile of the defined values, in ms; '-' when there are none. */
function msStats(values: Array<number | undefined>): string[] {
  const ms = values.filter((x): x is number => x !== undefined);
  return ms.length ? [fmt(mean(ms), 0), fmt(median(ms), 0), fmt(percentile(ms, 95), 0)] : ['-', '-', '-'];
}

for (const set of querySets) {
  const results = crossResults.filter((r) => r.set === set);
  if (!results.length) continue;
  const figure = (p: PerQuery | undefined, metric: Metric): string => (p ? fmt(mean(p[metric])) : '-');
  printTable(
    `Cross-lingual retrieval (${set}; A>B: A's first ${crossQueryCount} queries on B's knowledge base through QueryService, fused; ` +
      `"with": query_translation auto, "without": never; "same": B's own queries on B; ratio = with / same, ` +
      `issue 21 asks ≥ ${CROSS_TARGET_RATIO} for pairs with an engine)`,
    ['pair', 'engine', 'queries', 'translated', 'nDCG with', 'without', 'same', 'ratio', 'met', 'MRR with', 'without', 'same', 'recall with', 'without', 'same'],
    results.map((r) => {
      const ratio = mean(r.translated.hybrid.ndcg) / mean(r.sameLanguage.hybrid.ndcg);
      const hasEngine = r.run.route !== undefined && r.run.route.status !== 'unavailable';
      const fused = (metric: Metric) => [figure(r.translated.hybrid, metric), figure(r.untranslated.hybrid, metric), figure(r.sameLanguage.hybrid, metric)];
      return [
        pairLabel(r.pair),
        routeLabel(r.run.route),
        String(r.queries.length),
        String(r.run.translationMs.cold.filter((ms) => ms !== undefined).length),
        ...fused('ndcg'),
        fmt(ratio, 2),
        hasEngine ? (ratio >= CROSS_TARGET_RATIO ? 'yes' : 'no') : '-',
        ...fused('mrr'),
        ...fused('recall'),
      ];
    }),
  );
  printTable(
    `Cross-lingual nDCG@10 by retriever (${set}; with / without translation / B's same-language figure), and a what-if outside Lore's path: ` +
      `the query translated from its known language and searched alone (fused), without detection and without the untranslated leg`,
    ['pair', 'keyword with', 'without', 'same', 'vector with', 'without', 'same', 'fused with', 'without', 'same', 'translation alone'],
    results.map((r) => [
      pairLabel(r.pair),
      ...(['keyword', 'vector', 'hybrid'] as const).flatMap((m) => [figure(r.translated[m], 'ndcg'), figure(r.untranslated[m], 'ndcg'), figure(r.sameLanguage[m], 'ndcg')]),
      figure(r.translationAlone, 'ndcg'),
    ]),
  );
  printTable(
    `Cross-lingual fused nDCG@10, what-ifs on Lore's path (${set}): the product (source_language auto); source_language set to the ` +
      `queries' language; and each set of query translation options asked for (--untranslated-weights, --translation-options)`,
    ['pair', 'product', 'declared source', ...translationWhatIfs.map(whatIfLabel)],
    [
      ...results.map((r) => [
        pairLabel(r.pair),
        figure(r.translated.hybrid, 'ndcg'),
        figure(r.declaredSource, 'ndcg'),
        ...r.whatIfs.map((p) => figure(p, 'ndcg')),
      ]),
      [
        'mean',
        fmt(mean(results.map((r) => mean(r.translated.hybrid.ndcg)))),
        fmt(mean(results.map((r) => mean(r.declaredSource.ndcg)))),
        ...translationWhatIfs.map((_, i) => fmt(mean(results.map((r) => mean(r.whatIfs[i]!.ndcg))))),
      ],
    ],
  );
  printTable(
    `Cross-lingual translation (${set}): what Lore detects and translates into, and the cost per translated query ` +
      `(Lore's translation_latency_ms: detection and translation), cold (first pass) and from the translation cache (second pass ` +
      `of the same queries); query ms = QueryService.run, fused`,
    [
      'pair',
      'query detected as',
      'KB languages',
      'translated',
      'cold mean',
      'p50',
      'p95',
      'cached mean',
      'p50',
      'p95',
      'query ms cold',
      'cached',
      'without',
      'changed',
    ],
    results.map((r) => [
      pairLabel(r.pair),
      [...r.run.detected].sort((a, b) => b[1] - a[1]).map(([language, n]) => `${language} ${n}`).join(', '),
      r.run.knowledgeBaseLanguages.join(', '),
      String(r.run.translationMs.cold.filter((ms) => ms !== undefined).length),
      ...msStats(r.run.translationMs.cold),
      ...msStats(r.run.translationMs.warm),
      fmt(mean(r.run.queryMs.cold), 0),
      fmt(mean(r.run.queryMs.warm), 0),
      fmt(mean(r.run.queryMs.untranslated), 0),
      String(r.run.unstable),
    ]),
  );
}

// Last, so a run's headline figures are at the end of its log.
for (const set of querySets) {
  const perLanguage = main.map((r) => ({ language: r.language, modes: r.sets.find((x) => x.set === set)!.modes }));
  printTable(
    `Summary (${collectionSource.title}${heldBack ? `, ${HELD_BACK_NOTE}` : ''}; ${set}): ` +
      `Lore's keyword, vector and fused search against a plain BM25 on the same chunks, at document level`,
    ['language', 'metric', ...SYSTEMS.map((m) => SYSTEM_LABELS[m])],
    [
      ...perLanguage.flatMap(({ language, modes }) =>
        METRICS.map((metric) => [language, METRIC_LABELS[metric], ...SYSTEMS.map((m) => fmt(mean(modes[m][metric])))]),
      ),
      ...METRICS.map((metric) => ['mean', METRIC_LABELS[metric], ...SYSTEMS.map((m) => fmt(mean(perLanguage.map(({ modes }) => mean(modes[m][metric])))))]),
    ],
  );
}

console.log(`\nTotal ${fmt((performance.now() - started) / 1000, 0)} s.`);
