import type { Language, PivotLanguage } from '../translation/translation.schema.js';

/** The engines Lore can translate with, best first (see `ENGINE_PREFERENCE`). */
export type TranslationEngineName = 'deepl' | 'libretranslate' | 'apertium';

/**
 * When several engines serve a pair, the first of these that does translates it: DeepL and
 * LibreTranslate are neural engines, Apertium is rule-based (shallow transfer) and, where it has no
 * direct pair (or where that translates better), chains two of its pairs through Spanish or Catalan.
 */
export const ENGINE_PREFERENCE: readonly TranslationEngineName[] = ['deepl', 'libretranslate', 'apertium'];

export interface LanguagePair {
  source: Language;
  target: Language;
}

export function pairKey(pair: LanguagePair): string {
  return `${pair.source}-${pair.target}`;
}

/** How an engine serves a pair: directly, or through an intermediate language. */
export interface EngineRoute {
  pivot?: PivotLanguage;
}

/** What an engine can translate: routes keyed by `pairKey`. */
export type EngineCapabilities = Map<string, EngineRoute>;

export type TranslatorErrorCode =
  /** The engine cannot be reached or refuses service (not installed, connection refused, 429/5xx after retries, bad key, quota). */
  | 'unavailable'
  /** The engine was reached but the translation failed: it crashed, timed out, or answered something unusable. */
  | 'failed';

/** Why a translation failed. Messages name the engine and what happened, never a key or the text. */
export class TranslatorError extends Error {
  override name = 'TranslatorError';
  constructor(
    readonly code: TranslatorErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A word of a text and every translation a bilingual dictionary gives for it: the target
 * language's lemmas (dictionary forms), without the engine's choice among them. A word the
 * dictionary does not know is its own only translation (names, numbers, borrowed terms).
 */
export interface WordTranslations {
  /** The word as the engine analysed it (its lemma). */
  word: string;
  /** Its translations, the engine's own choice first where it has one; at least one. */
  translations: string[];
}

/** One translation engine (an adapter): Apertium, a LibreTranslate server, a DeepL endpoint. */
export interface TranslationEngine {
  readonly name: TranslationEngineName;
  /** Asks the engine which of the supported languages' pairs it serves. Throws TranslatorError when it cannot be asked. */
  discover(): Promise<EngineCapabilities>;
  /** Translates each text (same order, same count). Throws TranslatorError. */
  translate(texts: string[], pair: LanguagePair): Promise<string[]>;
  /**
   * Which of the discovered pairs work right now (by pairKey). An engine decides how to probe: a
   * sample sentence per pair where that is free (Apertium), its language list where every call
   * costs (the HTTP engines).
   */
  probe(capabilities: EngineCapabilities): Promise<Map<string, boolean>>;
  /**
   * Where the engine has bilingual dictionaries (Apertium): each text's words with all their
   * translations (same order, same count). Throws TranslatorError.
   */
  lookUp?(texts: string[], pair: LanguagePair): Promise<WordTranslations[][]>;
}

export type PairStatusValue =
  /** A configured engine serves the pair and answered its latest probe. */
  | 'loaded'
  /** A configured engine should serve the pair, but it failed its latest probe or cannot be reached. */
  | 'failed'
  /** No configured engine serves the pair. */
  | 'unavailable';

export interface PairStatus extends LanguagePair {
  status: PairStatusValue;
  /** The engine that serves the pair (the preferred one when several do); null when none does. */
  engine: TranslationEngineName | null;
  /** Set when the engine chains two of its pairs through this language. */
  pivot: PivotLanguage | null;
}

/**
 * A bilingual dictionary that translates words, not texts (FreeDict's): where no translation
 * engine serves a pair, a query can still be searched with its words' translations.
 */
export interface BilingualDictionary {
  readonly name: string;
  /** The pairs it has, by pairKey (none when it is not installed). */
  pairs(): Promise<ReadonlySet<string>>;
  /** Each text's words with all their translations (same order, same count). Throws TranslatorError. */
  lookUp(texts: string[], pair: LanguagePair): Promise<WordTranslations[][]>;
}

/**
 * The port the domain translates through: the engines a deployment configured, combined. With no
 * engine configured translation is off (`engines` is empty).
 */
export interface Translator {
  readonly engines: readonly TranslationEngineName[];
  /**
   * The engines that serve a pair, best first; [] when none does. Throws TranslatorError
   * `unavailable` when none is known to serve it but an engine whose pairs are unknown (it could
   * not be asked) might.
   */
  candidates(pair: LanguagePair): Promise<TranslationEngineName[]>;
  /** Translates with the best engine that serves the pair, falling back to the next on failure. */
  translate(texts: string[], pair: LanguagePair): Promise<{ texts: string[]; engine: TranslationEngineName }>;
  /**
   * Each text's words with every translation, from the first that has the pair and answers: the
   * engines serving it that have bilingual dictionaries (Apertium), then the dictionaries
   * (BilingualDictionary); null when none has it. Throws TranslatorError.
   */
  lookUp(texts: string[], pair: LanguagePair): Promise<{ words: WordTranslations[][]; source: string } | null>;
  /** The status of every ordered pair of the supported languages (56), probed at most once per health TTL. */
  health(): Promise<PairStatus[]>;
}
