import { FakeHttpServer, type RecordedRequest } from './fake-http.server.js';

/**
 * A local stand-in for an OpenAI-compatible server (whisper.cpp, vLLM, hosted APIs), speaking the
 * two calls the add-ons make: `POST /v1/audio/transcriptions` (multipart) → `{text}`, and
 * `POST /v1/chat/completions` → a completion whose message content is the next of `chatAnswers`
 * (a string as it is, anything else as JSON), with token counts; `GET /v1/models` for health.
 */
export class FakeOpenAiAddonsServer extends FakeHttpServer {
  chatAnswers: unknown[] = [];
  transcriptText = 'guten morgen zusammen';
  readonly usage = { prompt_tokens: 120, completion_tokens: 45 };

  static async start(): Promise<FakeOpenAiAddonsServer> {
    const fake = new FakeOpenAiAddonsServer();
    await fake.listen();
    return fake;
  }

  get transcriptions(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v1/audio/transcriptions');
  }

  get completions(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/v1/chat/completions');
  }

  protected handle(request: RecordedRequest) {
    if (request.method === 'GET' && request.path === '/v1/models') return { status: 200, body: { data: [{ id: 'fake' }] } };
    if (request.method === 'POST' && request.path === '/v1/audio/transcriptions') {
      if (!String(request.headers['content-type']).startsWith('multipart/form-data')) return { status: 400, body: { error: 'multipart expected' } };
      return { status: 200, body: { text: this.transcriptText } };
    }
    if (request.method === 'POST' && request.path === '/v1/chat/completions') {
      const answer = this.chatAnswers.length > 1 ? this.chatAnswers.shift() : this.chatAnswers[0];
      const content = typeof answer === 'string' ? answer : JSON.stringify(answer);
      return { status: 200, body: { choices: [{ index: 0, message: { role: 'assistant', content } }], usage: this.usage } };
    }
    return { status: 404, body: { error: 'not found' } };
  }
}
