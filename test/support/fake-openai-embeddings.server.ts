import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible embeddings endpoint (POST /v1/embeddings), speaking the
 * same wire format, with knobs to fail, stall and reorder, and a record of every request.
 */

export interface FakeOpenAiEmbeddingsRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model?: unknown; input?: unknown; encoding_format?: unknown; dimensions?: unknown };
}

export interface FakeFailure {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeOpenAiEmbeddingsOptions {
  /** Size of the vectors answered when the request does not ask for `dimensions` (default 24). */
  dimensions?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
}

export class FakeOpenAiEmbeddingsServer {
  readonly requests: FakeOpenAiEmbeddingsRequest[] = [];
  /** Milliseconds to wait before answering each request. */
  delayMs = 0;
  /** Requests being answered now, and the most there were at once. */
  inFlight = 0;
  maxInFlight = 0;
  /** Answer `data` in reverse order, as a server is allowed to. */
  reverseOrder = false;
  /** Answer with base64 instead of float arrays, as servers ignoring `encoding_format` do. */
  base64 = false;
  private readonly failures: FakeFailure[] = [];
  private readonly server = createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });

  private constructor(private readonly options: FakeOpenAiEmbeddingsOptions) {}

  static async start(options: FakeOpenAiEmbeddingsOptions = {}): Promise<FakeOpenAiEmbeddingsServer> {
    const fake = new FakeOpenAiEmbeddingsServer(options);
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    return fake;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `count` requests are answered with this failure instead (after the delay, if any). */
  failNext(count: number, failure: FakeFailure): void {
    for (let i = 0; i < count; i++) this.failures.push(failure);
  }

  /** What the fake answers for `text`: deterministic, different per text, deliberately not normalised. */
  static vectorFor(text: string, dimensions: number): number[] {
    let state = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193) >>> 0;
    return Array.from({ length: dimensions }, () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return (state / 4294967296) * 4 - 2;
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = parseBody(Buffer.concat(chunks).toString('utf8'));
    this.requests.push({ path: request.url ?? '', headers: request.headers, body });
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    } finally {
      this.inFlight--;
    }
    if (response.destroyed) return;

    const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(payload));
    };

    const failure = this.failures.shift();
    if (failure !== undefined) {
      send(failure.status, failure.body ?? { error: { message: `Injected failure ${failure.status}`, type: 'server_error' } }, failure.headers);
      return;
    }
    if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
      send(404, { error: { message: 'Not found', type: 'invalid_request_error' } });
      return;
    }
    const expected = this.options.apiKey;
    const authorization = request.headers.authorization;
    if (expected !== undefined && authorization !== `Bearer ${expected}`) {
      const provided = authorization?.replace(/^Bearer /, '') ?? '';
      // Real providers echo the rejected key back, which is what the client must not leak.
      send(401, { error: { message: `Incorrect API key provided: ${provided}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }
    const { model, input, dimensions } = body;
    if (typeof model !== 'string' || !Array.isArray(input) || !input.every((text) => typeof text === 'string')) {
      send(400, { error: { message: "'input' must be a list of strings and 'model' a string", type: 'invalid_request_error' } });
      return;
    }
    const size = typeof dimensions === 'number' ? dimensions : (this.options.dimensions ?? 24);
    const data = input.map((text, index) => {
      const vector = FakeOpenAiEmbeddingsServer.vectorFor(text, size);
      const embedding = this.base64 ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    if (this.reverseOrder) data.reverse();
    send(200, { object: 'list', data, model, usage: { prompt_tokens: input.length, total_tokens: input.length } });
  }
}

function parseBody(text: string): FakeOpenAiEmbeddingsRequest['body'] {
  try {
    return JSON.parse(text) as FakeOpenAiEmbeddingsRequest['body'];
  } catch {
    return {};
  }
}
