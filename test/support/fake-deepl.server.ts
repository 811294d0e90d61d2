import { FakeHttpServer, type RecordedRequest, fakeTranslation } from './fake-http.server.js';

const SOURCES = ['BG', 'DE', 'EN', 'ES', 'FR', 'IT', 'NL', 'RO', 'PT'];
const TARGETS = ['BG', 'DE', 'EN-GB', 'EN-US', 'ES', 'FR', 'IT', 'NL', 'RO', 'PT-PT'];

/**
 * A local stand-in for the DeepL API, speaking its wire format: `GET /v2/languages?type=…`,
 * `POST /v2/translate {text: [...], source_lang, target_lang}` → `{translations: [{detected_source_language, text}]}`,
 * `Authorization: DeepL-Auth-Key <key>` on every request, upper-case codes, and no plain `EN` target.
 */
export class FakeDeepLServer extends FakeHttpServer {
  sources = [...SOURCES];
  targets = [...TARGETS];

  private constructor(private readonly apiKey: string) {
    super();
  }

  static async start(options: { apiKey: string }): Promise<FakeDeepLServer> {
    const fake = new FakeDeepLServer(options.apiKey);
    await fake.listen();
    return fake;
  }

  get translations(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v2/translate');
  }

  protected handle(request: RecordedRequest) {
    if (request.headers.authorization !== `DeepL-Auth-Key ${this.apiKey}`) return { status: 403, body: { message: 'Wrong endpoint or key' } };
    const url = new URL(request.path, 'http://fake');
    if (request.method === 'GET' && url.pathname === '/v2/languages') {
      const type = url.searchParams.get('type') ?? 'source';
      const list = type === 'target' ? this.targets : this.sources;
      return { status: 200, body: list.map((language) => ({ language, name: language, ...(type === 'target' ? { supports_formality: false } : {}) })) };
    }
    if (request.method === 'POST' && url.pathname === '/v2/translate') {
      const { text, source_lang: source, target_lang: target } = (request.body ?? {}) as Record<string, unknown>;
      if (target === 'EN') return { status: 400, body: { message: "Value for 'target_lang' not supported. Use EN-GB or EN-US." } };
      if (typeof target !== 'string' || !this.targets.includes(target)) return { status: 400, body: { message: "Value for 'target_lang' not supported." } };
      if (source !== undefined && (typeof source !== 'string' || !this.sources.includes(source))) {
        return { status: 400, body: { message: "Value for 'source_lang' not supported." } };
      }
      if (!Array.isArray(text) || !text.every((t) => typeof t === 'string') || text.length > 50) {
        return { status: 400, body: { message: "Parameter 'text' not specified or too many texts." } };
      }
      return {
        status: 200,
        body: { translations: text.map((t: string) => ({ detected_source_language: source ?? 'EN', text: fakeTranslation(t, target) })) },
      };
    }
    return { status: 404, body: { message: 'Not found' } };
  }
}
