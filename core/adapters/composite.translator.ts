import { type DomainMetrics, noDomainMetrics } from '../ports/metrics.js';
import type {
  BilingualDictionary,
  EngineCapabilities,
  LanguagePair,
  PairStatus,
  TranslationEngine,
  TranslationEngineName,
  Translator,
  WordTranslations,
} from '../ports/translator.js';
import { ENGINE_PREFERENCE, TranslatorError, pairKey } from '../ports/translator.js';
import { SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';

export interface CompositeTranslatorOptions {
  /** How long a health answer (the probes) is reused (default 60 000). */
  healthTtlMs?: number;
  /** An engine that could not be asked for its pairs is asked again after this long (default 30 000). */
  rediscoverAfterMs?: number;
  now?: () => number;
  /** Where each engine call's time and failures are reported (default: nowhere). */
  metrics?: Pick<DomainMetrics, 'translated'>;
  /** Bilingual dictionaries for word look-ups, after the engines' own (default: none). */
  dictionaries?: BilingualDictionary[];
  /**
   * Dictionaries of a domain's vocabulary (the catalogue dictionaries' software words), whose
   * translations are added to every look-up's, whoever made it (default: none).
   */
  vocabularies?: BilingualDictionary[];
}

interface EngineState {
  capabilities: EngineCapabilities | undefined;
  /** When asking it last failed; it is asked again after `rediscoverAfterMs`. */
  failedAt: number | undefined;
  pending: Promise<EngineCapabilities | undefined> | undefined;
}

/**
 * The configured engines combined behind the Translator port. A pair goes to the best engine that
 * serves it (`ENGINE_PREFERENCE`: DeepL, LibreTranslate, Apertium), and to the next one when that
 * fails. Engines are asked for their pairs once (`discover` at start-up); one that cannot be asked
 * is asked again later, and meanwhile a pair only it might serve is "unavailable", not "unsupported".
 */
export class CompositeTranslator implements Translator {
  readonly engines: readonly TranslationEngineName[];
  private readonly ordered: TranslationEngine[];
  private readonly state = new Map<TranslationEngineName, EngineState>();
  private readonly healthTtlMs: number;
  private readonly rediscoverAfterMs: number;
  private readonly now: () => number;
  private readonly metrics: Pick<DomainMetrics, 'translated'>;
  private healthCache: { at: number; value: Promise<PairStatus[]> } | undefined;
  private readonly dictionaries: BilingualDictionary[];
  private readonly vocabularies: BilingualDictionary[];

  constructor(engines: TranslationEngine[], options: CompositeTranslatorOptions = {}) {
    this.ordered = [...engines].sort((a, b) => ENGINE_PREFERENCE.indexOf(a.name) - ENGINE_PREFERENCE.indexOf(b.name));
    this.engines = this.ordered.map((e) => e.name);
    for (const engine of this.ordered) this.state.set(engine.name, { capabilities: undefined, failedAt: undefined, pending: undefined });
    this.healthTtlMs = options.healthTtlMs ?? 60_000;
    this.rediscoverAfterMs = options.rediscoverAfterMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.metrics = options.metrics ?? noDomainMetrics;
    this.dictionaries = options.dictionaries ?? [];
    this.vocabularies = options.vocabularies ?? [];
  }

  /** Asks every engine for its pairs (at start-up); never throws. */
  async discover(): Promise<void> {
    await Promise.all(this.ordered.map((engine) => this.capabilitiesOf(engine)));
  }

  private capabilitiesOf(engine: TranslationEngine): Promise<EngineCapabilities | undefined> {
    const state = this.state.get(engine.name)!;
    if (state.capabilities) return Promise.resolve(state.capabilities);
    if (state.pending) return state.pending;
    if (state.failedAt !== undefined && this.now() - state.failedAt < this.rediscoverAfterMs) return Promise.resolve(undefined);
    state.pending = engine
      .discover()
      .then(
        (capabilities) => {
          state.capabilities = capabilities;
          state.failedAt = undefined;
          return capabilities;
        },
        () => {
          state.failedAt = this.now();
          return undefined;
        },
      )
      .finally(() => {
        state.pending = undefined;
      });
    return state.pending;
  }

  async candidates(pair: LanguagePair): Promise<TranslationEngineName[]> {
    const key = pairKey(pair);
    const found: TranslationEngineName[] = [];
    let unknown = false;
    for (const engine of this.ordered) {
      const capabilities = await this.capabilitiesOf(engine);
      if (!capabilities) unknown = true;
      else if (capabilities.has(key)) found.push(engine.name);
    }
    if (!found.length && unknown) {
      throw new TranslatorError('unavailable', `No reachable translation engine serves ${key} at the moment`);
    }
    return found;
  }

  async translate(texts: string[], pair: LanguagePair): Promise<{ texts: string[]; engine: TranslationEngineName }> {
    const names = await this.candidates(pair);
    if (!names.length) throw new TranslatorError('failed', `No configured engine serves ${pairKey(pair)}`);
    const { result, engine } = await this.firstThatAnswers(names, (e) => e.translate(texts, pair), texts.length);
    return { texts: result, engine };
  }

  /**
   * The first look-up that answers (an engine's dictionary, else a dictionary's), with every
   * vocabulary's translations of the same words added after its own (a word it does not have, as
   * a word of its own); a vocabulary alone where nothing else has the pair.
   */
  async lookUp(texts: string[], pair: LanguagePair): Promise<{ words: WordTranslations[][]; source: string } | null> {
    let found = await this.firstLookUp(texts, pair);
    for (const vocabulary of this.vocabularies) {
      if (!(await vocabulary.pairs()).has(pairKey(pair))) continue;
      const words = await this.lookUpIn(vocabulary, texts, pair);
      found = found
        ? { words: found.words.map((known, i) => withVocabulary(known, words[i]!)), source: `${found.source}+${vocabulary.name}` }
        : { words, source: vocabulary.name };
    }
    return found;
  }

  private async firstLookUp(texts: string[], pair: LanguagePair): Promise<{ words: WordTranslations[][]; source: string } | null> {
    let names: TranslationEngineName[] = [];
    try {
      names = (await this.candidates(pair)).filter((name) => this.ordered.find((e) => e.name === name)!.lookUp !== undefined);
    } catch (error) {
      // An engine that might serve the pair cannot be asked now: a dictionary may still have it.
      if (!(error instanceof TranslatorError)) throw error;
    }
    if (names.length) {
      try {
        const { result, engine } = await this.firstThatAnswers(names, (e) => e.lookUp!(texts, pair), texts.length);
        return { words: result, source: engine };
      } catch (error) {
        if (!this.dictionaries.length) throw error;
      }
    }
    for (const dictionary of this.dictionaries) {
      if (!(await dictionary.pairs()).has(pairKey(pair))) continue;
      return { words: await this.lookUpIn(dictionary, texts, pair), source: dictionary.name };
    }
    return null;
  }

  private async lookUpIn(dictionary: BilingualDictionary, texts: string[], pair: LanguagePair): Promise<WordTranslations[][]> {
    let words: WordTranslations[][];
    try {
      words = await dictionary.lookUp(texts, pair);
    } catch (error) {
      // A damaged file (a bad offset, data that does not inflate) is the dictionary's failure, not the query's.
      throw error instanceof TranslatorError ? error : new TranslatorError('failed', `${dictionary.name} failed`, { cause: error });
    }
    if (words.length !== texts.length) throw new TranslatorError('failed', `${dictionary.name} answered ${words.length} texts for ${texts.length}`);
    return words;
  }

  /** The first of these engines (in order) whose call answers one item per text; each call timed and reported. */
  private async firstThatAnswers<T>(
    names: TranslationEngineName[],
    call: (engine: TranslationEngine) => Promise<T[]>,
    count: number,
  ): Promise<{ result: T[]; engine: TranslationEngineName }> {
    const failures: TranslatorError[] = [];
    for (const name of names) {
      const engine = this.ordered.find((e) => e.name === name)!;
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const result = await call(engine);
        if (result.length !== count) throw new TranslatorError('failed', `${name} answered ${result.length} texts for ${count}`);
        this.metrics.translated(name, seconds());
        return { result, engine: name };
      } catch (error) {
        const failure = error instanceof TranslatorError ? error : new TranslatorError('failed', `${name} failed`, { cause: error });
        this.metrics.translated(name, seconds(), failure.code);
        failures.push(failure);
      }
    }
    // A crash or timeout anywhere is a failure (500); only engines that all could not be reached make it unavailable (503).
    const failed = failures.find((f) => f.code === 'failed');
    throw failed ?? failures[0]!;
  }

  health(): Promise<PairStatus[]> {
    const cached = this.healthCache;
    if (cached && this.now() - cached.at < this.healthTtlMs) return cached.value;
    const value = this.probeAll();
    this.healthCache = { at: this.now(), value };
    return value;
  }

  private async probeAll(): Promise<PairStatus[]> {
    const results = await Promise.all(
      this.ordered.map(async (engine) => {
        const capabilities = await this.capabilitiesOf(engine);
        let working = new Map<string, boolean>();
        if (capabilities) {
          try {
            working = await engine.probe(capabilities);
          } catch {
            working = new Map();
          }
        }
        return { engine: engine.name, capabilities, working };
      }),
    );
    const statuses: PairStatus[] = [];
    for (const source of SUPPORTED_LANGUAGES) {
      for (const target of SUPPORTED_LANGUAGES) {
        if (source === target) continue;
        const key = pairKey({ source, target });
        const serving = results.filter((r) => r.capabilities?.has(key));
        const best = serving.find((r) => r.working.get(key) === true) ?? serving[0];
        statuses.push({
          source,
          target,
          status: !best ? 'unavailable' : best.working.get(key) === true ? 'loaded' : 'failed',
          engine: best?.engine ?? null,
          pivot: best?.capabilities?.get(key)?.pivot ?? null,
        });
      }
    }
    return statuses;
  }
}

/**
 * A text's words as one look-up gave them, with a vocabulary's translations of the same words
 * (compared lower-cased) added after theirs, and the words only the vocabulary translates added
 * as words of their own; the vocabulary's words it does not know (their only translation
 * themselves) add nothing.
 */
export function withVocabulary(known: readonly WordTranslations[], vocabulary: readonly WordTranslations[]): WordTranslations[] {
  const out = known.map((w) => ({ word: w.word, translations: [...w.translations] }));
  for (const { word, translations } of vocabulary) {
    if (translations.length === 1 && translations[0] === word) continue;
    const same = out.find((w) => w.word.toLowerCase() === word);
    if (!same) out.push({ word, translations: [...translations] });
    else for (const t of translations) if (!same.translations.includes(t)) same.translations.push(t);
  }
  return out;
}
