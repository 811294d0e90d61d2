import { setTimeout as sleep } from 'node:timers/promises';
import type { EmbedOptions, Embedder } from '../ports/embedder.js';
import { EmbedderError } from '../ports/embedder.js';
import type { FitMethod } from './fit-dimensions.js';
import { assertDimensions, fitDimensions } from './fit-dimensions.js';
import { retryAfterMs } from '../shared/retry-after.js';

export interface OpenAiEmbedderOptions {
  /** Server root, e.g. 'http://tei:8080' or 'https://api.openai.com' (a trailing '/v1' is tolerated). */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Texts per request (default 64): large enough to amortise latency, small enough for TEI's and Ollama's default request limits. */
  batchSize?: number;
  /** Per attempt, including reading the body (default 30 000). */
  timeoutMs?: number;
  /** Retries after the first attempt, on network errors, timeouts, 429 and 5xx (default 3). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (default 500). */
  retryBaseDelayMs?: number;
  /** Upper bound for any single wait, including one asked for by `Retry-After` (default 30 000). */
  maxRetryDelayMs?: number;
  /** The model's output size. When set, answers of another size are refused, and `dimensions` is never asked above it. */
  nativeDimensions?: number;
  /**
   * Ask the server for the knowledge base's size (the `dimensions` request field). Only for models
   * that support it, such as OpenAI's text-embedding-3 family, which truncates Matryoshka-style.
   */
  sendDimensions?: boolean;
  /** How vectors of another size are fitted locally (default 'project'; 'truncate' for Matryoshka models). */
  fit?: FitMethod;
  /** Prepended to queries, e.g. 'query: ' for e5 models served by TEI. */
  queryPrefix?: string;
  /** Prepended to documents, e.g. 'passage: ' for e5 models. */
  documentPrefix?: string;
  fetch?: typeof fetch;
  /** How a wait between attempts is spent (default: a timer); tests pass one that records the delays. */
  sleep?: (milliseconds: number) => Promise<unknown>;
}

interface EmbeddingsResponse {
  data: { index: number; embedding: number[] | string }[];
}

/** Statuses worth another try: the request was fine, the server was busy or broken. */
function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Any OpenAI-compatible `POST /v1/embeddings` endpoint: hosted APIs, Hugging Face TEI, Ollama,
 * vLLM. Batches are sent one after another, so a single embedder never multiplies its own load on
 * a rate-limited endpoint.
 */
export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  private readonly url: string;
  /** The URL without credentials or query, for error messages. */
  private readonly displayUrl: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetch: typeof fetch;
  private readonly sleep: (milliseconds: number) => Promise<unknown>;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    const root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.url = `${root}/v1/embeddings`;
    const parsed = new URL(this.url);
    this.displayUrl = `${parsed.origin}${parsed.pathname}`;
    this.id = `openai:${options.model}`;
    this.batchSize = positiveInteger(options.batchSize ?? 64, 'batchSize');
    this.timeoutMs = positiveInteger(options.timeoutMs ?? 30_000, 'timeoutMs');
    this.maxRetries = nonNegativeInteger(options.maxRetries ?? 3, 'maxRetries');
    this.retryBaseDelayMs = nonNegativeInteger(options.retryBaseDelayMs ?? 500, 'retryBaseDelayMs');
    this.maxRetryDelayMs = nonNegativeInteger(options.maxRetryDelayMs ?? 30_000, 'maxRetryDelayMs');
    if (options.nativeDimensions !== undefined) positiveInteger(options.nativeDimensions, 'nativeDimensions');
    this.fetch = options.fetch ?? globalThis.fetch;
    this.sleep = options.sleep ?? sleep;
  }

  async embed(texts: string[], options: EmbedOptions): Promise<Float32Array[]> {
    assertDimensions(options.dimensions);
    const prefix = (options.kind === 'query' ? this.options.queryPrefix : this.options.documentPrefix) ?? '';
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize).map((text) => prefix + text);
      for (const vector of await this.embedBatch(batch, options.dimensions)) vectors.push(vector);
    }
    return vectors;
  }

  private async embedBatch(input: string[], dimensions: number): Promise<Float32Array[]> {
    const { nativeDimensions, sendDimensions } = this.options;
    const requested = sendDimensions === true ? Math.min(dimensions, nativeDimensions ?? dimensions) : undefined;
    const body = JSON.stringify({
      model: this.options.model,
      input,
      encoding_format: 'float',
      ...(requested === undefined ? {} : { dimensions: requested }),
    });
    const payload = await this.post(body);
    const expectedSize = requested ?? nativeDimensions;
    return this.parse(payload, input.length, expectedSize).map((vector) =>
      fitDimensions(vector, dimensions, this.options.fit ?? 'project'),
    );
  }

  /** POSTs with a per-attempt timeout, retrying what a retry can fix. Resolves to the parsed JSON body. */
  private async post(body: string): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey !== undefined && this.options.apiKey !== '') {
      headers.authorization = `Bearer ${this.options.apiKey}`;
    }
    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < this.maxRetries;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await this.fetch(this.url, { method: 'POST', headers, body, signal: controller.signal });
        text = await response.text();
      } catch (error) {
        const reason = controller.signal.aborted ? `timed out after ${this.timeoutMs} ms` : 'network error';
        if (retriesLeft) {
          await this.sleep(this.backoff(attempt));
          continue;
        }
        throw new EmbedderError('unavailable', this.describe(`${reason}, after ${attempt + 1} attempt(s)`), undefined, {
          cause: error,
        });
      } finally {
        clearTimeout(timer);
      }

      if (response.ok) {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new EmbedderError('invalid_response', this.describe('answered with a body that is not JSON'), response.status);
        }
      }
      if (isRetryableStatus(response.status)) {
        if (retriesLeft) {
          await this.sleep(this.retryDelay(response.headers, attempt));
          continue;
        }
        throw new EmbedderError(
          'unavailable',
          this.describe(`HTTP ${response.status}${this.upstreamReason(text)}, after ${attempt + 1} attempt(s)`),
          response.status,
        );
      }
      throw new EmbedderError('rejected', this.describe(`HTTP ${response.status}${this.upstreamReason(text)}`), response.status);
    }
  }

  private parse(payload: unknown, count: number, expectedSize: number | undefined): Float32Array[] {
    const data = (payload as Partial<EmbeddingsResponse> | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new EmbedderError('invalid_response', this.describe(`answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs`));
    }
    // Servers may answer out of order; `index` is what ties a vector to its input.
    const vectors = new Array<Float32Array | undefined>(count);
    for (const item of data) {
      const index = item?.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) {
        throw new EmbedderError('invalid_response', this.describe('answered embeddings with missing or duplicate indexes'));
      }
      const vector = toVector(item.embedding);
      if (vector === undefined || vector.length === 0) {
        throw new EmbedderError('invalid_response', this.describe(`answered an embedding that is not a list of numbers at index ${index}`));
      }
      if (expectedSize !== undefined && vector.length !== expectedSize) {
        throw new EmbedderError('invalid_response', this.describe(`answered ${vector.length} dimensions, expected ${expectedSize}`));
      }
      vectors[index] = vector;
    }
    return vectors as Float32Array[];
  }

  /** Exponential backoff with "equal jitter": half fixed, half random, so clients spread out without ever retrying at once. */
  private backoff(attempt: number): number {
    const exponential = Math.min(this.maxRetryDelayMs, this.retryBaseDelayMs * 2 ** attempt);
    return exponential / 2 + Math.random() * (exponential / 2);
  }

  /** `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms` when given, else backoff. */
  private retryDelay(headers: Headers, attempt: number): number {
    const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
    if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.min(milliseconds, this.maxRetryDelayMs);
    const delay = retryAfterMs(headers.get('retry-after'));
    return delay === undefined ? this.backoff(attempt) : Math.min(delay, this.maxRetryDelayMs);
  }

  private describe(what: string): string {
    return this.redact(`Embedding request to ${this.displayUrl} (model ${this.options.model}) failed: ${what}`);
  }

  /** The upstream error message helps diagnose (wrong model, input too long); kept short. */
  private upstreamReason(body: string): string {
    let message: unknown;
    try {
      const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
      message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    } catch {
      message = undefined;
    }
    return typeof message === 'string' && message !== '' ? `: ${message.slice(0, 300)}` : '';
  }

  /**
   * Some providers echo (part of) a rejected key in their error message. The configured key is
   * removed, and so is anything shaped like a key, in case the provider echoes a masked variant.
   */
  private redact(message: string): string {
    const apiKey = this.options.apiKey;
    let clean = apiKey !== undefined && apiKey.length > 0 ? message.split(apiKey).join('[redacted]') : message;
    clean = clean.replace(/\b(?:sk|pk|rk|hf|gsk)[-_][\w*.-]{8,}/gi, '[redacted]');
    return clean;
  }
}

/** Float arrays, or base64 little-endian float32 from servers that ignore `encoding_format`. */
function toVector(embedding: unknown): Float32Array | undefined {
  if (Array.isArray(embedding)) {
    return embedding.every((x) => typeof x === 'number' && Number.isFinite(x)) ? Float32Array.from(embedding as number[]) : undefined;
  }
  if (typeof embedding === 'string') {
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    const vector = new Float32Array(bytes.length / 4);
    for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
    return vector;
  }
  return undefined;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}
