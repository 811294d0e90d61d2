import { type Scope, tenantScope } from '../core/shared/scope.js';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { tenantContext } from '../api/middleware/auth.js';
import { type Runtime, createRuntime } from '../runtime/runtime.js';
import { loadConfig } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import type { Database } from '../core/db/database.js';
import { migrate } from '../core/db/migrator.js';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import type { Services } from '../runtime/services.js';

export const ROOT = path.resolve(import.meta.dirname, '..');

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Standard error of the mean of the paired differences b - a: whether two variants really differ. */
export function pairedStandardError(a: number[], b: number[]): number {
  const d = a.map((x, i) => b[i]! - x);
  const m = mean(d);
  return Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, d.length - 1) / Math.max(1, d.length));
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Binary-relevance nDCG@k and recall@k of a ranking of distinct items (pages, documents). */
export function rankingScore(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): { ndcg: number; recall: number } {
  let dcg = 0;
  let hits = 0;
  ranked.slice(0, k).forEach((item, r) => {
    if (relevant.has(item)) {
      dcg += 1 / Math.log2(r + 2);
      hits += 1;
    }
  });
  let ideal = 0;
  for (let r = 0; r < Math.min(k, relevant.size); r++) ideal += 1 / Math.log2(r + 2);
  return { ndcg: ideal ? dcg / ideal : 0, recall: relevant.size ? hits / relevant.size : 0 };
}

export interface BenchServer {
  url: string;
  adminToken: string;
  stop(): Promise<void>;
}

/**
 * Starts Lore as its own process (as `npm start` does) on a fresh embedded data directory, so the
 * load generator in this process does not share an event loop with the server.
 */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-bench-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  // The server records its pid and port in DATA_DIR once it listens.
  let port: number | undefined;
  while (port === undefined) {
    if (exited) throw new Error('the Lore server exited during start-up');
    await new Promise((r) => setTimeout(r, 100));
    const info = await fs.readFile(path.join(dataDir, 'server.json'), 'utf8').catch(() => undefined);
    if (info) port = (JSON.parse(info) as { port: number }).port;
  }
  const adminToken = (await fs.readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
  return {
    url: `http://127.0.0.1:${port}`,
    adminToken,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function json<T>(url: string, init: RequestInit & { token?: string; body?: string } = {}): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
  });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The request context of a tenant's API key, built as the API's authentication builds it. */
export async function keyContext(services: Services, apiKey: string, log: Logger): Promise<RequestContext> {
  const key = await services.keys.authenticate(apiKey);
  if (!key) throw new Error('the bench tenant key does not authenticate');
  return { principal: { kind: 'api_key', id: key.id, role: key.role }, ...tenantContext(key), userId: null, requestId: 'bench', log };
}

export interface BenchLore {
  db: Database;
  runtime: Runtime;
  services: Services;
  ctx: RequestContext;
  scope: Scope;
  close(): Promise<void>;
}

/**
 * Lore on a fresh in-memory database through the composition root (maintenance started, as `npm
 * start` does), with one Enterprise tenant whose document, chunk and storage caps are lifted so a
 * benchmark never hits a quota midway.
 */
export async function startBenchLore(env: Record<string, string | undefined>, tenantName: string, log: Logger): Promise<BenchLore> {
  const db = await openPgliteDatabase('memory://');
  try {
    await migrate(db);
    // No snapshots of the flat index: a fresh in-memory database has none to read back, and the
    // default place (./data/vector-index) would be shared with every other run.
    const runtime = await createRuntime(db, loadConfig({ ...env, VECTOR_SNAPSHOT_DIR: 'off' }), log);
    runtime.maintenance?.start();
    const { services } = runtime;
    const { tenant, apiKey } = await services.tenants.create({ name: tenantName, plan: 'enterprise' });
    const scope = tenantScope(tenant.id);
    await services.tenants.update(scope, {
      limit_overrides: { max_documents: 100_000, max_chunks: 10_000_000, storage_bytes: 100 * 1024 ** 3 },
    });
    return {
      db,
      runtime,
      services,
      ctx: await keyContext(services, apiKey, log),
      scope,
      async close() {
        await runtime.close();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Polls the ingestion jobs until none is pending (a failed job fails the run). While the engine
 * has a backlog this timer does not fire at all, so the poll mostly notices the end.
 */
export async function waitForJobs(db: Database): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ pending: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status IN ('queued', 'processing'))::int AS pending,
              count(*) FILTER (WHERE status = 'failed')::int AS failed
       FROM jobs WHERE job_type = 'ingestion'`,
    );
    if (rows[0]!.failed) throw new Error(`${rows[0]!.failed} ingestion jobs failed`);
    if (!rows[0]!.pending) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}
