import type { EngineCapabilities, LanguagePair, TranslationEngine } from '../ports/translator.js';
import { TranslatorError, pairKey } from '../ports/translator.js';
import { type Language, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import { HttpJsonClient, type HttpEngineOptions, batches, probeByLanguageList } from './translation-http.js';

export interface DeepLOptions extends HttpEngineOptions {
  /** API root; default `https://api-free.deepl.com` for free keys (ending in `:fx`), else `https://api.deepl.com`. */
  url?: string | undefined;
  apiKey: string;
  /** Texts per request (DeepL's limit: 50) and characters per request (its request limit is 128 KiB). */
  batchSize?: number;
  batchChars?: number;
}

/**
 * DeepL (or a server speaking its API): `GET /v2/languages?type=source|target`,
 * `POST /v2/translate {text: [...], source_lang, target_lang}` → `{translations: [{text}]}`, with
 * `Authorization: DeepL-Auth-Key <key>`. Language codes are upper case; English as a target must be
 * a variant (British English is used, EN-US when the server lists no EN-GB).
 */
export class DeepLTranslator implements TranslationEngine {
  readonly name = 'deepl';
  private readonly root: string;
  private readonly http: HttpJsonClient;
  /** The target code DeepL takes for each of our languages, from its target list. */
  private targetCodes = new Map<Language, string>();

  constructor(private readonly options: DeepLOptions) {
    const fallback = options.apiKey.endsWith(':fx') ? 'https://api-free.deepl.com' : 'https://api.deepl.com';
    this.root = (options.url ?? fallback).replace(/\/+$/, '').replace(/\/v2$/, '');
    this.http = new HttpJsonClient('DeepL', options);
  }

  private get headers(): Record<string, string> {
    return { authorization: `DeepL-Auth-Key ${this.options.apiKey}` };
  }

  private async languages(type: 'source' | 'target'): Promise<string[]> {
    const list = await this.http.request(`${this.root}/v2/languages?type=${type}`, { method: 'GET', headers: this.headers });
    if (!Array.isArray(list)) throw new TranslatorError('failed', `DeepL /v2/languages?type=${type} answered something that is not a list`);
    return (list as Array<{ language?: unknown }>).flatMap((l) => (typeof l?.language === 'string' ? [l.language.toUpperCase()] : []));
  }

  async discover(): Promise<EngineCapabilities> {
    const [sources, targets] = await Promise.all([this.languages('source'), this.languages('target')]);
    const targetCodes = new Map<Language, string>();
    for (const language of SUPPORTED_LANGUAGES) {
      const upper = language.toUpperCase();
      const code = language === 'en' ? ['EN-GB', 'EN-US', 'EN'].find((c) => targets.includes(c)) : targets.includes(upper) ? upper : undefined;
      if (code) targetCodes.set(language, code);
    }
    this.targetCodes = targetCodes;
    const capabilities: EngineCapabilities = new Map();
    for (const source of SUPPORTED_LANGUAGES) {
      if (!sources.includes(source.toUpperCase())) continue;
      for (const target of targetCodes.keys()) if (target !== source) capabilities.set(pairKey({ source, target }), {});
    }
    return capabilities;
  }

  async translate(texts: string[], pair: LanguagePair): Promise<string[]> {
    if (!this.targetCodes.size) await this.discover();
    const target = this.targetCodes.get(pair.target);
    if (!target) throw new TranslatorError('failed', `DeepL lists no target language ${pair.target}`);
    const out: string[] = [];
    for (const batch of batches(texts, this.options.batchSize ?? 50, this.options.batchChars ?? 30_000)) {
      const answer = (await this.http.request(`${this.root}/v2/translate`, {
        method: 'POST',
        headers: this.headers,
        body: { text: batch, source_lang: pair.source.toUpperCase(), target_lang: target },
      })) as { translations?: unknown } | null;
      const translations = answer?.translations;
      if (
        !Array.isArray(translations) ||
        translations.length !== batch.length ||
        !translations.every((t) => typeof (t as { text?: unknown } | null)?.text === 'string')
      ) {
        throw new TranslatorError('failed', `DeepL answered no list of ${batch.length} translations`);
      }
      out.push(...(translations as Array<{ text: string }>).map((t) => t.text));
    }
    return out;
  }

  /** DeepL bills characters, so a probe only asks for the language lists (which also checks the key). */
  probe(capabilities: EngineCapabilities): Promise<Map<string, boolean>> {
    return probeByLanguageList(() => this.discover(), capabilities);
  }
}
