import { FakeHttpServer, type RecordedRequest, fakeTranslation } from './fake-http.server.js';

const ALL = ['en', 'nl', 'fr', 'de', 'es', 'it', 'bg', 'ro', 'pt'];

/**
 * A local stand-in for a LibreTranslate server, speaking its wire format: `GET /languages` and
 * `POST /translate {q, source, target, format, api_key}` → `{translatedText}` (a list when `q` is).
 */
export class FakeLibreTranslateServer extends FakeHttpServer {
  /** The languages it lists (each with every other one as a target). */
  languages = [...ALL];

  private constructor(private readonly apiKey: string | undefined) {
    super();
  }

  static async start(options: { apiKey?: string } = {}): Promise<FakeLibreTranslateServer> {
    const fake = new FakeLibreTranslateServer(options.apiKey);
    await fake.listen();
    return fake;
  }

  /** The requests to POST /translate. */
  get translations(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/translate');
  }

  protected handle(request: RecordedRequest) {
    if (request.method === 'GET' && request.path === '/languages') {
      return {
        status: 200,
        body: this.languages.map((code) => ({ code, name: code.toUpperCase(), targets: this.languages.filter((t) => t !== code) })),
      };
    }
    if (request.method === 'POST' && request.path === '/translate') {
      const { q, source, target, format, api_key: key } = (request.body ?? {}) as Record<string, unknown>;
      if (this.apiKey !== undefined && key !== this.apiKey) return { status: 403, body: { error: 'Invalid API key' } };
      if (typeof source !== 'string' || typeof target !== 'string' || !this.languages.includes(source) || !this.languages.includes(target)) {
        return { status: 400, body: { error: `${String(source)} is not supported` } };
      }
      if (format !== undefined && format !== 'text' && format !== 'html') return { status: 400, body: { error: 'Invalid format' } };
      if (typeof q === 'string') return { status: 200, body: { translatedText: fakeTranslation(q, target) } };
      if (Array.isArray(q) && q.every((t) => typeof t === 'string')) {
        return { status: 200, body: { translatedText: q.map((t: string) => fakeTranslation(t, target)) } };
      }
      return { status: 400, body: { error: 'Invalid request: missing q parameter' } };
    }
    return { status: 404, body: { error: 'Not Found' } };
  }
}
