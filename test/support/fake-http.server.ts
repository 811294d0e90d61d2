import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface InjectedFailure {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * The common part of the local stand-ins for translation servers: a real HTTP server on an
 * ephemeral port that records requests and can be told to fail, stall, or answer out of turn.
 */
export abstract class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  /** Milliseconds to wait before answering each request. */
  delayMs = 0;
  private readonly failures: InjectedFailure[] = [];
  private readonly server = createServer((request, response) => {
    this.receive(request, response).catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))));
  });

  protected async listen(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `count` requests get this answer instead. */
  failNext(count: number, failure: InjectedFailure): void {
    for (let i = 0; i < count; i++) this.failures.push(failure);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  protected abstract handle(request: RecordedRequest): { status: number; body: unknown; headers?: Record<string, string> };

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      body = undefined;
    }
    const recorded = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body };
    this.requests.push(recorded);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (response.destroyed) return;
    const answer = this.failures.shift() ?? this.handle(recorded);
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(JSON.stringify(answer.body ?? { error: `Injected failure ${answer.status}` }));
  }
}

/** What the fakes answer for a text: recognisably "translated", deterministic, and different per target. */
export function fakeTranslation(text: string, target: string): string {
  return `[${target.toLowerCase()}] ${text}`;
}
