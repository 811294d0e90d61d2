import createClient, { type Client } from 'openapi-fetch';
import { retryAfterMs } from '../core/shared/retry-after.js';
import type { components, paths } from './openapi.js';

export type { components, paths };
export type Job = components['schemas']['Job'];
/** The `metadata` part of an upload (a JSON string in the form; see docs/api.md). */
export interface UploadMetadata {
  knowledge_base_id: string;
  title?: string;
  tags?: Record<string, string>;
  anonymize?: boolean;
}

export interface LoreClientOptions {
  /** Where Lore answers, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** An API key (`lore_…`), sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Retries of a 429 or 503 answer, each after its `Retry-After` (default 3). */
  maxRetries?: number;
  /** The longest `Retry-After` waited for, in seconds (default 60); a longer one is returned as is. */
  maxRetryAfterSeconds?: number;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** How waits are made (default: timers); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
}

/** An error answer of Lore: the status and the body `{error, message, request_id, ...}`. */
export class LoreError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error: string; message: string; request_id?: string; [extra: string]: unknown },
  ) {
    super(`${status} ${body.error}: ${body.message}`);
    this.name = 'LoreError';
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `Retry-After` in whole seconds (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  const ms = retryAfterMs(value, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** A fetch that answers a 429 or 503 by waiting its `Retry-After` and trying again, a few times. */
function retrying(options: Required<Pick<LoreClientOptions, 'maxRetries' | 'maxRetryAfterSeconds' | 'fetch' | 'sleep'>>) {
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const response = await options.fetch(request.clone());
      if (response.status !== 429 && response.status !== 503) return response;
      const wait = retryAfterSeconds(response.headers.get('retry-after'));
      if (attempt >= options.maxRetries || wait === undefined || wait > options.maxRetryAfterSeconds) return response;
      await response.body?.cancel();
      await options.sleep(wait * 1000);
    }
  };
}

/**
 * A typed client of Lore's REST API: `api` is an openapi-fetch client whose paths, parameters,
 * bodies and answers are typed from the OpenAPI document (client/openapi.d.ts), with the key sent
 * and 429/503 retried after `Retry-After`; the methods around it cover what every caller writes
 * again otherwise: waiting for a job, uploading a file, and turning error answers into `LoreError`.
 */
export class LoreClient {
  readonly api: Client<paths>;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: LoreClientOptions) {
    this.sleep = options.sleep ?? defaultSleep;
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/$/, ''),
      headers: { authorization: `Bearer ${options.apiKey}` },
      fetch: retrying({
        maxRetries: options.maxRetries ?? 3,
        maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
        fetch: options.fetch ?? ((request) => fetch(request)),
        sleep: this.sleep,
      }),
    });
  }

  /** The data of a successful answer, or a `LoreError` for an error answer. */
  static data<T>(result: { data?: T; error?: unknown; response: Response }): T {
    if (result.error !== undefined || result.data === undefined) {
      throw new LoreError(result.response.status, (result.error ?? { error: 'empty_response', message: 'The answer had no body.' }) as LoreError['body']);
    }
    return result.data;
  }

  /** Polls `GET /v1/jobs/{id}` until the job completes or fails, and returns it. */
  async waitForJob(jobId: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<Job> {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const job = LoreClient.data(await this.api.GET('/v1/jobs/{id}', { params: { path: { id: jobId } } }));
      if (job.status === 'completed' || job.status === 'failed') return job;
      if (Date.now() > deadline) throw new Error(`Job ${jobId} is still ${job.status} after ${options.timeoutMs ?? 300_000} ms.`);
      await this.sleep(options.intervalMs ?? 500);
    }
  }

  /** `POST /v1/documents/upload`: a file (text or PDF) with its metadata. */
  async upload(file: Blob, fileName: string, metadata: UploadMetadata) {
    const form = new FormData();
    form.append('metadata', JSON.stringify(metadata));
    form.append('file', file, fileName);
    return LoreClient.data(
      await this.api.POST('/v1/documents/upload', {
        body: form as unknown as never,
        bodySerializer: (body: unknown) => body as FormData,
      }),
    );
  }
}
