/**
 * Lore as a service at enterprise scale with dense vectors: one Enterprise tenant, one knowledge
 * base of N chunks of D-dimension dense vectors, the embedded topology end to end.
 *
 * Three processes per size, so none shares an event loop with another:
 *  - an OpenAI-compatible embeddings endpoint serving bench/dense-embedder.ts (the deterministic
 *    dense embedder the peers bench gives every system), which Lore reaches as `EMBEDDER=openai`;
 *  - Lore: the composition root as api/main.ts wires it (PGlite in DATA_DIR, the job engine,
 *    the flat vector index with its graph and snapshots, the Express app listening), plus a
 *    control channel through which this bench asks it to ingest and to time SearchService.query
 *    in process;
 *  - this process, the load generator of the HTTP figures.
 *
 * Documents: Debian's LibreOffice help in six languages (bench/help-chunks.ts), ~100 chunks per
 * document (Enterprise allows 10,000 documents and 1,000,000 chunks), tagged `bucket: p10` (10 %
 * of documents) or `p01` (0.1 %). Ingestion goes through DocumentService.ingest and the job
 * engine (chunking, language detection, embedding over HTTP, storing, indexing), the engine
 * running while documents are stored. Queries: entries of the help's own index. The knowledge
 * base has `query_translation: never`: what is measured is retrieval, not Apertium.
 *
 * It prints, per size: ingestion (storing per document at the first and the last tenth, end to
 * end chunks/s, when the HNSW graph is complete); hybrid query latency p50/p99 at concurrency 1,
 * unfiltered and with each filter, through SearchService.query in Lore's process and over HTTP;
 * concurrency 16 over HTTP (throughput, p50/p99) with /health/live and GET /v1/knowledge-bases
 * probed meanwhile (p50/p99); the resident set; shutdown (the snapshot written); and a restart:
 * seconds from spawning the process to the first query answered, what the index loaded, the
 * resident set after it. The recall of the vector side is bench/vector-peers.bench.ts's, on the
 * same embedder and index.
 *
 * HTTP clients: every request presents one of 64 API keys and an X-Forwarded-For address of its
 * own (TRUSTED_PROXIES set), as many clients behind a proxy do: the per-key and per-address burst
 * limits (20 and 100 requests/s) are the spec's, and one key from one address would measure them.
 *
 * Usage: npx tsx bench/service-scale.bench.ts [--sizes 100000:384,1000000:768] [--queries 200]
 *   [--run-seconds 30] [--concurrency 16] [--chunks-per-document 100] [--keep-data DIR]
 *   [--cpu-prof DIR] (a CPU profile of each Lore process, written when it stops) [--reuse-data]
 *
 * `--keep-data DIR` keeps each size's data directory (DIR/<size>-<dimensions>) after the run;
 * with `--reuse-data` too, a size whose directory a finished run kept is not ingested again: Lore
 * starts on it (its snapshot) and the queries, the load, the shutdown and the restart are measured,
 * ~5 minutes at 1M instead of ~40 (for profiling the query path: `--cpu-prof`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApp } from '../api/app.js';
import { FlatVectorIndex } from '../core/adapters/flat-index/flat.vector-index.js';
import { loadConfig } from '../core/config.js';
import { migrate } from '../core/db/migrator.js';
import { openDatabase } from '../core/db/open.js';
import { DEFAULT_CHUNKING, chunkText } from '../core/ingestion/chunker.js';
import type { QueryRequest } from '../core/search/search.schema.js';
import { seededRandom } from '../core/shared/seeded-random.js';
import { tenantScope } from '../core/shared/scope.js';
import { createDomainMetrics, createRegistry } from '../runtime/prometheus.domain-metrics.js';
import { createRuntime } from '../runtime/runtime.js';
import { DenseBenchEmbedder } from './dense-embedder.js';
import { helpChunks, loadHelpCollections } from './help-chunks.js';
import { ROOT, keyContext, percentile, waitForJobs } from './support.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: 'string', default: '100000:384,1000000:768' },
    queries: { type: 'string', default: '200' },
    'run-seconds': { type: 'string', default: '30' },
    concurrency: { type: 'string', default: '16' },
    'chunks-per-document': { type: 'string', default: '100' },
    'keep-data': { type: 'string' },
    'cpu-prof': { type: 'string' },
    'reuse-data': { type: 'boolean', default: false },
    // Set by the parent for its children.
    role: { type: 'string' },
    dimensions: { type: 'string' },
  },
});

const FILTERS = ['none', 'p10', 'p01'] as const;
type FilterName = (typeof FILTERS)[number];
const KEYS = 64;
const WARMUP = 20;

interface Latency {
  p50: number;
  p99: number;
  n: number;
}

interface IngestResult {
  documents: number;
  chunks: number;
  storeSeconds: number;
  /** Documents stored per second over the first and the last tenth. */
  firstTenthPerSecond: number;
  lastTenthPerSecond: number;
  /** From the first document stored to the last job completed. */
  endToEndSeconds: number;
  /** From the first document stored to the HNSW graph holding every row (0: no graph). */
  graphSeconds: number;
  hasGraph: boolean;
}

interface Memory {
  rssMb: number;
  heapUsedMb: number;
}

/** What the Lore process says once it listens. */
interface Ready {
  url: string;
  keys: string[];
  knowledgeBaseId: string;
  /** Seconds from the process's start to listening, and to its vector index being loaded. */
  listeningSeconds: number;
  loadedSeconds: number;
  load: unknown;
  memory: Memory;
}

type Command =
  | { cmd: 'ingest'; file: string; documents: number }
  | { cmd: 'service'; queries: string[]; filter: FilterName }
  | { cmd: 'memory' }
  | { cmd: 'stop' };

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const memory = (): Memory => {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed) };
};
const ms = (x: number) => (Number.isNaN(x) ? '-' : x < 10 ? x.toFixed(2) : x.toFixed(1));
const latencyOf = (times: number[]): Latency => ({ p50: percentile(times, 50), p99: percentile(times, 99), n: times.length });
const filterOf = (filter: FilterName) => (filter === 'none' ? {} : { filters: { 'tags.bucket': filter } });

// ---------------------------------------------------------------------------------------------
// The embeddings endpoint.

function embeddingsProcess(dimensions: number): void {
  const embedder = new DenseBenchEmbedder(dimensions);
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { input: string | string[]; model: string };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const vector = new Float32Array(dimensions);
      const data = inputs.map((text, index) => {
        embedder.embed(text, vector);
        return { object: 'embedding', index, embedding: Array.from(vector) };
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
}

// ---------------------------------------------------------------------------------------------
// Lore.

async function loreProcess(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: 'silent' });
  const db = await openDatabase(config);
  await migrate(db);
  const registry = createRegistry();
  const runtime = await createRuntime(db, config, log, { metrics: createDomainMetrics(registry) });
  const { services } = runtime;
  const statePath = path.join(config.dataDir, 'bench.json');
  let state = await fs
    .readFile(statePath, 'utf8')
    .then((s) => JSON.parse(s) as { tenantId: string; knowledgeBaseId: string; keys: string[] })
    .catch(() => undefined);
  if (!state) {
    const { tenant } = await services.tenants.create({ name: 'bench', plan: 'enterprise' });
    const scope = tenantScope(tenant.id);
    // The load generator's clients are many; the tenant's own caps stay out of the way.
    await services.tenants.update(scope, {
      limit_overrides: { max_documents: 10_000_000, max_chunks: 100_000_000, storage_bytes: 1024 ** 4, query_rate_limit_per_min: 10_000_000 },
    });
    const kb = await services.knowledgeBases.create(scope, {
      name: 'bench',
      dimensions: Number(values.dimensions),
      translation_config: { query_translation: 'never' },
    });
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++) keys.push((await services.keys.create(scope, { name: `client ${i}`, role: 'write' })).key);
    state = { tenantId: tenant.id, knowledgeBaseId: kb.id, keys };
    await fs.writeFile(statePath, JSON.stringify(state));
  }
  await runtime.jobs.start();
  runtime.maintenance?.start();
  const app = createApp({ config, services, log, version: 'bench', registry });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  // performance.now() counts from the process's start.
  const listeningSeconds = performance.now() / 1000;
  const index = services.adapters.vectorIndex;
  await index.loaded;
  const ready: Ready = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keys: state.keys,
    knowledgeBaseId: state.knowledgeBaseId,
    listeningSeconds,
    loadedSeconds: performance.now() / 1000,
    load: index instanceof FlatVectorIndex ? index.loadReport : undefined,
    memory: memory(),
  };
  process.send!({ ready });
  const scope = tenantScope(state.tenantId);
  const ctx = await keyContext(services, state.keys[0]!, log);

  process.on('message', (message: Command) => {
    void (async () => {
      switch (message.cmd) {
        case 'ingest': {
          const result = await ingest(message.file, message.documents);
          process.send!({ ingest: result });
          break;
        }
        case 'service': {
          const request = (query: string): QueryRequest => ({
            query,
            top_k: 10,
            knowledge_base_ids: [state.knowledgeBaseId],
            source_language: 'auto',
            ...filterOf(message.filter),
          });
          for (let i = 0; i < WARMUP; i++) await services.search.query(ctx, request(message.queries[i % message.queries.length]!));
          const times: number[] = [];
          for (const query of message.queries) {
            const t = performance.now();
            await services.search.query(ctx, request(query));
            times.push(performance.now() - t);
          }
          process.send!({ service: latencyOf(times) });
          break;
        }
        case 'memory':
          process.send!({ memory: memory() });
          break;
        case 'stop': {
          const t = performance.now();
          await new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          });
          await runtime.close();
          await db.close();
          process.send!({ stopped: (performance.now() - t) / 1000 }, () => process.exit(0));
          break;
        }
      }
    })().catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
  });

  /** Stores documents of the help until `size` chunks, the job engine running, then waits for the jobs and the graph. */
  async function ingest(file: string, documents: number): Promise<IngestResult> {
    const tenth = Math.max(1, Math.floor(documents / 10));
    const t0 = performance.now();
    let firstTenth = 0;
    let lastTenthStart = 0;
    // Read a line at a time: the bench's text stays out of the memory measured.
    let i = 0;
    for await (const line of readline.createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
      if (i === documents - tenth) lastTenthStart = performance.now();
      const document = JSON.parse(line) as DocumentLine;
      await services.documents.ingest(scope, { knowledge_base_id: state!.knowledgeBaseId, ...document });
      if (++i === tenth) firstTenth = performance.now() - t0;
    }
    const storeMs = performance.now() - t0;
    const lastTenth = performance.now() - lastTenthStart;
    await waitForJobs(db);
    const endToEnd = performance.now() - t0;
    const flat = index instanceof FlatVectorIndex ? index : undefined;
    while (flat && flat.graphPending > 0) await sleep(100);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chunks WHERE knowledge_base_id = $1`,
      [state!.knowledgeBaseId],
    );
    return {
      documents,
      chunks: rows[0]!.n,
      storeSeconds: storeMs / 1000,
      firstTenthPerSecond: (tenth / firstTenth) * 1000,
      lastTenthPerSecond: (tenth / lastTenth) * 1000,
      endToEndSeconds: endToEnd / 1000,
      graphSeconds: (performance.now() - t0) / 1000,
      hasGraph: (flat?.graphs ?? 0) > 0,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The load generator.

interface DocumentLine {
  title: string;
  content: string;
  tags: Record<string, string>;
}

/**
 * Writes documents of the help to `file`, one JSON line each, until they hold `size` of Lore's
 * chunks: consecutive help chunks of one language, about `chunksPerDocument` chunks long; one
 * document in 1,000 tagged `bucket: p01`, one in 10 `p10`. Returns how many.
 */
async function writeDocuments(file: string, size: number, chunksPerDocument: number): Promise<number> {
  const out = await fs.open(file, 'w');
  let documents = 0;
  try {
    let chunks = 0;
    let parts: string[] = [];
    let length = 0;
    let first = { title: '', language: '' };
    const flush = async () => {
      if (!parts.length) return;
      const content = parts.join('\n\n');
      chunks += chunkText(content, DEFAULT_CHUNKING).length;
      const bucket = documents % 1000 === 0 ? 'p01' : documents % 10 === 1 ? 'p10' : 'none';
      const line: DocumentLine = { title: first.title, content, tags: { bucket, language: first.language } };
      await out.write(`${JSON.stringify(line)}\n`);
      documents++;
      parts = [];
      length = 0;
    };
    for (const chunk of helpChunks(await loadHelpCollections())) {
      if (chunks >= size) break;
      if (parts.length && (chunk.language !== first.language || length >= chunksPerDocument * DEFAULT_CHUNKING.targetChars)) await flush();
      if (!parts.length) first = { title: chunk.title, language: chunk.language };
      parts.push(chunk.content);
      length += chunk.content.length;
    }
    await flush();
  } finally {
    await out.close();
  }
  return documents;
}

/** A child process of this bench in `role`, with a message channel. */
function child(role: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  return fork(path.join(ROOT, 'bench/service-scale.bench.ts'), ['--role', role, ...args], {
    cwd: ROOT,
    // Node's default heap limit, as `npm start` runs Lore.
    execArgv: ['--import', 'tsx', '--expose-gc', ...(values['cpu-prof'] && role === 'lore' ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values['cpu-prof'])] : [])],
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The next message from `proc` that holds `key`. */
function reply<T>(proc: ChildProcess, key: string, command?: Command): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      resolve(message[key] as T);
    };
    const onExit = (code: number | null) => reject(new Error(`the ${key} step's process exited (${code})`));
    proc.on('message', onMessage);
    proc.once('exit', onExit);
    if (command) proc.send(command);
  });
}

/** An HTTP client of Lore: request i presents key i mod 64 from address 10.0.(i mod 64).1. */
class Clients {
  private next = 0;

  constructor(private readonly ready: Ready) {}

  async send(pathname: string, body?: unknown, authenticated = true): Promise<number> {
    const i = this.next++ % KEYS;
    const t = performance.now();
    const res = await fetch(`${this.ready.url}${pathname}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': `10.0.${i}.1`,
        ...(authenticated ? { authorization: `Bearer ${this.ready.keys[i]}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${pathname}: ${res.status}`);
    return performance.now() - t;
  }

  query(query: string, filter: FilterName): Promise<number> {
    return this.send('/v1/query', { query, top_k: 10, knowledge_base_ids: [this.ready.knowledgeBaseId], ...filterOf(filter) });
  }
}

interface SizeReport {
  size: number;
  dimensions: number;
  /** Absent when a kept data directory was reused. */
  ingest?: IngestResult;
  service: Record<string, Latency>;
  http: Record<string, Latency>;
  concurrent: { concurrency: number; qps: number; query: Latency; health: Latency; list: Latency };
  memory: Memory;
  stopSeconds: number;
  snapshotMb: number;
  restart: { firstAnswerSeconds: number; ready: Omit<Ready, 'keys' | 'url' | 'knowledgeBaseId'>; query: Latency; memory: Memory };
}

async function runSize(size: number, dimensions: number, queries: string[]): Promise<SizeReport> {
  const embeddings = child('embeddings', {}, ['--dimensions', String(dimensions)]);
  const { port } = await new Promise<{ port: number }>((resolve) => embeddings.once('message', resolve));
  const dataDir = values['keep-data'] ? path.resolve(values['keep-data'], `${size}-${dimensions}`) : await fs.mkdtemp(path.join(os.tmpdir(), 'lore-service-'));
  // A finished run leaves its state (bench.json) and the snapshot written at its shutdown.
  const reuse =
    values['reuse-data'] &&
    !!values['keep-data'] &&
    (await Promise.all([fs.access(path.join(dataDir, 'bench.json')), fs.access(path.join(dataDir, 'vector-index'))]).then(
      () => true,
      () => false,
    ));
  if (values['reuse-data'] && !reuse) console.log(`  ${dataDir} holds no finished run: ingesting`);
  if (!reuse) await fs.rm(dataDir, { recursive: true, force: true });
  const env = {
    DATA_DIR: dataDir,
    EMBEDDER: 'openai',
    EMBEDDER_URL: `http://127.0.0.1:${port}`,
    EMBEDDER_MODEL: 'dense-bench',
    TRUSTED_PROXIES: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  try {
    let lore = child('lore', env, ['--dimensions', String(dimensions)]);
    let ready = await reply<Ready>(lore, 'ready');
    let ingest: IngestResult | undefined;
    if (reuse) {
      console.log(`  ${size} × ${dimensions}: reusing ${dataDir} (loaded in ${ready.loadedSeconds.toFixed(1)} s)`);
    } else {
      const file = path.join(os.tmpdir(), `lore-service-documents-${size}.jsonl`);
      const documents = await writeDocuments(file, size, Number(values['chunks-per-document']));
      console.log(`  ${size} × ${dimensions}: ingesting ${documents} documents…`);
      ingest = await reply<IngestResult>(lore, 'ingest', { cmd: 'ingest', file, documents });
      await fs.rm(file, { force: true });
      console.log(`  ingested ${ingest.chunks} chunks in ${ingest.documents} documents; graph complete at ${ingest.graphSeconds.toFixed(0)} s`);
    }
    const service: Record<string, Latency> = {};
    const httpLatency: Record<string, Latency> = {};
    let clients = new Clients(ready);
    for (const filter of FILTERS) {
      service[filter] = await reply<Latency>(lore, 'service', { cmd: 'service', queries, filter });
      for (let i = 0; i < WARMUP; i++) await clients.query(queries[i]!, filter);
      const times: number[] = [];
      for (const query of queries) times.push(await clients.query(query, filter));
      httpLatency[filter] = latencyOf(times);
    }
    const concurrent = await underLoad(clients, queries);
    const mem = await reply<Memory>(lore, 'memory', { cmd: 'memory' });
    const stopSeconds = await reply<number>(lore, 'stopped', { cmd: 'stop' });
    const snapshotMb = mb(await directorySize(path.join(dataDir, 'vector-index')));

    // The restart: from spawning the process to the first query answered.
    const t = performance.now();
    lore = child('lore', env, ['--dimensions', String(dimensions)]);
    ready = await reply<Ready>(lore, 'ready');
    clients = new Clients(ready);
    await clients.query(queries[0]!, 'none');
    const firstAnswerSeconds = (performance.now() - t) / 1000;
    const times: number[] = [];
    for (const query of queries) times.push(await clients.query(query, 'none'));
    const restartMemory = await reply<Memory>(lore, 'memory', { cmd: 'memory' });
    await reply<number>(lore, 'stopped', { cmd: 'stop' });
    const { keys: _k, url: _u, knowledgeBaseId: _kb, ...readyFigures } = ready;
    return {
      size,
      dimensions,
      ingest,
      service,
      http: httpLatency,
      concurrent,
      memory: mem,
      stopSeconds,
      snapshotMb,
      restart: { firstAnswerSeconds, ready: readyFigures, query: latencyOf(times), memory: restartMemory },
    };
  } finally {
    embeddings.kill();
    if (!values['keep-data']) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * `--concurrency` clients querying over HTTP for `--run-seconds`, and meanwhile one more that
 * asks for /health/live and GET /v1/knowledge-bases in turn every 20 ms: is the API responsive?
 */
async function underLoad(clients: Clients, queries: string[]): Promise<SizeReport['concurrent']> {
  const concurrency = Number(values.concurrency);
  const until = performance.now() + Number(values['run-seconds']) * 1000;
  const queryTimes: number[] = [];
  const health: number[] = [];
  const list: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all([
    ...Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const i = next++;
        queryTimes.push(await clients.query(queries[i % queries.length]!, FILTERS[i % 3]!));
      }
    }),
    (async () => {
      while (performance.now() < until) {
        health.push(await clients.send('/health/live', undefined, false));
        list.push(await clients.send('/v1/knowledge-bases'));
        await sleep(20);
      }
    })(),
  ]);
  return { concurrency, qps: (queryTimes.length / (performance.now() - start)) * 1000, query: latencyOf(queryTimes), health: latencyOf(health), list: latencyOf(list) };
}

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

function report(r: SizeReport): void {
  const i = r.ingest;
  const row = (label: string, l: Record<string, Latency>) =>
    `| ${label} | ${FILTERS.map((f) => `${ms(l[f]!.p50)} / ${ms(l[f]!.p99)}`).join(' | ')} |`;
  console.log(`\n## ${r.size.toLocaleString('en')} chunks × ${r.dimensions} dimensions, one Enterprise tenant\n`);
  console.log(
    i
      ? `Ingestion: ${i.documents} documents, ${i.chunks} chunks; stored in ${i.storeSeconds.toFixed(0)} s ` +
          `(${i.firstTenthPerSecond.toFixed(0)} documents/s over the first tenth, ${i.lastTenthPerSecond.toFixed(0)} over the last); ` +
          `end to end ${(i.chunks / i.endToEndSeconds).toFixed(0)} chunks/s (${i.endToEndSeconds.toFixed(0)} s, embedding over HTTP included); ` +
          (i.hasGraph ? `HNSW graph complete at ${i.graphSeconds.toFixed(0)} s.` : 'no graph (exact scan).')
      : 'Ingestion: not measured (a kept data directory reused).',
  );
  console.log('\n| hybrid query, concurrency 1 (p50 / p99 ms) | unfiltered | 10 % of documents | 0.1 % |');
  console.log('|---|---|---|---|');
  console.log(row('SearchService.query, in process', r.service));
  console.log(row('POST /v1/query over HTTP', r.http));
  const c = r.concurrent;
  console.log(
    `\nConcurrency ${c.concurrency} over HTTP (filters in turn): ${c.qps.toFixed(0)} queries/s, p50 / p99 ${ms(c.query.p50)} / ${ms(c.query.p99)} ms; ` +
      `meanwhile /health/live ${ms(c.health.p50)} / ${ms(c.health.p99)} ms, GET /v1/knowledge-bases ${ms(c.list.p50)} / ${ms(c.list.p99)} ms (p50 / p99, ${c.health.n} each).`,
  );
  console.log(`Resident set after the queries: ${r.memory.rssMb} MB (heap ${r.memory.heapUsedMb} MB).`);
  const s = r.restart;
  console.log(
    `Shutdown ${r.stopSeconds.toFixed(1)} s (the index snapshot written: ${r.snapshotMb} MB). Restart: first query answered ${s.firstAnswerSeconds.toFixed(1)} s ` +
      `after spawning the process (listening at ${s.ready.listeningSeconds.toFixed(1)} s, index loaded at ${s.ready.loadedSeconds.toFixed(1)} s: ${JSON.stringify(s.ready.load)}); ` +
      `then unfiltered p50 / p99 ${ms(s.query.p50)} / ${ms(s.query.p99)} ms; resident set ${s.memory.rssMb} MB.`,
  );
}

async function main(): Promise<void> {
  if (values.role === 'embeddings') return embeddingsProcess(Number(values.dimensions));
  if (values.role === 'lore') return loreProcess();
  const collections = await loadHelpCollections();
  const random = seededRandom(7);
  const entries = collections.flatMap((c) => c.index.map((e) => e.term));
  const queries = Array.from({ length: Number(values.queries) }, () => entries[Math.floor(random() * entries.length)]!);
  for (const spec of values.sizes.split(',')) {
    const [size, dimensions] = spec.split(':').map(Number) as [number, number];
    report(await runSize(size, dimensions, queries));
  }
  console.log(`\n(${os.cpus().length} cores, Node ${process.version}; medians are of one run: run it again before trusting a millisecond)`);
}

await main();
