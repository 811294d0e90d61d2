import { setTimeout as sleep } from 'node:timers/promises';
import { type EngineCapabilities, TranslatorError } from '../ports/translator.js';
import { retryAfterMs } from '../shared/retry-after.js';

export interface HttpEngineOptions {
  /** Per attempt, including reading the body (default 15 000). A timeout is not retried: it already took the budget. */
  timeoutMs?: number;
  /** Retries after the first attempt, on network errors, 429 and 5xx (default 2). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (default 300). */
  retryBaseDelayMs?: number;
  /** Upper bound of any wait, also one asked for by `Retry-After` (default 5 000). */
  maxRetryDelayMs?: number;
  fetch?: typeof fetch;
}

/**
 * JSON over HTTP for the translation engines: a time limit per attempt, bounded retries with
 * backoff on what a retry can fix (network errors, 429, 5xx, honouring Retry-After), and errors
 * mapped to the port's two kinds. Messages name the engine and the status, never the key or text.
 */
export class HttpJsonClient {
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetch: typeof fetch;

  constructor(
    private readonly engine: string,
    options: HttpEngineOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 300;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async request(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown }): Promise<unknown> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const path = new URL(url).pathname;
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.maxRetries;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await this.fetch(url, { method: init.method, headers, body, signal: controller.signal });
        text = await response.text();
      } catch (error) {
        if (controller.signal.aborted) {
          throw new TranslatorError('failed', `${this.engine} ${path} timed out after ${this.timeoutMs} ms`, { cause: error });
        }
        if (retriesLeft) {
          await sleep(this.backoff(attempt));
          continue;
        }
        throw new TranslatorError('unavailable', `${this.engine} ${path} cannot be reached (after ${attempt + 1} attempts)`, { cause: error });
      } finally {
        clearTimeout(timer);
      }
      if (response.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new TranslatorError('failed', `${this.engine} ${path} answered a body that is not JSON`);
        }
      }
      const status = response.status;
      if (status === 429 || status >= 500) {
        if (retriesLeft) {
          await sleep(this.retryDelay(response.headers, attempt));
          continue;
        }
        throw new TranslatorError('unavailable', `${this.engine} ${path} answered HTTP ${status} (after ${attempt + 1} attempts)`);
      }
      // A refused key or a used-up quota (DeepL: 456) makes the engine unusable until someone acts.
      const code = status === 401 || status === 403 || status === 456 ? 'unavailable' : 'failed';
      throw new TranslatorError(code, `${this.engine} ${path} answered HTTP ${status}`);
    }
  }

  private backoff(attempt: number): number {
    const exponential = Math.min(this.maxRetryDelayMs, this.retryBaseDelayMs * 2 ** attempt);
    return exponential / 2 + Math.random() * (exponential / 2);
  }

  private retryDelay(headers: Headers, attempt: number): number {
    const delay = retryAfterMs(headers.get('retry-after'));
    return delay === undefined ? this.backoff(attempt) : Math.min(delay, this.maxRetryDelayMs);
  }
}

/** Splits texts into batches of at most `maxTexts` texts and `maxChars` characters (a longer text goes alone). */
export function batches(texts: string[], maxTexts: number, maxChars: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const text of texts) {
    if (current.length && (current.length >= maxTexts || chars + text.length > maxChars)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(text);
    chars += text.length;
  }
  if (current.length) out.push(current);
  return out;
}

/**
 * The probe of an engine that bills or works per translation: a pair works when the engine's
 * language list (fetched by `discover`, which also checks the key) still offers it.
 */
export async function probeByLanguageList(
  discover: () => Promise<EngineCapabilities>,
  capabilities: EngineCapabilities,
): Promise<Map<string, boolean>> {
  const listed = await discover().catch(() => undefined);
  return new Map([...capabilities.keys()].map((key) => [key, listed?.has(key) === true]));
}
