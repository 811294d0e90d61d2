/**
 * What POST /v1/query costs around the search itself: the same queries over HTTP and through
 * SearchService.query in process, one at a time, with every database statement of each HTTP query
 * counted. The statement count is exact on any machine; latencies are medians over rounds.
 *
 * One Enterprise tenant, one knowledge base of English LibreOffice help pages (Debian's package,
 * downloaded into .bench/libreoffice on first use), stored `--copies` times over (titles numbered)
 * to show what grows with the documents a tenant stores. Queries are the help's own index entries.
 * The knowledge base's `query_translation` is `--translation` (default `auto`, the instance default:
 * an English query over English pages is not translated, but the decision is made on every query).
 * Lore runs in this process (PGlite, the lexical embedder, the flat indexes, the Express app on a
 * local port); clients rotate over 16 keys and forwarded addresses so the spec's burst limits are
 * not what is measured.
 *
 * `--profile FILE` writes a CPU profile of the measured rounds (Chrome DevTools' .cpuprofile format),
 * and prints the functions with the most self time.
 *
 * Usage: npx tsx bench/query-path.bench.ts [--copies 4] [--queries 200] [--rounds 3] [--translation auto|never]
 *          [--profile query-path.cpuprofile]
 */
import fs from 'node:fs/promises';
import inspector from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApp } from '../api/app.js';
import type { QueryResult, SqlParam } from '../core/db/database.js';
import { loadConfig } from '../core/config.js';
import { createRegistry } from '../runtime/prometheus.domain-metrics.js';
import { loadHelpCollection, loadHelpIndex, queryOf } from './libreoffice-help.js';
import { ROOT, median, percentile, startBenchLore } from './support.js';
import path from 'node:path';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '4' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    translation: { type: 'string', default: 'auto' },
    profile: { type: 'string' },
  },
});
const copies = Number(values.copies);
const queryCount = Number(values.queries);
const rounds = Number(values.rounds);
if (values.translation !== 'auto' && values.translation !== 'never') throw new Error('--translation is auto or never');
const KEYS = 16;

const log = pino({ level: 'silent' });
const cache = path.join(ROOT, '.bench', 'libreoffice');
const help = await loadHelpCollection(cache, 'en');
const queries = [...new Set((await loadHelpIndex(cache, 'en')).map((e) => queryOf(e.term, 'entries')))]
  .filter((q) => q.length > 2)
  .slice(0, queryCount);

const env = { LOG_LEVEL: 'silent', TRUSTED_PROXIES: '127.0.0.1' };
const lore = await startBenchLore(env, 'query path', log);
const { services, scope, ctx, db } = lore;
await services.tenants.update(scope, {
  limit_overrides: { max_documents: 1_000_000, max_chunks: 100_000_000, storage_bytes: 1024 ** 4, query_rate_limit_per_min: 10_000_000 },
});
const kb = await services.knowledgeBases.create(scope, {
  name: 'help',
  dimensions: 1024,
  translation_config: { query_translation: values.translation },
});
const started = performance.now();
let documents = 0;
for (let copy = 0; copy < copies; copy++) {
  for (const page of help.pages) {
    if (!page.text.trim()) continue;
    await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: copies > 1 ? `${page.title} (${copy + 1})` : page.title, content: page.text });
    documents++;
  }
}
await lore.runtime.engine.drain();
console.log(`${documents} documents stored and indexed in ${((performance.now() - started) / 1000).toFixed(0)} s; ${queries.length} queries`);

const keys: string[] = [];
for (let i = 0; i < KEYS; i++) keys.push((await services.keys.create(scope, { name: `client ${i}`, role: 'read' })).key);

// Every statement of an HTTP query, counted and timed from the call to its answer (the app and the
// services are built over this database and the view of it that queries use, Database.givingWay).
// At concurrency 1 no other query's statements are queued, but statements a query starts together
// wait for each other: the knowledge bases and corpora behind the query's words.
const statements = new Map<string, number[]>();
let counting = false;
for (const target of new Set([db, db.givingWay()])) {
  const query = target.query.bind(target);
  target.query = async <T>(sql: string, params?: readonly SqlParam[]): Promise<QueryResult<T>> => {
    if (!counting) return query<T>(sql, params);
    const key = sql.replace(/\s+/g, ' ').trim().slice(0, 80);
    const t0 = performance.now();
    try {
      return await query<T>(sql, params);
    } finally {
      const times = statements.get(key) ?? [];
      times.push(performance.now() - t0);
      statements.set(key, times);
    }
  };
}

const app = createApp({ config: { ...loadConfig(env), adminToken: undefined }, services, log, version: 'bench', registry: createRegistry() });
const server = app.listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/query`;

let sent = 0;
async function overHttp(text: string): Promise<number> {
  const i = sent++;
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[i % KEYS]}`, 'x-forwarded-for': `10.0.${i % 250}.1` },
    body: JSON.stringify({ query: text, top_k: 10 }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`POST /v1/query: ${res.status}`);
  return performance.now() - t0;
}

/** The floor of the harness: the same client asking the liveness check, which does no work. */
const liveUrl = url.replace('/v1/query', '/health/live');
async function liveness(): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(liveUrl);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET /health/live: ${res.status}`);
  return performance.now() - t0;
}

async function inProcess(text: string): Promise<number> {
  const t0 = performance.now();
  await services.search.query(ctx, { query: text, top_k: 10, source_language: 'auto' });
  return performance.now() - t0;
}

for (const q of queries.slice(0, 30)) {
  await overHttp(q);
  await inProcess(q);
}
const profiler = values.profile ? await startProfiler() : undefined;
const http: number[][] = [];
const search: number[][] = [];
const live: number[][] = [];
for (let round = 0; round < rounds; round++) {
  const h: number[] = [];
  const s: number[] = [];
  const l: number[] = [];
  for (const q of queries) {
    counting = round === 0;
    h.push(await overHttp(q));
    counting = false;
    s.push(await inProcess(q));
    l.push(await liveness());
  }
  http.push(h);
  search.push(s);
  live.push(l);
}
const profile = await profiler?.stop();
server.close();
await lore.close();

const perQuery = [...statements]
  .map(([sql, times]) => ({ sql, perQuery: times.length / queries.length, ms: median(times) }))
  .sort((a, b) => b.perQuery - a.perQuery || b.ms - a.ms);
const total = perQuery.reduce((n, s) => n + s.perQuery, 0);
const roundMedian = (runs: number[][], p: number) => median(runs.map((r) => percentile(r, p)));
console.log(`\nPOST /v1/query (query_translation ${values.translation}, ${documents} documents): ${total.toFixed(2)} statements a query (how many; median ms from the call to the answer, in the first round; the statement)`);
for (const s of perQuery) console.log(`  ${s.perQuery.toFixed(2)}  ${s.ms.toFixed(2).padStart(5)}  ${s.sql}`);
console.log(
  `\nconcurrency 1, medians of ${rounds} rounds of ${queries.length}: over HTTP p50 ${roundMedian(http, 50).toFixed(2)} / p99 ${roundMedian(http, 99).toFixed(2)} ms; ` +
    `SearchService.query p50 ${roundMedian(search, 50).toFixed(2)} / p99 ${roundMedian(search, 99).toFixed(2)} ms; ` +
    `HTTP path beyond the search (p50 difference) ${(roundMedian(http, 50) - roundMedian(search, 50)).toFixed(2)} ms; ` +
    `GET /health/live with the same client (the harness's floor) p50 ${roundMedian(live, 50).toFixed(2)} ms`,
);

if (profile && values.profile) {
  await fs.writeFile(values.profile, JSON.stringify(profile));
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const interval = new Map<number, number>();
  profile.samples?.forEach((id, i) => interval.set(id, (interval.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
  for (const [id, us] of interval) {
    const { callFrame } = byId.get(id)!;
    const where = `${callFrame.functionName || '(anonymous)'} ${path.relative(ROOT, callFrame.url.replace('file://', ''))}:${callFrame.lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + us);
  }
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`\nCPU profile of the measured rounds written to ${values.profile}; most self time:`);
  for (const [where, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`  ${((100 * us) / totalUs).toFixed(1).padStart(5)} %  ${where}`);
  }
}

/** The V8 profiler of this process, through the inspector. */
async function startProfiler(): Promise<{ stop(): Promise<inspector.Profiler.Profile> }> {
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop() {
      const { profile } = await post<{ profile: inspector.Profiler.Profile }>('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}
