import type { EngineCapabilities, LanguagePair, TranslationEngine } from '../ports/translator.js';
import { TranslatorError, pairKey } from '../ports/translator.js';
import { type Language, SUPPORTED_LANGUAGES } from '../translation/translation.schema.js';
import { HttpJsonClient, type HttpEngineOptions, batches, probeByLanguageList } from './translation-http.js';

export interface LibreTranslateOptions extends HttpEngineOptions {
  /** Server root, e.g. 'http://libretranslate:5000'. */
  url: string;
  /** Sent as `api_key` when the server requires keys. */
  apiKey?: string | undefined;
  /** Texts per request (default 25) and characters per request (default 20 000); a longer text goes alone. */
  batchSize?: number;
  batchChars?: number;
}

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_LANGUAGES);

/**
 * A LibreTranslate-compatible server (self-hosted LibreTranslate covers all 8 languages):
 * `GET /languages` → `[{code, name, targets}]`, `POST /translate {q, source, target, format,
 * api_key?}` → `{translatedText}`, where `q` may be a list (and `translatedText` then is one).
 * Batches go one after another so Lore never multiplies its own load on the server.
 */
export class LibreTranslateTranslator implements TranslationEngine {
  readonly name = 'libretranslate';
  private readonly root: string;
  private readonly http: HttpJsonClient;

  constructor(private readonly options: LibreTranslateOptions) {
    this.root = options.url.replace(/\/+$/, '');
    this.http = new HttpJsonClient('LibreTranslate', options);
  }

  async discover(): Promise<EngineCapabilities> {
    const languages = await this.http.request(`${this.root}/languages`, { method: 'GET' });
    if (!Array.isArray(languages)) throw new TranslatorError('failed', 'LibreTranslate /languages answered something that is not a list');
    const capabilities: EngineCapabilities = new Map();
    for (const entry of languages as Array<{ code?: unknown; targets?: unknown }>) {
      const source = typeof entry?.code === 'string' ? entry.code.toLowerCase() : '';
      if (!SUPPORTED.has(source) || !Array.isArray(entry.targets)) continue;
      for (const target of entry.targets) {
        const t = typeof target === 'string' ? target.toLowerCase() : '';
        if (SUPPORTED.has(t) && t !== source) capabilities.set(pairKey({ source: source as Language, target: t as Language }), {});
      }
    }
    return capabilities;
  }

  async translate(texts: string[], pair: LanguagePair): Promise<string[]> {
    const out: string[] = [];
    for (const batch of batches(texts, this.options.batchSize ?? 25, this.options.batchChars ?? 20_000)) {
      const answer = (await this.http.request(`${this.root}/translate`, {
        method: 'POST',
        body: {
          q: batch,
          source: pair.source,
          target: pair.target,
          format: 'text',
          ...(this.options.apiKey ? { api_key: this.options.apiKey } : {}),
        },
      })) as { translatedText?: unknown } | null;
      const translated = answer?.translatedText;
      if (!Array.isArray(translated) || translated.length !== batch.length || !translated.every((t) => typeof t === 'string')) {
        throw new TranslatorError('failed', `LibreTranslate answered no list of ${batch.length} translations`);
      }
      out.push(...translated);
    }
    return out;
  }

  /** Every call to a LibreTranslate server costs it work: the language list answering is the probe. */
  probe(capabilities: EngineCapabilities): Promise<Map<string, boolean>> {
    return probeByLanguageList(() => this.discover(), capabilities);
  }
}
