import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { AppError, errors } from '../errors.js';
import type { LanguageDetection, LanguageDetector } from '../ports/language-detector.js';
import {
  type LanguagePair,
  type PairStatus,
  type TranslationEngineName,
  type Translator,
  TranslatorError,
  type WordTranslations,
} from '../ports/translator.js';
import type { Scope } from '../shared/scope.js';
import { scopeOf } from '../shared/scope.js';
import { type UsageEventType, insertUsageEvent } from '../usage/usage.repository.js';
import { cachedTranslations, storeTranslations } from './translation.repository.js';
import {
  type Language,
  MAX_BATCH_TEXTS,
  MAX_TRANSLATION_TEXT_CHARS,
  SUPPORTED_LANGUAGES,
  type TranslateBatchRequest,
  type TranslateRequest,
} from './translation.schema.js';

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_LANGUAGES);
/**
 * What word look-ups are cached under. Named anew when what a look-up gathers changes (the
 * catalogue dictionaries' words added, 2026-11-27: 'dictionary' before), so entries made before
 * are not served again; unused, they expire with the cache's 30 days.
 */
const LOOK_UP_CACHE_MAKER = 'dictionaries';

export function isLanguage(value: string): value is Language {
  return SUPPORTED.has(value);
}

/** Characters as people count them (Unicode code points), not UTF-16 units. */
export function characters(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

export function unsupportedLanguage(field: string, value: string, auto: boolean): AppError {
  return errors.badRequest(
    'unsupported_language',
    `${field} must be ${auto ? 'auto or ' : ''}one of ${SUPPORTED_LANGUAGES.join(', ')}; got '${value.slice(0, 20)}'.`,
    { field },
  );
}

export const translationUnavailable = (message = 'Translation is not available on this instance.') =>
  errors.unavailable('translation_unavailable', message);

/** What a failed engine means to a caller: 503 when it cannot be reached, 500 (without details) when it broke. */
export function translationError(error: TranslatorError): AppError {
  return error.code === 'unavailable'
    ? translationUnavailable('The translation engine is unavailable at the moment; try again later.')
    : new AppError(500, 'translation_failed', 'The translation failed.');
}

export interface Translated {
  texts: string[];
  /** The engine that translated (null: nothing needed translating, or every text came from the cache). */
  engine: TranslationEngineName | null;
  /** Characters sent for translation and received (cache hits included: what the caller asked for). */
  inputChars: number;
  outputChars: number;
}

/**
 * Translation and language detection: the /v1/translate, /v1/detect and /v1/translation/*
 * endpoints, and the translations that queries make (through `translateTexts`). Translations are
 * cached per tenant (and sub-tenant) by engine, pair and text, and metered in the usage ledger.
 */
export class TranslationService {
  constructor(
    private readonly db: Database,
    private readonly translator: Translator,
    private readonly detector: LanguageDetector,
    private readonly clock: Clock,
  ) {}

  get enabled(): boolean {
    return this.translator.engines.length > 0;
  }

  detect(text: string): LanguageDetection {
    return this.detector.detect(text);
  }

  /** POST /v1/detect. */
  detectText(text: string): { language: Language | null; confidence: number } {
    this.assertLength([text]);
    const { language, confidence } = this.detector.detect(text);
    return { language, confidence: Math.round(confidence * 1000) / 1000 };
  }

  /** POST /v1/translate. */
  async translate(ctx: RequestContext, request: TranslateRequest) {
    const { translations, source, target, latency_ms } = await this.translateRequest(ctx, [request.text], request.source, request.target);
    return { translated_text: translations[0]!, source, target, latency_ms };
  }

  /** POST /v1/translate/batch. */
  async translateBatch(ctx: RequestContext, request: TranslateBatchRequest) {
    if (request.texts.length < 1 || request.texts.length > MAX_BATCH_TEXTS) {
      throw errors.badRequest('invalid_batch_size', `texts must hold 1-${MAX_BATCH_TEXTS} texts; got ${request.texts.length}.`, {
        min: 1,
        max: MAX_BATCH_TEXTS,
      });
    }
    return this.translateRequest(ctx, request.texts, request.source, request.target);
  }

  private async translateRequest(ctx: RequestContext, texts: string[], sourceField: string, targetField: string) {
    const started = performance.now();
    if (sourceField !== 'auto' && !isLanguage(sourceField)) throw unsupportedLanguage('source', sourceField, true);
    if (!isLanguage(targetField)) throw unsupportedLanguage('target', targetField, false);
    this.assertLength(texts);
    if (!this.enabled) throw translationUnavailable();
    let source: Language;
    if (sourceField === 'auto') {
      const detected = this.detector.detect(texts.join('\n'));
      if (!detected.language) {
        throw errors.badRequest('unsupported_language', `The text's language could not be detected as one of ${SUPPORTED_LANGUAGES.join(', ')}.`, {
          field: 'source',
        });
      }
      source = detected.language;
    } else source = sourceField;
    const pair = { source, target: targetField };
    await this.assertPair(pair);
    let translated: Translated;
    try {
      translated = await this.translateTexts(scopeOf(ctx), texts, pair);
    } catch (error) {
      if (!(error instanceof TranslatorError)) throw error;
      ctx.log.warn({ err: error, pair }, 'translation failed');
      throw translationError(error);
    }
    await this.meter(ctx, 'translation', translated);
    return { translations: translated.texts, source, target: targetField, latency_ms: Math.round(performance.now() - started) };
  }

  private assertLength(texts: string[]): void {
    const index = texts.findIndex((t) => t.length > MAX_TRANSLATION_TEXT_CHARS && characters(t) > MAX_TRANSLATION_TEXT_CHARS);
    if (index >= 0) {
      throw errors.badRequest('text_too_long', `A text may hold at most ${MAX_TRANSLATION_TEXT_CHARS} characters.`, {
        max_chars: MAX_TRANSLATION_TEXT_CHARS,
        ...(texts.length > 1 ? { index } : {}),
      });
    }
  }

  /** 400 unsupported_language_pair when no configured engine serves the pair; 503 when the one that might cannot be reached. */
  async assertPair(pair: LanguagePair): Promise<void> {
    if (pair.source === pair.target) return;
    let engines: TranslationEngineName[];
    try {
      engines = await this.translator.candidates(pair);
    } catch (error) {
      if (error instanceof TranslatorError) throw translationError(error);
      throw error;
    }
    if (!engines.length) {
      throw errors.badRequest('unsupported_language_pair', `No translation engine of this instance translates ${pair.source} to ${pair.target}.`, {
        source: pair.source,
        target: pair.target,
      });
    }
  }

  /** Whether a configured engine serves the pair (false also when the engine that might cannot be reached). */
  async serves(pair: LanguagePair): Promise<boolean> {
    if (pair.source === pair.target) return true;
    try {
      return (await this.translator.candidates(pair)).length > 0;
    } catch {
      return false;
    }
  }

  /**
   * Translates texts for a scope, through its cache: only texts not cached (for the engine that
   * would translate them) go to the engine. Identical source and target languages, and blank
   * texts, come back as they are. Throws TranslatorError.
   */
  async translateTexts(scope: Scope, texts: string[], pair: LanguagePair): Promise<Translated> {
    const inputChars = texts.reduce((n, t) => n + characters(t), 0);
    if (pair.source === pair.target) return { texts: [...texts], engine: null, inputChars, outputChars: inputChars };
    const engines = await this.translator.candidates(pair);
    if (!engines.length) throw new TranslatorError('failed', `No configured engine serves ${pair.source}-${pair.target}`);
    const preferred = engines[0]!;
    const found = await this.throughCache(scope, pair, preferred, texts.filter((t) => t.trim()), async (missing) => {
      const result = await this.translator.translate(missing, pair);
      return { values: result.texts, maker: result.engine };
    });
    const out = texts.map((text) => (text.trim() ? (found!.values.get(text) ?? text) : text));
    const engine = (found!.maker as TranslationEngineName | null) ?? (found!.cached ? preferred : null);
    return { texts: out, engine, inputChars, outputChars: out.reduce((n, t) => n + characters(t), 0) };
  }

  /**
   * Each text's words with every translation a bilingual dictionary of an engine serving the pair
   * gives (Translator.lookUp), through the same cache as translations (keyed apart from them);
   * null when no engine serving the pair has dictionaries. Throws TranslatorError.
   */
  async lookUpWords(scope: Scope, texts: string[], pair: LanguagePair): Promise<WordTranslations[][] | null> {
    if (pair.source === pair.target) return null;
    const found = await this.throughCache(scope, pair, LOOK_UP_CACHE_MAKER, texts, async (missing) => {
      const result = await this.translator.lookUp(missing, pair);
      return result && { values: result.words.map((words) => JSON.stringify(words)), maker: LOOK_UP_CACHE_MAKER };
    });
    return found && texts.map((text) => JSON.parse(found.values.get(text)!) as WordTranslations[]);
  }

  /**
   * `texts` (distinct ones once) through the scope's cache, keyed by what made an entry (an engine,
   * or `dictionary`), the pair and the text: those cached under `expected`, the others from
   * `compute` (stored under the maker it names), or null when `compute` has none. Also says whether
   * any came from the cache, and who computed the others.
   */
  private async throughCache(
    scope: Scope,
    pair: LanguagePair,
    expected: string,
    texts: string[],
    compute: (missing: string[]) => Promise<{ values: string[]; maker: string } | null>,
  ): Promise<{ values: Map<string, string>; cached: boolean; maker: string | null } | null> {
    const keyOf = (maker: string, text: string) =>
      createHash('sha256').update(`${maker}\u0000${pair.source}\u0000${pair.target}\u0000${text}`).digest('hex');
    const distinct = [...new Set(texts)];
    const keys = distinct.map((t) => keyOf(expected, t));
    const cached = await cachedTranslations(this.db, scope, keys);
    const values = new Map<string, string>();
    const missing: string[] = [];
    for (const [i, text] of distinct.entries()) {
      const hit = cached.get(keys[i]!);
      if (hit === undefined) missing.push(text);
      else values.set(text, hit);
    }
    if (!missing.length) return { values, cached: cached.size > 0, maker: null };
    const computed = await compute(missing);
    if (!computed) return null;
    missing.forEach((text, i) => values.set(text, computed.values[i]!));
    await storeTranslations(
      this.db,
      scope,
      missing.map((text) => ({ hash: keyOf(computed.maker, text), text: values.get(text)! })),
    );
    return { values, cached: cached.size > 0, maker: computed.maker };
  }

  /** Records translated characters in the usage ledger (approximate tokens too, for the billing object). */
  async meter(ctx: RequestContext, type: Extract<UsageEventType, 'translation' | 'query_translation'>, translated: Translated): Promise<void> {
    await insertUsageEvent(this.db, {
      tenantId: ctx.tenantId,
      subTenantId: ctx.subTenantId,
      userId: ctx.userId,
      type,
      quantity: 1,
      costMicrocents: 0,
      inputChars: translated.inputChars,
      outputChars: translated.outputChars,
      inputTokens: Math.ceil(translated.inputChars / 4),
      outputTokens: Math.ceil(translated.outputChars / 4),
      occurredAt: this.clock.now(),
    });
  }

  /** GET /v1/translation/health. */
  async health() {
    const models = await this.translator.health();
    const loaded = models.filter((m) => m.status === 'loaded').length;
    const status = !this.enabled || loaded === 0 ? 'disabled' : loaded === models.length ? 'healthy' : 'degraded';
    return { status, models_loaded: loaded, models_total: models.length, engines: [...this.translator.engines], models };
  }

  /** GET /v1/translation/languages: the pairs an engine serves and that answered their latest probe. */
  async languages(): Promise<Array<Pick<PairStatus, 'source' | 'target'>>> {
    return (await this.translator.health()).filter((m) => m.status === 'loaded').map(({ source, target }) => ({ source, target }));
  }
}
