import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
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
