import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createApp } from '../../api/app.js';
import { type Runtime, createRuntime } from '../../api/runtime.js';
import { EldLanguageDetector } from '../../core/adapters/eld.language-detector.js';
import { loadConfig } from '../../core/config.js';
import type { Database } from '../../core/db/database.js';
import type { PlanId } from '../../core/plans.js';
import type { Adapters, Services } from '../../core/services.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

let detector: Promise<EldLanguageDetector> | undefined;

/** The language model takes a second and 100+ MB to load: one instance serves every test app. */
export function sharedLanguageDetector(): Promise<EldLanguageDetector> {
  detector ??= EldLanguageDetector.load('large');
  return detector;
}

/** A real Lore HTTP server on an ephemeral port, over a real database, with its job engine running. */
export interface TestApp {
  url: string;
  services: Services;
  runtime: Runtime;
  db: Database;
  close(): Promise<void>;
}

export interface TestAppOptions {
  adminToken?: string | undefined;
  /** Run the job engine (default true). */
  jobs?: boolean;
  env?: Record<string, string>;
  adapters?: Partial<Adapters>;
  /** Where the app logs (default: nowhere). */
  log?: Logger;
}

export async function startTestApp(db: Database, options: TestAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({ JOB_LEASE_SECONDS: '5', ...options.env });
  const log = options.log ?? pino({ level: 'silent' });
  // Each database gets the vector index its topology defaults to: in-process on PGlite, the database's on a server.
  const vectorIndex = { ...config.vectorIndex, kind: options.env?.VECTOR_INDEX === undefined ? (db.kind === 'embedded' ? 'flat' : 'pgvector') : config.vectorIndex.kind } as const;
  const runtime = await createRuntime(
    db,
    { ...config, vectorIndex, database: { kind: 'postgres', url: 'unused', poolSize: 1 } },
    log,
    { languageDetector: await sharedLanguageDetector(), ...options.adapters },
  );
  // Searches wait for nothing after this (the index of an empty test database loads at once).
  await runtime.services.adapters.vectorIndex.loaded;
  if (options.jobs ?? true) await runtime.engine.start();
  const app = createApp({
    config: {
      adminToken: 'adminToken' in options ? options.adminToken : TEST_ADMIN_TOKEN,
      metricsEnabled: true,
      metricsToken: config.metricsToken,
      publicBaseUrl: undefined,
      trustedProxies: config.trustedProxies,
    },
    services: runtime.services,
    log,
    version: 'test',
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    services: runtime.services,
    runtime,
    db,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await runtime.close();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * A small JSON client: `client(url, key)('POST', '/v1/...', body)`. Like a well-behaved client it
 * waits and retries when rate limited (honouring Retry-After), unless `strict` — the rate-limit
 * tests use strict clients to see every 429.
 */
export function client(baseUrl: string, key?: string, options: { strict?: boolean } = {}) {
  const once = send(baseUrl, key);
  return async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    for (let attempt = 0; ; attempt++) {
      const res = await once<T>(method, path, body, headers);
      const limited = res.status === 429 && (res.body as { error?: string }).error === 'rate_limit_exceeded';
      if (!limited || options.strict || attempt >= 10) return res;
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
    }
  };
}

function send(baseUrl: string, key?: string) {
  return async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    const isForm = body instanceof FormData;
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined && typeof body !== 'string' && !isForm ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' || isForm ? (body) : JSON.stringify(body),
    });
    const type = res.headers.get('content-type') ?? '';
    let parsed: unknown;
    if (type.includes('json')) {
      const text = await res.text();
      parsed = text ? JSON.parse(text) : text;
    } else if (type.startsWith('text/') || !type) parsed = await res.text();
    else parsed = Buffer.from(await res.arrayBuffer());
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}

let tenantCounter = 0;

/** Creates a tenant through the internal admin API; returns its id and first admin key. */
export async function createTenant(app: TestApp, plan: PlanId = 'standard'): Promise<{ id: string; key: string }> {
  tenantCounter += 1;
  const res = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: `Tenant ${tenantCounter}`, plan });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, key: res.body.api_key as string };
}

/** Creates an extra key of a role for a tenant, using its admin key. */
export async function createKey(app: TestApp, adminKey: string, role: 'read' | 'write' | 'admin'): Promise<string> {
  const res = await client(app.url, adminKey)('POST', '/v1/auth/keys', { name: `${role} key`, role });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key as string;
}

/** Polls a job until it is completed or failed. */
export async function waitForJob(app: TestApp, key: string, jobId: string, timeoutMs = 30_000): Promise<any> {
  const api = client(app.url, key);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api('GET', `/v1/jobs/${jobId}`);
    if (res.status !== 200) throw new Error(`job lookup failed: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status === 'completed' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${res.body.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Stores a document through the service layer (no HTTP, so no per-key rate limit): for tests that
 * need many documents as data and test something else. Returns the job id; the engine indexes it.
 */
export async function storeDocument(
  app: TestApp,
  tenantId: string,
  doc: { knowledge_base_id: string; title: string; content: string; tags?: Record<string, string> },
): Promise<{ job_id: string; document_id: string }> {
  return app.services.documents.ingest({ tenantId, subTenantId: null }, doc);
}

/** Ingests a text document and waits until it is indexed. */
export async function ingest(
  app: TestApp,
  key: string,
  doc: { knowledge_base_id: string; title: string; content: string; tags?: Record<string, string>; anonymize?: boolean },
): Promise<{ documentId: string; jobId: string; job: any }> {
  const res = await client(app.url, key)('POST', '/v1/documents', doc);
  if (res.status !== 202) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(res.body)}`);
  const job = await waitForJob(app, key, res.body.job_id);
  return { documentId: res.body.document_id, jobId: res.body.job_id, job };
}
