import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import type { z } from 'zod';
import { createApp } from '../../api/app.js';
import { errorResponseSchema } from '../../api/schemas.js';
import type { CorpusJobView } from '../../core/corpora/corpus.schema.js';
import { type JobView, jobSchema } from '../../core/jobs/job.schema.js';
import { createDomainMetrics, createRegistry } from '../../runtime/prometheus.domain-metrics.js';
import { type Runtime, createRuntime } from '../../runtime/runtime.js';
import type { LanguageDetector } from '../../core/ports/language-detector.js';
import { createLanguageDetector } from '../../runtime/adapters.js';
import { loadConfig } from '../../core/config.js';
import type { Database } from '../../core/db/database.js';
import type { PlanId } from '../../core/plans.js';
import type { Adapters, Services } from '../../runtime/services.js';
import { pollUntil } from './poll.js';
import { RouteTable, schemaMismatches } from './response-schemas.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

let detector: Promise<LanguageDetector> | undefined;

/**
 * The language model takes a second and 100+ MB to load: one instance serves every test app. It is
 * the detector the runtime builds with the default configuration (eld-large and the catalogue
 * dictionaries' vocabularies).
 */
export function sharedLanguageDetector(): Promise<LanguageDetector> {
  detector ??= createLanguageDetector(loadConfig({}), pino({ level: 'silent' }));
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

/** The routes of each running test app (from createApp), by its URL, for `client`'s response checks. */
const routeTables = new Map<string, RouteTable>();

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
  // Mail goes to a folder of the OS's temporary directory unless a test gives its own mailer or MAIL_DIR.
  const config = loadConfig({ JOB_LEASE_SECONDS: '5', MAIL_DIR: path.join(os.tmpdir(), `lore-test-mail-${process.pid}`), ...options.env });
  const log = options.log ?? pino({ level: 'silent' });
  // Each database gets the vector index its topology defaults to: in-process on PGlite, the database's on a server.
  // Snapshots only where a test asks for them (the default would be ./data, shared by every test app).
  const vectorIndex = {
    ...config.vectorIndex,
    kind: options.env?.VECTOR_INDEX === undefined ? (db.kind === 'embedded' ? 'flat' : 'pgvector') : config.vectorIndex.kind,
    snapshotDir: options.env?.VECTOR_SNAPSHOT_DIR === undefined ? undefined : config.vectorIndex.snapshotDir,
  } as const;
  // Rate-limit counters where the topology keeps them: in memory on PGlite, in the database's table on a
  // server (as API pods sharing it do), so both engines meet the same limits at their edges.
  const rateLimitStore = options.env?.RATE_LIMIT_STORE === undefined ? (db.kind === 'embedded' ? 'memory' : 'postgres') : config.rateLimitStore;
  // Each app starts with no counters, as one in memory does: the suites before it on this database
  // (loopback's address, the same accounts) spent none of its limits. Apps that share one limit
  // are started before either counts. (A test of an unreachable database has none to clear.)
  if (rateLimitStore === 'postgres') await db.query('DELETE FROM rate_limits').catch(() => undefined);
  // Each app has its registry, as each server process does.
  const registry = createRegistry();
  const runtime = await createRuntime(
    db,
    { ...config, vectorIndex, rateLimitStore, database: { kind: 'postgres', url: 'unused', poolSize: 1 } },
    log,
    { languageDetector: await sharedLanguageDetector(), metrics: createDomainMetrics(registry), ...options.adapters },
  );
  // Searches wait for nothing after this (the index of an empty test database loads at once).
  await runtime.services.adapters.vectorIndex.loaded;
  if (options.jobs ?? true) await runtime.jobs.start();
  const app = createApp({
    config: {
      adminToken: 'adminToken' in options ? options.adminToken : TEST_ADMIN_TOKEN,
      metricsEnabled: true,
      metricsToken: config.metricsToken,
      publicBaseUrl: undefined,
      trustedProxies: config.trustedProxies,
      portal: config.portal,
    },
    services: runtime.services,
    log,
    version: 'test',
    registry,
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  runtime.services.portal.listeningOn(port);
  const url = `http://127.0.0.1:${port}`;
  routeTables.set(url, new RouteTable(app.routes));
  return {
    url,
    services: runtime.services,
    runtime,
    db,
    close: async () => {
      routeTables.delete(url);
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
 * tests use strict clients to see every 429. Against a test app, it checks every body a route
 * answers with its success status against the route's declared response schema, and throws
 * naming the route, the fields and what they held when it does not match. Its bodies are `any`:
 * `typed` gives a body its schema's type.
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

export type ApiClient = ReturnType<typeof client>;

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
    routeTables.get(baseUrl)?.check(method, path, { status: res.status, contentType: type, body: parsed });
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
}

/**
 * The response with its body checked against `schema` and typed by it, e.g.
 * `typed(await api('GET', path), documentSchema).body.status`. Throws, listing the fields, when
 * the body does not match (an error body never matches a success schema).
 */
export function typed<S extends z.ZodType>(res: ApiResponse<unknown>, schema: S): ApiResponse<z.infer<S>> {
  const problems = schemaMismatches(schema, res.body);
  if (problems.length) throw new Error(`a ${res.status} response does not match the schema the test expects:\n  ${problems.join('\n  ')}`);
  return res as ApiResponse<z.infer<S>>;
}

/** The body of an error response, checked against the Error schema every error answer follows. */
export function errorBody(res: ApiResponse<unknown>): z.infer<typeof errorResponseSchema> {
  return typed(res, errorResponseSchema).body;
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

interface JobProgress {
  status: string;
  processed_chunks: number;
  total_chunks: number;
}

/** Polls a job (GET `path`, its body read by `read`) until it is completed or failed, and returns it. */
async function pollJob<J extends JobProgress>(api: ApiClient, path: string, read: (res: ApiResponse<unknown>) => J, timeoutMs: number): Promise<J> {
  let last: J | undefined;
  return pollUntil(
    `the job at ${path} to complete or fail`,
    async () => {
      const res = await api('GET', path);
      if (res.status !== 200) throw new Error(`job lookup failed: ${res.status} ${JSON.stringify(res.body)}`);
      last = read(res);
      return last.status === 'completed' || last.status === 'failed' ? last : undefined;
    },
    { timeoutMs, lastSeen: () => (last ? `${last.status}, ${last.processed_chunks} of ${last.total_chunks} chunks` : 'nothing') },
  );
}

/** Polls a tenant's job on a test app or a server process until it is completed or failed. */
export function waitForJob(app: { url: string }, key: string, jobId: string, timeoutMs = 30_000): Promise<JobView> {
  return pollJob(client(app.url, key), `/v1/jobs/${jobId}`, (res) => typed(res, jobSchema).body, timeoutMs);
}

/** Polls a platform corpus's job through the internal admin API until it is completed or failed. */
export function waitForCorpusJob(admin: ApiClient, slug: string, jobId: string, timeoutMs = 50_000): Promise<CorpusJobView> {
  // The internal API declares no response schemas: the body is what CorpusService.job returns.
  return pollJob(admin, `/internal/v1/corpora/${slug}/jobs/${jobId}`, (res) => res.body as CorpusJobView, timeoutMs);
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
  const { jobId, documentId } = await app.services.documents.ingest({ tenantId, subTenantId: null }, doc);
  return { job_id: jobId, document_id: documentId };
}

/** Ingests a text document and waits until it is indexed. */
export async function ingest(
  app: TestApp,
  key: string,
  doc: { knowledge_base_id: string; title: string; content: string; tags?: Record<string, string>; anonymize?: boolean },
): Promise<{ documentId: string; jobId: string; job: JobView }> {
  const res = await client(app.url, key)('POST', '/v1/documents', doc);
  if (res.status !== 202) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(res.body)}`);
  const job = await waitForJob(app, key, res.body.job_id);
  return { documentId: res.body.document_id, jobId: res.body.job_id, job };
}
