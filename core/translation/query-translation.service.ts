import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import type { KnowledgeBaseRow } from '../knowledge-bases/knowledge-base.repository.js';
import { TranslatorError, type WordTranslations } from '../ports/translator.js';
import { reciprocalRankFusion } from '../search/fusion.js';
import type { QueryRequest, QueryResultItem, UntranslatedReason } from '../search/search.schema.js';
import type { SearchAnswer } from '../search/search.service.js';
import { scopeOf } from '../shared/scope.js';
import type { SubTenantService } from '../sub-tenants/sub-tenant.service.js';
import { documentLanguageShares, subTenantTranslationConfigs } from './translation.repository.js';
import type { Language, TranslationConfig } from './translation.schema.js';
import { type Translated, type TranslationService, characters, translationUnavailable } from './translation.service.js';

/** Where a translation setting came from, most specific first: the order of precedence. */
export const CONFIG_LEVELS = ['request', 'user', 'knowledge_base', 'sub_tenant', 'tenant', 'instance_default'] as const;
export type ConfigLevel = (typeof CONFIG_LEVELS)[number];

type Field = keyof TranslationConfig;

/**
 * A language is one of a knowledge base's languages, for query translation, when at least this
 * share of its indexed documents is in it: a handful of stray documents (or misdetected ones)
 * must not send every query of a large knowledge base through a translation and a second search.
 */
export const MIN_LANGUAGE_SHARE = 0.1;

/**
 * The least a search of a translated query weighs against the one that weighs most (1). Each
 * search — the query as asked, each translation — weighs its languages' share of the searched
 * knowledge base's documents relative to its largest language's share, from this floor to 1: on a
 * Spanish knowledge base the query as asked in French weighs this much (it still finds names,
 * numbers and borrowed terms as they are, but at equal weights it outvoted the translation: the
 * translation searched alone beat the equal-weight fusion for 8 of 9 language pairs with an
 * engine), and on a Spanish help whose pages are 17 % English a Spanish query's English
 * translation weighs this much (at equal weights its matches pushed the query's own down: Spanish
 * queries 0.535 fused nDCG@10 with it, 0.612 weighed; `bench/retrieval-quality.bench.ts --cross`,
 * docs/retrieval-quality.md, "Cross-lingual retrieval").
 */
export const UNTRANSLATED_WEIGHT = 0.5;

/**
 * The k of the reciprocal rank fusion of a translated query's searches. At the customary 60, a
 * search weighing half could not lift its best match above the other search's tenth (0.5/61 <
 * 1/70); at 5 it enters about seventh (0.5/6 = 1/12), so a minority language's best match still
 * ranks among the majority's.
 */
export const TRANSLATION_FUSION_K = 5;

/**
 * What a result weighs in the fusion of a translated query's searches, relative to its search's
 * weight, where that search did not match it (the lexical embedder's nearest chunks, which hold
 * none of the query's words). Every search returns such fillers where its matches run out: in a
 * small knowledge base, a chunk that each of three searches returns second, matching none,
 * outranked the one two of them matched first (1/7 + 0.5/7 + 0.5/7 against 1/6 + 0.5/6). On the
 * LibreOffice help a search's first ten are matches and it changes nothing.
 */
export const FILLER_WEIGHT = 0.25;

/** What applies where nothing is set: translate queries, translate responses when asked, never fail a query over translation. */
export const INSTANCE_DEFAULT: Required<Omit<TranslationConfig, 'preferred_language'>> = {
  query_translation: 'auto',
  response_translation: 'on_request',
  fallback_behaviour: 'passthrough',
};

export interface EffectiveConfig {
  query_translation: 'auto' | 'never';
  response_translation: 'always' | 'on_request' | 'never';
  preferred_language: Language | undefined;
  fallback_behaviour: 'passthrough' | 'error';
  /** The level each field's value came from. */
  sources: Record<Field, ConfigLevel>;
}

/** Each field from the most specific level that sets it. */
export function resolveConfig(layers: Array<[ConfigLevel, TranslationConfig | undefined]>): EffectiveConfig {
  const pick = <F extends Field>(field: F): [TranslationConfig[F], ConfigLevel] => {
    for (const [level, config] of layers) if (config?.[field] !== undefined) return [config[field], level];
    return [(INSTANCE_DEFAULT as TranslationConfig)[field], 'instance_default'];
  };
  const [query_translation, q] = pick('query_translation');
  const [response_translation, r] = pick('response_translation');
  const [preferred_language, p] = pick('preferred_language');
  const [fallback_behaviour, f] = pick('fallback_behaviour');
  return {
    query_translation: query_translation!,
    response_translation: response_translation!,
    preferred_language,
    fallback_behaviour: fallback_behaviour!,
    sources: { query_translation: q, response_translation: r, preferred_language: p, fallback_behaviour: f },
  };
}

function mostSpecific(levels: ConfigLevel[]): ConfigLevel {
  return CONFIG_LEVELS.find((level) => levels.includes(level)) ?? 'instance_default';
}

export interface TranslatedQuery {
  results: QueryResultItem[];
  metadata?: { translation_config_source: ConfigLevel; translation_latency_ms: number };
}

/**
 * A translated search's words as a bilingual dictionary translates them, each with all its
 * translations: keyword search counts a word as found when any of them is (SearchService).
 */
export interface DictionaryWords {
  language: Language;
  words: WordTranslations[];
}

/** The longest ending a name may add to the lemma of the dictionary word it is a form of. */
const MAX_NAME_ENDING = 3;

/**
 * The dictionary's words with each of the query's names (`namesIn`) also its own translation, as
 * the query spells it, so a translated search finds it as written as well as by what it means: software
 * documentation keeps product, service, class and function names in every language ("Platform
 * service Extensions" is "El servicio Platform" with a property "Extensions" in the Spanish help,
 * where the translation says "Prórrogas de servicio de la programa"). A name is a word written
 * with a capital inside it ("RenameSheet") or in capitals ("PDF"), or, but in German, whose nouns
 * all take one, a capitalised word after the first; the first word too where the query holds
 * another name ("Calc service RenameSheet"), as a query's first word is capitalised by habit.
 * A name joins the dictionary word it is a form of (the word's lemma begins it, and it adds an
 * ending of three letters at most: "Extensions", "Extension"), else it is a word of its own.
 */
export function withNamesAsSpelled(names: readonly string[], words: readonly WordTranslations[]): WordTranslations[] {
  if (!names.length) return [...words];
  const out = words.map((w) => ({ word: w.word, translations: [...w.translations] }));
  for (const name of names) {
    const lower = name.toLocaleLowerCase();
    const lemmaOf = out
      .filter((w) => w.word && name.length - w.word.length <= MAX_NAME_ENDING && lower.startsWith(w.word.toLocaleLowerCase()))
      .sort((a, b) => b.word.length - a.word.length)[0];
    if (!lemmaOf) out.push({ word: name, translations: [name] });
    else if (!lemmaOf.translations.includes(name)) lemmaOf.translations.push(name);
  }
  return out;
}

/** The names (see `withNamesAsSpelled`) of a query in `source`, as it spells them. */
export function namesIn(query: string, source: Language): string[] {
  const tokens = query.match(/[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu) ?? [];
  const identifier = (word: string) => /\p{Ll}\p{Lu}/u.test(word) || /^\p{Lu}[\p{Lu}\p{N}._-]*\p{Lu}[\p{Lu}\p{N}._-]*$/u.test(word);
  const capitalised = (word: string) => source !== 'de' && /^\p{Lu}\p{Ll}/u.test(word);
  const named = tokens.map((t, i) => identifier(t) || (i > 0 && capitalised(t)));
  if (tokens.length && !named[0] && named.some(Boolean) && capitalised(tokens[0]!)) named[0] = true;
  return [...new Set(tokens.filter((_, i) => named[i]))];
}

export type Search = (request: QueryRequest, dictionaries?: DictionaryWords[]) => Promise<SearchAnswer>;

export interface QueryTranslationOptions {
  /** UNTRANSLATED_WEIGHT unless a benchmark measures another. */
  untranslatedWeight: number;
  /**
   * Whether translated searches also look the query's words up in bilingual dictionaries (an
   * engine's, else FreeDict's), and search with them where no engine translates the pair.
   */
  dictionary: boolean;
  /**
   * Whether a knowledge base of several languages is searched once with the query's translations
   * into all of them (each word with its translations in every language, ranked by its best form)
   * rather than once per language, the rankings fused. With every search weighing alike, a search
   * per language gave each language's best chunk a first rank of its own, and a minority language's
   * weak matches outranked the majority's good ones (French queries on the Spanish help, 17 % of
   * whose pages are English: 0.331 fused nDCG@10, against 0.380 for one search). Weighing each by
   * its language's share (`shareWeights`), and the vector search's mere nearest less
   * (`fillerWeight`), a search per language does better: 0.472 against 0.449, Italian queries 0.405
   * against 0.368 (docs/retrieval-quality.md, "Cross-lingual retrieval").
   */
  mergeLanguages: boolean;
  /**
   * Whether each search weighs its languages' share of the knowledge base's documents (see
   * UNTRANSLATED_WEIGHT); else every translation weighs 1, and the query as asked 1 where its
   * language is one of the knowledge bases', `untranslatedWeight` where it is none of theirs.
   */
  shareWeights: boolean;
  /**
   * Whether a translated search also looks a query's names up as the query spells them
   * (`withNamesAsSpelled`).
   */
  namesAsSpelled: boolean;
  /** TRANSLATION_FUSION_K unless a benchmark measures another. */
  fusionK: number;
  /**
   * What a result weighs in the fusion, relative to its search's weight, where that search found
   * it only as the vector search's nearest (`SearchAnswer.matched`); FILLER_WEIGHT unless a
   * benchmark measures another.
   */
  fillerWeight: number;
}

export const QUERY_TRANSLATION_OPTIONS: QueryTranslationOptions = {
  untranslatedWeight: UNTRANSLATED_WEIGHT,
  dictionary: true,
  mergeLanguages: false,
  shareWeights: true,
  namesAsSpelled: true,
  fusionK: TRANSLATION_FUSION_K,
  fillerWeight: FILLER_WEIGHT,
};

/** The part of a query's translation decided before it is counted: refusals come first. */
export interface QueryTranslationPlan {
  language: Language | null;
  detectionMs: number;
}

/**
 * Translation inside POST /v1/query: the settings in effect (request > end user > knowledge base >
 * sub-tenant > tenant > instance default, field by field), query translation (the query is also
 * searched in the languages of the knowledge bases it searches, and the rankings are fused), and
 * response translation (result content into the query's language, keeping `content_original`).
 */
export class QueryTranslationService {
  constructor(
    private readonly db: Database,
    private readonly translation: TranslationService,
    private readonly subTenants: Pick<SubTenantService, 'userPreferences'>,
    private readonly options: QueryTranslationOptions = QUERY_TRANSLATION_OPTIONS,
  ) {}

  /** Refusals that come before the query is counted, and the query's language. */
  prepare(ctx: RequestContext, request: QueryRequest): QueryTranslationPlan {
    if (request.translate_response && ctx.tenant.plan === 'free') {
      throw errors.forbidden('free_tier_restriction', 'Response translation is not available on the Free plan.');
    }
    const started = performance.now();
    const language =
      request.source_language === 'auto' ? this.translation.detect(request.query).language : (request.source_language as Language);
    return { language, detectionMs: performance.now() - started };
  }

  /**
   * Searches (`search`: the query as asked, then each translation), translating as the settings in
   * effect and the query's language say. A query of no detected language is searched as asked,
   * and nothing else is read.
   */
  async run(ctx: RequestContext, request: QueryRequest, plan: QueryTranslationPlan, search: Search): Promise<TranslatedQuery> {
    const asked = await search(request);
    const { results, knowledgeBases: kbs } = asked;
    const { language } = plan;
    if (!language) return { results };
    // The tenant's settings and those of the key's sub-tenant came with the credential; other
    // sub-tenants' only where their knowledge bases are searched (a tenant key over sub-tenants').
    const subTenantConfigs = await subTenantTranslationConfigs(
      this.db,
      scopeOf(ctx),
      [...new Set(kbs.map((kb) => kb.sub_tenant_id))].filter((id): id is string => id !== null && id !== ctx.subTenantId),
    );
    if (ctx.subTenant) subTenantConfigs.set(ctx.subTenant.id, ctx.subTenant.translationConfig);
    const user = await this.subTenants.userPreferences(ctx);
    const layers = (kb: KnowledgeBaseRow | undefined): Array<[ConfigLevel, TranslationConfig | undefined]> => {
      const subTenantId = kb ? kb.sub_tenant_id : ctx.subTenantId;
      return [
        ['user', user],
        ['knowledge_base', kb?.translation_config],
        ['sub_tenant', subTenantId ? subTenantConfigs.get(subTenantId) : undefined],
        ['tenant', ctx.tenant.translationConfig],
      ];
    };
    const kbConfig = new Map(kbs.map((kb) => [kb.id, resolveConfig(layers(kb))]));
    const queryConfig = resolveConfig(layers(undefined));

    const step = new Step(ctx, this.translation);
    step.latencyMs += plan.detectionMs;
    let fused = await this.translateQuery(ctx, request, language, kbConfig, asked, step, search);
    fused = await this.translateResponse(ctx, request, language, fused, kbConfig, queryConfig, step);
    if (!step.levels.length) return { results: fused };
    await step.meter();
    return {
      results: fused,
      metadata: { translation_config_source: mostSpecific(step.levels), translation_latency_ms: Math.round(step.latencyMs) },
    };
  }

  /**
   * Searches again with the query translated into the languages of the searched knowledge bases
   * (their `preferred_language`, else their documents' languages) that differ from the query's:
   * one search per such language (with `mergeLanguages`, one for each set of them) over the
   * knowledge bases that have it, and only those; then fuses the rankings by
   * reciprocal rank, each search weighing its languages' share of the knowledge bases (the query as
   * asked: its own language's; UNTRANSLATED_WEIGHT at least).
   */
  private async translateQuery(
    ctx: RequestContext,
    request: QueryRequest,
    language: Language,
    kbConfig: Map<string, EffectiveConfig>,
    asked: SearchAnswer,
    step: Step,
    search: Search,
  ): Promise<QueryResultItem[]> {
    const { results, knowledgeBases: kbs } = asked;
    const active = kbs.filter((kb) => kbConfig.get(kb.id)!.query_translation === 'auto');
    const detected = await documentLanguageShares(
      this.db,
      scopeOf(ctx),
      active.filter((kb) => !kbConfig.get(kb.id)!.preferred_language).map((kb) => kb.id),
      MIN_LANGUAGE_SHARE,
    );
    // A leg is one translated search: its target languages, its weight and the knowledge bases it
    // searches. Each search weighs the most its languages weigh in any knowledge base it searches;
    // the query as asked weighs fully where it searches a knowledge base not translated.
    const legs = new Map<string, { targets: Language[]; weight: number; kbs: KnowledgeBaseRow[] }>();
    const floor = this.options.untranslatedWeight;
    let untranslatedWeight = active.length < kbs.length ? 1 : floor;
    for (const kb of active) {
      const preferred = kbConfig.get(kb.id)!.preferred_language;
      const shares = preferred ? new Map([[preferred, 1]]) : (detected.get(kb.id) ?? new Map<Language, number>());
      const languages = [...shares.keys()];
      const largest = Math.max(...shares.values());
      const weightOf = (of: Language[]) =>
        this.options.shareWeights ? Math.min(1, Math.max(floor, of.reduce((sum, l) => sum + shares.get(l)!, 0) / largest)) : 1;
      if (languages.includes(language)) untranslatedWeight = Math.max(untranslatedWeight, weightOf([language]));
      const targets = languages.filter((target) => target !== language).sort();
      for (const leg of this.options.mergeLanguages ? [targets] : targets.map((target) => [target])) {
        if (!leg.length) continue;
        const key = leg.join(' ');
        const known = legs.get(key);
        legs.set(key, { targets: leg, weight: Math.max(known?.weight ?? 0, weightOf(leg)), kbs: [...(known?.kbs ?? []), kb] });
      }
    }
    const names = this.options.namesAsSpelled ? namesIn(request.query, language) : [];
    // Each language's translation and look-up, made (and metered) once a query, whichever legs need it.
    const made = new Map<Language, Promise<{ text: string | undefined; dictionary: DictionaryWords | undefined }>>();
    const translationInto = (target: Language) => {
      let translation = made.get(target);
      if (!translation) {
        const pair = { source: language, target };
        translation = Promise.all([
          step.attempt([request.query], pair),
          this.options.dictionary ? step.lookUp(request.query, pair) : undefined,
        ]).then(([translated, looked]) => {
          const words = looked && withNamesAsSpelled(names, looked);
          // Where no engine translates the pair, a dictionary's words still make a translated
          // search: each word's first translation is its text (for the vector search).
          const text = Array.isArray(translated) ? translated[0]! : words?.length ? step.gloss(request.query, words) : undefined;
          return { text, dictionary: words && { language: target, words } };
        });
        made.set(target, translation);
      }
      return translation;
    };
    const lists: SearchAnswer[] = [asked];
    const weights = [untranslatedWeight];
    for (const { targets, weight, kbs: group } of legs.values()) {
      const configs = group.map((kb) => kbConfig.get(kb.id)!);
      // The leg's translations (and look-ups) run at once.
      const translations = await step.timed(() =>
        Promise.all(
          targets.map(async (target) => {
            const { text, dictionary } = await translationInto(target);
            if (text !== undefined) return [{ text, dictionary }];
            step.failed({ source: language, target }, configs); // 503 where a setting says `error`
            return [];
          }),
        ),
      );
      const searched = translations.flat();
      if (!searched.length) continue;
      step.decidedBy(
        ...configs.map((c) =>
          mostSpecific([c.sources.query_translation, ...(c.preferred_language ? [c.sources.preferred_language] : [])]),
        ),
      );
      const query = searched.map((t) => t.text).join('\n');
      const dictionaries = searched.flatMap((t) => (t.dictionary ? [t.dictionary] : []));
      lists.push(await search({ ...request, query, knowledge_base_ids: group.map((kb) => kb.id), corpora: [] }, dictionaries));
      weights.push(weight);
    }
    if (lists.length === 1) return results;
    // Tenant chunks are keyed by chunk id; corpus items appear only in the first list (translated searches skip corpora).
    const keyOf = (item: QueryResultItem, index: number) => item.chunk_id ?? `corpus:${index}`;
    const byKey = new Map<string, QueryResultItem>();
    const rankings = lists.map(({ results: list }) =>
      list.map((item, index) => {
        const key = keyOf(item, index);
        if (!byKey.has(key)) byKey.set(key, item);
        return key;
      }),
    );
    // What a search found only as the vector search's nearest weighs `fillerWeight`.
    const itemWeights = lists.map(({ matched }) => matched.map((m) => (m ? 1 : this.options.fillerWeight)));
    return reciprocalRankFusion(rankings, { k: this.options.fusionK, weights }, itemWeights)
      .slice(0, request.top_k)
      .map(({ id, score }) => ({ ...byKey.get(id)!, score }));
  }

  /** Translates result content into the query's language where the settings and the request ask for it. */
  private async translateResponse(
    ctx: RequestContext,
    request: QueryRequest,
    language: Language,
    results: QueryResultItem[],
    kbConfig: Map<string, EffectiveConfig>,
    queryConfig: EffectiveConfig,
    step: Step,
  ): Promise<QueryResultItem[]> {
    // The Free plan has no response translation (asking for it was refused before).
    if (ctx.tenant.plan === 'free' || request.translate_response === false) return results;
    const bySource = new Map<Language, Array<{ index: number; config: EffectiveConfig; level: ConfigLevel }>>();
    results.forEach((item, index) => {
      const config = (item.knowledge_base_id && kbConfig.get(item.knowledge_base_id)) || queryConfig;
      const wanted =
        config.response_translation === 'always' || (config.response_translation === 'on_request' && request.translate_response === true);
      if (!wanted) return;
      const source = this.translation.detect(item.content).language;
      if (!source || source === language) return;
      const level = request.translate_response === true ? 'request' : config.sources.response_translation;
      bySource.set(source, [...(bySource.get(source) ?? []), { index, config, level }]);
    });
    const out = [...results];
    for (const [source, items] of bySource) {
      const pair = { source, target: language };
      const translated = await step.timed(() => step.attempt(items.map((i) => results[i.index]!.content), pair));
      if (!Array.isArray(translated)) {
        step.failed(pair, items.map((i) => i.config)); // 503 where a setting says `error`
        // Passed through as they are, each saying so.
        for (const item of items) out[item.index] = { ...results[item.index]!, untranslated: { language: source, reason: translated } };
        continue;
      }
      step.decidedBy(...items.map((i) => i.level));
      items.forEach((item, i) => {
        const original = results[item.index]!;
        out[item.index] = { ...original, content: translated[i]!, content_original: original.content };
      });
    }
    return out;
  }
}

/** The translations of one query: time spent, characters, the levels that decided, and fallback on failure. */
class Step {
  latencyMs = 0;
  readonly levels: ConfigLevel[] = [];
  private readonly usage: Translated = { texts: [], engine: null, inputChars: 0, outputChars: 0 };

  constructor(
    private readonly ctx: RequestContext,
    private readonly translation: TranslationService,
  ) {}

  decidedBy(...levels: ConfigLevel[]): void {
    this.levels.push(...levels);
  }

  /** Runs `work`, adding its time to the step's latency (translations and look-ups run at once are timed once). */
  async timed<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.latencyMs += performance.now() - started;
    }
  }

  /**
   * Translates, or returns why it could not: translation off or the pair not served (a debug line:
   * every query of such a pair would repeat it), or the engine failing (a warning).
   */
  async attempt(texts: string[], pair: { source: Language; target: Language }): Promise<string[] | UntranslatedReason> {
    if (!this.translation.enabled || !(await this.translation.serves(pair))) {
      this.ctx.log.debug({ pair }, 'no translation engine serves the pair');
      return 'unsupported_pair';
    }
    try {
      const translated = await this.translation.translateTexts(scopeOf(this.ctx), texts, pair);
      this.usage.inputChars += translated.inputChars;
      this.usage.outputChars += translated.outputChars;
      return translated.texts;
    } catch (error) {
      if (!(error instanceof TranslatorError)) throw error;
      this.ctx.log.warn({ err: error, pair }, 'translation in a query failed');
      return error.code === 'unavailable' ? 'translation_unavailable' : 'translation_failed';
    }
  }

  /** A translation that could not be made: undefined (searched untranslated), or 503 where any config says `error`. */
  failed(pair: { source: Language; target: Language }, configs: EffectiveConfig[]): undefined {
    if (configs.some((c) => c.fallback_behaviour === 'error')) {
      throw translationUnavailable(`Translation from ${pair.source} to ${pair.target} is unavailable, and the translation settings ask for an error.`);
    }
    return undefined;
  }

  /** The query as its words' first dictionary translations, metered as a translation of the query. */
  gloss(query: string, words: WordTranslations[]): string {
    const text = words.map((w) => w.translations[0] ?? w.word).join(' ');
    this.usage.inputChars += characters(query);
    this.usage.outputChars += characters(text);
    return text;
  }

  /**
   * The query's words with every translation of an engine's bilingual dictionary, or undefined
   * when no engine serving the pair has one or the look-up fails: it only adds to the translation,
   * so its failure never fails the query (nor is metered: the translation's characters are).
   */
  async lookUp(text: string, pair: { source: Language; target: Language }): Promise<WordTranslations[] | undefined> {
    try {
      if (!this.translation.enabled) return undefined;
      return (await this.translation.lookUpWords(scopeOf(this.ctx), [text], pair))?.[0];
    } catch (error) {
      if (!(error instanceof TranslatorError)) throw error;
      this.ctx.log.warn({ err: error, pair }, 'a dictionary look-up in a query failed');
      return undefined;
    }
  }

  async meter(): Promise<void> {
    if (this.usage.inputChars > 0) await this.translation.meter(this.ctx, 'query_translation', this.usage);
  }
}
