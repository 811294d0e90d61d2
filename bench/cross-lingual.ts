/**
 * Cross-lingual retrieval for bench/retrieval-quality.bench.ts (`--cross A>B,…`, issue 21): the
 * queries of language A asked of the knowledge base that holds language B's help pages, through
 * Lore's own query path (`QueryService`, what POST /v1/query runs), once with the knowledge base's
 * `query_translation` set to `auto` and once set to `never`, the baseline.
 *
 * With `auto`, Lore detects the query's language, translates the query into each language of the
 * knowledge base other than that one (its documents' languages holding at least MIN_LANGUAGE_SHARE
 * of them), searches again with each translation and fuses the rankings by reciprocal rank; the
 * translations go through the translation cache. This module only asks Lore and times it; the
 * bench scores the rankings and prints them.
 */
import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../core/context.js';
import type { PairStatus } from '../core/ports/translator.js';
import { QueryService } from '../core/search/query.service.js';
import type { QueryRequest, QueryResultItem } from '../core/search/search.schema.js';
import type { SearchOptions, SearchService } from '../core/search/search.service.js';
import type { Scope } from '../core/shared/scope.js';
import { MIN_LANGUAGE_SHARE, QUERY_TRANSLATION_OPTIONS, type QueryTranslationOptions, QueryTranslationService } from '../core/translation/query-translation.service.js';
import { documentLanguageShares } from '../core/translation/translation.repository.js';
import type { Language, TranslationConfig } from '../core/translation/translation.schema.js';
import { isLanguage } from '../core/translation/translation.service.js';
import type { Services } from '../runtime/services.js';

/** Queries of `source`'s help asked of the knowledge base of `target`'s help. */
export interface CrossPair {
  source: Language;
  target: Language;
}

export const pairLabel = (pair: CrossPair): string => `${pair.source}>${pair.target}`;

/** `en>es,es>en`: each pair once, in the order given; both languages must be among `known`. */
export function parseCrossPairs(arg: string, known: readonly string[]): CrossPair[] {
  const pairs = new Map<string, CrossPair>();
  for (const item of arg.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [source, target, ...rest] = item.split('>').map((s) => s.trim());
    if (!source || !target || rest.length) throw new Error(`--cross: '${item}' is not a pair like en>es`);
    for (const language of [source, target]) {
      if (!known.includes(language) || !isLanguage(language)) throw new Error(`--cross: unknown language '${language}' in '${item}'; use ${known.join(', ')}`);
    }
    const pair = { source: source as Language, target: target as Language };
    pairs.set(pairLabel(pair), pair);
  }
  return [...pairs.values()];
}

/** The ingested knowledge base of the target language, and how to search it. */
export interface CrossTarget {
  services: Services;
  scope: Scope;
  ctx: RequestContext;
  knowledgeBaseId: string;
  /** A SearchService over the run's indexes with these options. */
  search(options: SearchOptions): SearchService;
  /** The results' chunk ids, checked to be chunks of this run. */
  chunkIds(results: QueryResultItem[]): string[];
}

/** The search modes measured: Lore's product (fused) and each retriever alone. */
export const CROSS_MODES = ['hybrid', 'keyword', 'vector'] as const;
export type CrossMode = (typeof CROSS_MODES)[number];

export interface CrossRun {
  /** How the target's Lore serves the pair, from its translator's own probe (engine, pivot, status). */
  route: PairStatus | undefined;
  /** The knowledge base's languages as query translation sees them (its translation targets). */
  knowledgeBaseLanguages: Language[];
  /** How many queries the detector assigns to each language ('none': undetected). */
  detected: Map<string, number>;
  /** Ranked chunk ids per query and mode, with `query_translation: auto` and with `never`. */
  translated: Record<CrossMode, string[][]>;
  untranslated: Record<CrossMode, string[][]>;
  /**
   * What-if (not Lore's path): the query translated from its known source language and searched
   * alone, without detection and without the untranslated leg; undefined when no engine serves the pair.
   */
  translationAlone: string[][] | undefined;
  /**
   * Lore's `translation_latency_ms` per query (detection and translation; the value POST /v1/query
   * returns) on the first, cold-cache pass and on a second pass of the same queries; undefined
   * where no translated leg ran.
   */
  translationMs: { cold: Array<number | undefined>; warm: Array<number | undefined> };
  /** Milliseconds of `QueryService.run` per query, fused: translated (cold, warm) and untranslated. */
  queryMs: { cold: number[]; warm: number[]; untranslated: number[] };
  /** Queries the warm pass ranked differently from the cold one (the cache should change nothing). */
  unstable: number;
  /** Fused, with `source_language` set to the pair's source (as a client that knows it would): no detection. */
  declaredSource: string[][];
  /** Fused with `auto` again, with each of `options.whatIfs`' query translation options in place of the product's. */
  whatIfs: string[][][];
}

interface Pass {
  ranked: string[][];
  ms: number[];
  translationMs: Array<number | undefined>;
}

/**
 * Asks `queries` (in the pair's source language) of the target's knowledge base through
 * `QueryService` with the runtime's own usage metering and query translation, in each mode, with
 * the knowledge base's `query_translation` at `auto` (fused twice: cold and warm translation cache)
 * and at `never`. The knowledge base's translation settings are cleared afterwards.
 */
export async function runCrossPair(
  target: CrossTarget,
  pair: CrossPair,
  queries: string[],
  options: { topK: number; productOptions: SearchOptions; whatIfs?: ReadonlyArray<Partial<QueryTranslationOptions>> },
): Promise<CrossRun> {
  const { services, scope, ctx, knowledgeBaseId } = target;
  const queryService = (mode: CrossMode, what: Partial<QueryTranslationOptions> = {}) =>
    new QueryService(
      target.search({ ...options.productOptions, mode }),
      services.usage,
      new QueryTranslationService(services.db, services.translation, services.subTenants, { ...QUERY_TRANSLATION_OPTIONS, ...what }),
      services.adapters.metrics,
    );
  const pass = async (service: QueryService, sourceLanguage: QueryRequest['source_language'] = 'auto'): Promise<Pass> => {
    const out: Pass = { ranked: [], ms: [], translationMs: [] };
    for (const query of queries) {
      const request: QueryRequest = { query, top_k: options.topK, knowledge_base_ids: [knowledgeBaseId], source_language: sourceLanguage };
      const started = performance.now();
      const answer = await service.run(ctx, request);
      out.ms.push(performance.now() - started);
      out.ranked.push(target.chunkIds(answer.results));
      out.translationMs.push(answer.metadata?.translation_latency_ms);
    }
    return out;
  };
  const setQueryTranslation = (translation_config: TranslationConfig) =>
    services.knowledgeBases.update(scope, knowledgeBaseId, { translation_config });
  const byMode = Object.fromEntries(CROSS_MODES.map((m) => [m, queryService(m)])) as Record<CrossMode, QueryService>;

  const route = pair.source === pair.target ? undefined : (await services.translation.health()).models.find((s) => s.source === pair.source && s.target === pair.target);
  const knowledgeBaseLanguages = [...((await documentLanguageShares(services.db, scope, [knowledgeBaseId], MIN_LANGUAGE_SHARE)).get(knowledgeBaseId)?.keys() ?? [])];
  const detected = new Map<string, number>();
  for (const query of queries) {
    const language = services.translation.detect(query).language ?? 'none';
    detected.set(language, (detected.get(language) ?? 0) + 1);
  }

  try {
    await setQueryTranslation({ query_translation: 'auto' });
    const cold = await pass(byMode.hybrid);
    const warm = await pass(byMode.hybrid);
    const declaredSource = (await pass(byMode.hybrid, pair.source)).ranked;
    const whatIfs = [];
    for (const what of options.whatIfs ?? []) whatIfs.push((await pass(queryService('hybrid', what))).ranked);
    const keyword = await pass(byMode.keyword);
    const vector = await pass(byMode.vector);
    await setQueryTranslation({ query_translation: 'never' });
    const untranslated = {} as Record<CrossMode, string[][]>;
    let untranslatedMs: number[] = [];
    for (const mode of CROSS_MODES) {
      const p = await pass(byMode[mode]);
      untranslated[mode] = p.ranked;
      if (mode === 'hybrid') untranslatedMs = p.ms;
    }
    return {
      route,
      knowledgeBaseLanguages,
      detected,
      translated: { hybrid: cold.ranked, keyword: keyword.ranked, vector: vector.ranked },
      untranslated,
      translationAlone: await translationAlone(target, pair, queries, options),
      translationMs: { cold: cold.translationMs, warm: warm.translationMs },
      queryMs: { cold: cold.ms, warm: warm.ms, untranslated: untranslatedMs },
      unstable: cold.ranked.filter((r, i) => r.join() !== warm.ranked[i]!.join()).length,
      declaredSource,
      whatIfs,
    };
  } finally {
    await setQueryTranslation({});
  }
}

/** The what-if of `CrossRun.translationAlone`: Lore's translation and dictionary look-up (and cache) and fused search, nothing else. */
async function translationAlone(
  target: CrossTarget,
  pair: CrossPair,
  queries: string[],
  options: { topK: number; productOptions: SearchOptions },
): Promise<string[][] | undefined> {
  const { services, scope, ctx, knowledgeBaseId } = target;
  if (pair.source === pair.target || !(await services.translation.serves(pair))) return undefined;
  const search = target.search(options.productOptions);
  const ranked: string[][] = [];
  for (const query of queries) {
    const [translated] = (await services.translation.translateTexts(scope, [query], pair)).texts;
    const words = (await services.translation.lookUpWords(scope, [query], pair))?.[0];
    const request: QueryRequest = { query: translated!, top_k: options.topK, knowledge_base_ids: [knowledgeBaseId], source_language: 'auto' };
    ranked.push(target.chunkIds((await search.query(ctx, request, words && [{ language: pair.target, words }])).results));
  }
  return ranked;
}
