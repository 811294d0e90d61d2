/**
 * Retrieval at scale on the embedded topology (PGlite + full-text search, with the flat in-process
 * vector index by default, or pgvector HNSW with VECTOR_INDEX=pgvector; keyword search in memory
 * by default with the flat index, or in the database with KEYWORD_INDEX=postgres) with the default lexical
 * embedder. For each corpus size it prints:
 *
 *  1. ingestion throughput through the real path (DocumentService.ingest stores and queues each
 *     document; the job engine chunks, detects languages, embeds and inserts), as it evolves with
 *     the corpus, plus a comparison of job concurrencies on a small corpus;
 *  2. SearchService.query latency p50/p99 at concurrency 1 and 16, unfiltered and with a tag filter
 *     matching ~10% of documents; each retriever alone; and, for pgvector, the plan PostgreSQL
 *     chose for the vector query (EXPLAIN ANALYZE of the statement PgVectorIndex sent);
 *  3. recall@10 of the vector index against an exact ground truth: the flat index as configured,
 *     or PgVectorIndex in HNSW mode (exactScanThreshold 0) for several ef_search values;
 *  4. RSS and heap after ingestion and after the query runs.
 *
 * The summary checks the targets at 100k chunks: query p50 < 15 ms and p99 < 50 ms at
 * concurrency 1, recall@10 ≥ 0.95 with and without a filter, ingestion ≥ 500 chunks/s.
 *
 * Each size runs in a child process of its own, so memory figures do not carry over. Latency and
 * recall runs stop at a time budget per configuration (a query that scans 100k chunks exactly
 * takes seconds), and say how many queries they measured.
 *
 * Usage: [VECTOR_INDEX=flat|pgvector] [KEYWORD_INDEX=flat|postgres] node --import tsx bench/retrieval-scale.bench.ts [--sizes 10000,100000] [--queries 300]
 *   [--rounds 3] [--run-seconds 30] [--recall-queries 200] [--recall-seconds 30]
 *   [--ef-search 40,100,200] [--concurrency N] [--trials 1,2,4] [--trial-chunks 2000]
 *   [--storage disk|memory] [--keep-data DIR] [--seed 42]
 * or npm run bench -- retrieval-scale --sizes=10000 (bench/run.ts passes only `--name=value` forms).
 */
import { type Scope, tenantScope } from '../core/shared/scope.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createRuntime } from '../runtime/runtime.js';
import { PgVectorIndex } from '../core/adapters/pgvector.vector-index.js';
import { loadConfig } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import type { Database, Queryable, SqlParam } from '../core/db/database.js';
import { migrate } from '../core/db/migrator.js';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import { DEFAULT_DIMENSIONS } from '../core/knowledge-bases/knowledge-base.schema.js';
import type { VectorHit } from '../core/ports/vector-index.js';
import { passageText } from '../core/ports/embedder.js';
import type { ChunkFilter } from '../core/search/chunk-filter.js';
import type { QueryRequest } from '../core/search/search.schema.js';
import { DEFAULT_SEARCH_OPTIONS, SearchService } from '../core/search/search.service.js';
import type { Services } from '../runtime/services.js';
import { SyntheticCorpus } from './corpus.js';
import { ROOT, keyContext, median, percentile, waitForJobs } from './support.js';
import { VectorQueryProbe } from './vector-query-probe.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    queries: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    'run-seconds': { type: 'string', default: '30' },
    'recall-queries': { type: 'string', default: '200' },
    'recall-seconds': { type: 'string', default: '30' },
    'ef-search': { type: 'string', default: '40,100,200' },
    concurrency: { type: 'string' },
    trials: { type: 'string', default: '1,2,4' },
    'trial-chunks': { type: 'string', default: '2000' },
    storage: { type: 'string', default: 'disk' },
    'keep-data': { type: 'string' },
    seed: { type: 'string', default: '42' },
    // Set by the parent for the child process that runs one size (or one concurrency trial).
    'run-size': { type: 'string' },
    'ingest-only': { type: 'boolean', default: false },
    'result-file': { type: 'string' },
  },
  allowPositionals: true,
});

const DEFAULTS = loadConfig({});
const list = (s: string): number[] => s.split(',').filter(Boolean).map(Number);
const options = {
  sizes: list(values.sizes),
  queries: Number(values.queries),
  rounds: Number(values.rounds),
  runSeconds: Number(values['run-seconds']),
  recallQueries: Number(values['recall-queries']),
  recallSeconds: Number(values['recall-seconds']),
  efSearch: list(values['ef-search']),
  concurrency: values.concurrency === undefined ? DEFAULTS.jobs.concurrency : Number(values.concurrency),
  trials: list(values.trials),
  trialChunks: Number(values['trial-chunks']),
  storage: values.storage === 'memory' ? ('memory' as const) : ('disk' as const),
  keepData: values['keep-data'],
  seed: Number(values.seed),
};

/** The "filtered" runs keep one of ten equally likely departments (~10% of documents). */
const FILTER_TAG = { department: 'legal' };
const TOP_K = 10;
const WARMUP_QUERIES = 30;
const TARGETS = { size: 100_000, p50Ms: 15, p99Ms: 50, recall: 0.95, chunksPerSecond: 500 };

interface LatencyFigures {
  p50: number;
  p99: number;
  qps: number;
  /** Queries measured (fewer than asked when the time budget ran out). */
  n: number;
}

interface RecallFigures {
  /** The pgvector ef_search of the line; undefined for the flat index. */
  efSearch?: number | undefined;
  filtered: boolean;
  recall: number;
  p50Ms: number;
  n: number;
}

interface MemoryFigures {
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
}

interface SizeResult {
  size: number;
  chunks: number;
  documents: number;
  concurrency: number;
  submitSeconds: number;
  indexSeconds: number;
  /** Chunks per second of the job engine alone (documents already stored and queued). */
  indexRate: number;
  /** Chunks per second from the first ingest call to the last job completed. */
  endToEndRate: number;
  filteredShare?: number;
  latency: Record<string, LatencyFigures>;
  recall: RecallFigures[];
  memory: Record<string, MemoryFigures>;
}

const mb = (bytes: number): number => Math.round(bytes / 1048576);

function memory(): MemoryFigures {
  // With --expose-gc (the parent passes it) heapUsed is live data, not garbage awaiting collection.
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), externalMb: mb(m.external) };
}

const fmt = (ms: number): string => (Number.isNaN(ms) ? '-' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs calls 0..calls-1 through `concurrency` workers until all are done or `budgetMs` has passed
 * (calls already started finish); per-call latencies in ms and calls per second.
 */
async function timeCalls(
  calls: number,
  concurrency: number,
  budgetMs: number,
  call: (i: number) => Promise<unknown>,
): Promise<{ latencies: number[]; qps: number }> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls && performance.now() - start < budgetMs) {
        const i = next++;
        const t = performance.now();
        await call(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, qps: (latencies.length / (performance.now() - start)) * 1000 };
}

// ---------------------------------------------------------------------------------------------
// One size, in this process.

async function runSize(size: number, concurrency: number, ingestOnly: boolean): Promise<SizeResult> {
  const log = pino({ level: 'silent' });
  const keep = options.keepData && options.storage === 'disk' && !ingestOnly ? path.resolve(options.keepData, String(size)) : undefined;
  // A kept database keeps the flat index's snapshot beside it (bench/query-statements.bench.ts reads
  // both); otherwise there is none (the default place, ./data, would be shared with other runs).
  const snapshotDir = keep ? `${keep}.vector-index` : 'off';
  if (keep) for (const dir of [keep, snapshotDir]) await fs.rm(dir, { recursive: true, force: true });
  const dataDir =
    options.storage === 'memory' ? 'memory://' : (keep ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'lore-retrieval-'))));
  // PGLITE_SHARED_BUFFERS from the environment, as `npm start` reads it (the HNSW graph of 100k chunks needs ~1GB).
  const { database } = loadConfig({ PGLITE_SHARED_BUFFERS: process.env.PGLITE_SHARED_BUFFERS });
  const db = await openPgliteDatabase(dataDir, database.kind === 'embedded' ? { sharedBuffers: database.sharedBuffers } : {});
  try {
    await migrate(db);
    const config = loadConfig({
      JOB_CONCURRENCY: String(concurrency),
      LOG_LEVEL: 'silent',
      VECTOR_INDEX: process.env.VECTOR_INDEX,
      KEYWORD_INDEX: process.env.KEYWORD_INDEX,
      VECTOR_SNAPSHOT_DIR: snapshotDir,
    });
    const runtime = await createRuntime(db, config, log);
    runtime.maintenance?.start(); // as `npm start` does: planner statistics, vacuum
    try {
      const { services } = runtime;
      const { tenant, apiKey } = await services.tenants.create({ name: 'bench', plan: 'enterprise' });
      const scope = tenantScope(tenant.id);
      // The plan's caps are below what 100k chunks need; support lifts them this way.
      await services.tenants.update(scope, {
        limit_overrides: { max_documents: 10_000_000, max_chunks: 100_000_000, storage_bytes: 1024 ** 4 },
      });
      const kb = await services.knowledgeBases.create(scope, { name: 'bench', dimensions: DEFAULT_DIMENSIONS });
      const corpus = new SyntheticCorpus({ seed: options.seed, topics: 300, terms: 8000 });
      const result: SizeResult = {
        size,
        chunks: 0,
        documents: 0,
        concurrency,
        submitSeconds: 0,
        indexSeconds: 0,
        indexRate: 0,
        endToEndRate: 0,
        latency: {},
        recall: [],
        memory: { start: memory() },
      };
      await ingest(db, services, runtime.engine, scope, kb.id, corpus, size, result);
      // The steady state a server reaches within its maintenance interval after a bulk load.
      await runtime.maintenance?.run();
      result.memory.afterIngestion = memory();
      if (keep) await fs.writeFile(`${keep}.json`, JSON.stringify({ tenantId: tenant.id, knowledgeBaseId: kb.id, documents: result.documents, chunks: result.chunks }));
      if (ingestOnly) return result;

      const share = await one<{ share: number }>(db, `SELECT avg((doc_tags @> $1::jsonb)::int)::float8 AS share FROM chunks`, [
        JSON.stringify(FILTER_TAG),
      ]);
      result.filteredShare = share.share;
      const ctx = await keyContext(services, apiKey, log);
      await latency(db, services, ctx, corpus, result);
      result.memory.afterQueries = memory();
      await recall(db, services.adapters, scope, kb.id, result);
      console.log(
        `  memory (MB): ${Object.entries(result.memory)
          .map(([k, m]) => `${k}: rss ${m.rssMb}, heapUsed ${m.heapUsedMb}, external ${m.externalMb}`)
          .join('; ')}`,
      );
      return result;
    } finally {
      await runtime.close();
    }
  } finally {
    await db.close();
    if (dataDir !== 'memory://' && dataDir !== keep) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function one<T>(db: Queryable, sql: string, params: readonly SqlParam[] = []): Promise<T> {
  const { rows } = await db.query<T>(sql, params);
  if (!rows[0]) throw new Error(`no row from ${sql}`);
  return rows[0];
}

/** Query targets spread over the whole corpus, deterministically. */
function pickTarget(i: number, documents: number): number {
  return (Math.imul(i + 1, 2654435761) >>> 0) % documents;
}

async function ingest(
  db: Database,
  services: Services,
  engine: { start(): Promise<void> },
  scope: Scope,
  knowledgeBaseId: string,
  corpus: SyntheticCorpus,
  size: number,
  result: SizeResult,
): Promise<void> {
  const { documents, chunks, submitMs } = await store(services, scope, knowledgeBaseId, corpus, size);
  const indexStart = performance.now();
  await engine.start();
  await waitForJobs(db);
  const indexMs = performance.now() - indexStart;
  const indexed = await one<{ n: number }>(db, `SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.status = 'ready'`);
  if (indexed.n !== chunks) throw new Error(`expected ${chunks} searchable chunks, found ${indexed.n}`);
  Object.assign(result, {
    chunks,
    documents,
    submitSeconds: submitMs / 1000,
    indexSeconds: indexMs / 1000,
    indexRate: (chunks / indexMs) * 1000,
    endToEndRate: (chunks / (submitMs + indexMs)) * 1000,
  });
  console.log(
    `  indexed by the job engine (concurrency ${result.concurrency}) in ${seconds(indexMs)}: ${result.indexRate.toFixed(0)} chunks/s; ` +
      `end to end ${result.endToEndRate.toFixed(0)} chunks/s`,
  );
  console.log(`  indexing rate by tenth of the corpus (chunks/s, from job completion times): ${(await rateByTenth(db, chunks)).join(', ')}`);
}

/** Stores documents through DocumentService.ingest (engine stopped) until `size` chunks are queued. */
async function store(
  services: Services,
  scope: Scope,
  knowledgeBaseId: string,
  corpus: SyntheticCorpus,
  size: number,
): Promise<{ documents: number; chunks: number; submitMs: number }> {
  // Documents are generated before the clock starts, so only Lore's work is timed.
  const { docs, chunks } = corpus.documentsHolding(size);
  const documents = docs.length;
  // Storing gets slower as the tenant grows (quota checks); show the first and last tenth.
  const tenth = Math.max(1, Math.floor(documents / 10));
  const submitStart = performance.now();
  let firstTenthMs = 0;
  let lastTenthStart = 0;
  for (let i = 0; i < documents; i++) {
    if (i === documents - tenth) lastTenthStart = performance.now();
    const doc = docs[i]!;
    await services.documents.ingest(scope, { knowledge_base_id: knowledgeBaseId, title: doc.title, content: doc.content, tags: doc.tags });
    if (i === tenth - 1) firstTenthMs = performance.now() - submitStart;
  }
  const submitMs = performance.now() - submitStart;
  const lastTenthMs = performance.now() - lastTenthStart;
  console.log(
    `  stored ${documents} documents (${chunks} chunks) in ${seconds(submitMs)}: ${((documents / submitMs) * 1000).toFixed(0)} documents/s ` +
      `(first tenth ${((tenth / firstTenthMs) * 1000).toFixed(0)}/s, last tenth ${((tenth / lastTenthMs) * 1000).toFixed(0)}/s)`,
  );
  return { documents, chunks, submitMs };
}

/** Indexing rate over each tenth of the corpus, from the jobs' completion times. */
async function rateByTenth(db: Database, totalChunks: number): Promise<string[]> {
  const { rows } = await db.query<{ at: Date; chunks: number }>(
    `SELECT completed_at AS at, processed_chunks AS chunks FROM jobs
     WHERE job_type = 'ingestion' AND status = 'completed' ORDER BY completed_at`,
  );
  const out: string[] = [];
  let done = 0;
  let from = rows[0]?.at.getTime() ?? 0;
  let fromChunks = 0;
  for (const r of rows) {
    done += r.chunks;
    if (done - fromChunks >= totalChunks / 10 || r === rows[rows.length - 1]) {
      const ms = r.at.getTime() - from;
      out.push(`${Math.round((done / totalChunks) * 100)}%: ${ms > 0 ? (((done - fromChunks) / ms) * 1000).toFixed(0) : '-'}`);
      from = r.at.getTime();
      fromChunks = done;
    }
  }
  return out;
}

async function latency(db: Database, services: Services, ctx: RequestContext, corpus: SyntheticCorpus, result: SizeResult): Promise<void> {
  const queries = Array.from({ length: options.queries }, (_, i) => corpus.query(i, pickTarget(i, result.documents)));
  const [filterKey, filterValue] = Object.entries(FILTER_TAG)[0]!;
  const request = (query: string, filtered: boolean): QueryRequest => ({
    query,
    top_k: TOP_K,
    source_language: 'auto',
    ...(filtered ? { filters: { [`tags.${filterKey}`]: filterValue } } : {}),
  });
  const { embedder, vectorIndex, keywordIndex, decompounder } = services.adapters;
  const synonyms = services.adapters.synonymDictionary ?? null;
  // The product's own SearchService, plus (pgvector) the same service over a probed index to show the plan.
  const probe = new VectorQueryProbe(db);
  const pgvector = services.adapters.vectorIndex.kind === 'postgres';
  const searchers = {
    product: services.search,
    vector: new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, synonyms, { ...DEFAULT_SEARCH_OPTIONS, mode: 'vector' }),
    keyword: new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, synonyms, { ...DEFAULT_SEARCH_OPTIONS, mode: 'keyword' }),
    // Term proximity's cost: the same keyword search with BM25F's order kept (no chunk positions read).
    keywordNoProximity: new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, synonyms, { ...DEFAULT_SEARCH_OPTIONS, mode: 'keyword', proximity: null }),
    // The synonyms' cost: the product and keyword search without the query words' synonyms.
    hybridNoSynonyms: new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, null),
    keywordNoSynonyms: new SearchService(db, embedder, vectorIndex, keywordIndex, decompounder, null, { ...DEFAULT_SEARCH_OPTIONS, mode: 'keyword' }),
    probed: new SearchService(db, embedder, pgvector ? new PgVectorIndex(probe.database(), DEFAULTS.vectorIndex) : vectorIndex, keywordIndex, decompounder, synonyms),
  };
  for (let i = 0; i < WARMUP_QUERIES; i++) await services.search.query(ctx, request(queries[i % queries.length]!, i % 2 === 1));

  type Run = { name: string; searcher: keyof typeof searchers; filtered: boolean; concurrency: number };
  const measure = async (runs: Run[]) => {
    for (const run of runs) {
      const rounds: LatencyFigures[] = [];
      for (let r = 0; r < options.rounds; r++) {
        const searcher = searchers[run.searcher];
        const budget = (options.runSeconds * 1000) / options.rounds;
        const { latencies, qps } = await timeCalls(queries.length, run.concurrency, budget, (i) =>
          searcher.query(ctx, request(queries[i]!, run.filtered)),
        );
        rounds.push({ p50: percentile(latencies, 50), p99: percentile(latencies, 99), qps, n: latencies.length });
      }
      const f: LatencyFigures = {
        p50: median(rounds.map((r) => r.p50)),
        p99: median(rounds.map((r) => r.p99)),
        qps: median(rounds.map((r) => r.qps)),
        n: rounds.reduce((a, r) => a + r.n, 0),
      };
      result.latency[run.name] = f;
      console.log(
        `    ${run.name.padEnd(41)} p50 ${fmt(f.p50).padStart(7)}  p99 ${fmt(f.p99).padStart(7)}  ${f.qps.toFixed(1).padStart(6)} q/s  ` +
          `(${f.n} queries; p50 by round ${rounds.map((r) => fmt(r.p50)).join(', ')})`,
      );
    }
  };
  console.log(
    `  SearchService.query latency in ms, top_k ${TOP_K}, ${queries.length} distinct queries, median of ${options.rounds} rounds ` +
      `(≤ ${options.runSeconds} s per line); filtered = tags.${filterKey}=${filterValue} (${((result.filteredShare ?? NaN) * 100).toFixed(1)}% of chunks):`,
  );
  await measure([
    { name: 'hybrid unfiltered c1', searcher: 'product', filtered: false, concurrency: 1 },
    { name: 'hybrid filtered c1', searcher: 'product', filtered: true, concurrency: 1 },
    { name: 'hybrid unfiltered c1, no synonyms', searcher: 'hybridNoSynonyms', filtered: false, concurrency: 1 },
    { name: 'hybrid filtered c1, no synonyms', searcher: 'hybridNoSynonyms', filtered: true, concurrency: 1 },
    { name: 'hybrid unfiltered c16', searcher: 'product', filtered: false, concurrency: 16 },
    { name: 'hybrid unfiltered c16, no synonyms', searcher: 'hybridNoSynonyms', filtered: false, concurrency: 16 },
    { name: 'hybrid filtered c16', searcher: 'product', filtered: true, concurrency: 16 },
    { name: 'vector only unfiltered c1', searcher: 'vector', filtered: false, concurrency: 1 },
    { name: 'vector only filtered c1', searcher: 'vector', filtered: true, concurrency: 1 },
    { name: 'keyword only unfiltered c1', searcher: 'keyword', filtered: false, concurrency: 1 },
    { name: 'keyword only unfiltered c1, no proximity', searcher: 'keywordNoProximity', filtered: false, concurrency: 1 },
    { name: 'keyword only unfiltered c1, no synonyms', searcher: 'keywordNoSynonyms', filtered: false, concurrency: 1 },
    { name: 'keyword only filtered c1', searcher: 'keyword', filtered: true, concurrency: 1 },
    { name: 'keyword only filtered c1, no proximity', searcher: 'keywordNoProximity', filtered: true, concurrency: 1 },
  ]);
  for (const filtered of pgvector ? [false, true] : []) {
    probe.last = undefined;
    await searchers.probed.query(ctx, request(queries[0]!, filtered));
    console.log(`  plan of the vector query as the adapter runs it (${filtered ? 'filtered' : 'unfiltered'}, EXPLAIN ANALYZE):`);
    for (const line of await probe.explain()) console.log(`      ${line}`);
  }
}

/**
 * Recall@10 of PgVectorIndex.search in HNSW mode against the exact top 10. The ground truth is a
 * brute-force scan in this process over the chunks' vectors, which the deterministic embedder
 * reproduces from their text (rounded to the 6 decimals Lore stores); a few queries are checked
 * against the adapter's own exact scan. Reading 100k stored vectors back out of PGlite as text
 * would take minutes, and its exact scan seconds per query.
 */
async function recall(
  db: Database,
  adapters: Services['adapters'],
  scope: Scope,
  knowledgeBaseId: string,
  result: SizeResult,
): Promise<void> {
  const { embedder } = adapters;
  const d = DEFAULT_DIMENSIONS;
  const { rows } = await db.query<{ id: string; content: string; title: string; tagged: boolean }>(
    `SELECT id, content, doc_title AS title, doc_tags @> $1::jsonb AS tagged FROM chunks WHERE knowledge_base_id = $2 ORDER BY id`,
    [JSON.stringify(FILTER_TAG), knowledgeBaseId],
  );
  const matrix = new Float32Array(rows.length * d);
  for (let i = 0; i < rows.length; i += 256) {
    // As ingestion embeds a chunk: with its document's title (passageText).
    const vectors = await embedder.embed(rows.slice(i, i + 256).map((r) => passageText(embedder, r.title, r.content)), { dimensions: d, kind: 'document' });
    vectors.forEach((v, j) => {
      for (let k = 0; k < d; k++) matrix[(i + j) * d + k] = Math.round(v[k]! * 1e6) / 1e6;
    });
  }
  const corpus = new SyntheticCorpus({ seed: options.seed, topics: 300, terms: 8000 });
  // Other query texts than the latency runs' (offset 1,000,000), over the same corpus.
  const texts = Array.from({ length: options.recallQueries }, (_, i) => corpus.query(1_000_000 + i, pickTarget(1_000_000 + i, result.documents)));
  const queries = await embedder.embed(texts, { dimensions: d, kind: 'query' });
  const truth = (filtered: boolean): VectorHit[][] =>
    queries.map((q) => {
      const top: VectorHit[] = [];
      for (let r = 0; r < rows.length; r++) {
        if (filtered && !rows[r]!.tagged) continue;
        let dot = 0;
        for (let k = 0, o = r * d; k < d; k++) dot += q[k]! * matrix[o + k]!;
        if (top.length < TOP_K || dot > top[top.length - 1]!.similarity) {
          top.push({ chunkId: rows[r]!.id, similarity: dot });
          top.sort((a, b) => b.similarity - a.similarity);
          if (top.length > TOP_K) top.pop();
        }
      }
      return top;
    });
  const filters = {
    unfiltered: { scope, knowledgeBaseIds: [knowledgeBaseId], tags: {} } satisfies ChunkFilter,
    filtered: { scope, knowledgeBaseIds: [knowledgeBaseId], tags: FILTER_TAG } satisfies ChunkFilter,
  };
  const truths = { unfiltered: truth(false), filtered: truth(true) };

  // The brute force must agree with the database's exact scan (no graph: every candidate is compared).
  const exact = new PgVectorIndex(db, { ...DEFAULTS.vectorIndex, graphs: false });
  let agreement = 0;
  const checks = Math.min(3, queries.length);
  for (let i = 0; i < checks; i++) {
    const t0 = performance.now();
    const hits = await exact.search({ filter: filters.filtered, dimensions: d, vector: queries[i]!, limit: TOP_K });
    if (i === 0) console.log(`  exact scan of the filtered chunks by the adapter: ${fmt(performance.now() - t0)} ms`);
    agreement += recallAt(hits, truths.filtered[i]!, TOP_K);
  }
  const flat = adapters.vectorIndex.kind === 'flat';
  console.log(
    `  recall@10 of ${flat ? 'the flat index (int8, exact scan)' : 'PgVectorIndex.search (exactScanThreshold 0)'}, limit ${TOP_K}, against exact ground truth; ` +
      `brute force vs the database's exact scan: ${(agreement / checks).toFixed(3)} over ${checks} queries; ≤ ${options.recallSeconds} s per line:`,
  );
  const probe = new VectorQueryProbe(db);
  for (const efSearch of flat ? [undefined] : options.efSearch) {
    const index = flat ? adapters.vectorIndex : new PgVectorIndex(probe.database(), { ...DEFAULTS.vectorIndex, exactScanThreshold: 0, efSearch });
    const line: string[] = [];
    for (const filtered of [false, true]) {
      const name = filtered ? 'filtered' : 'unfiltered';
      let sum = 0;
      // Half of the line's budget for each of its two filters.
      const { latencies } = await timeCalls(queries.length, 1, options.recallSeconds * 500, async (i) => {
        const hits = await index.search({ filter: filters[name], dimensions: d, vector: queries[i]!, limit: TOP_K });
        sum += recallAt(hits, truths[name][i]!, TOP_K);
      });
      const r: RecallFigures = { efSearch, filtered, recall: sum / latencies.length, p50Ms: percentile(latencies, 50), n: latencies.length };
      result.recall.push(r);
      line.push(`${name} ${r.recall.toFixed(3)} (p50 ${fmt(r.p50Ms)} ms, ${r.n} q)`);
    }
    console.log(`    ${efSearch === undefined ? 'flat' : `ef_search ${String(efSearch).padStart(4)}`}: ${line.join('; ')}`);
    if (efSearch !== undefined && efSearch === options.efSearch[0]) console.log(`      plan (last query, filtered): ${await probe.planSummary()}`);
  }
}

/**
 * Recall@k with ties: a hit counts when it is in the exact top k, or as close to the query as the
 * exact k-th (equal similarities make the exact top k one arbitrary pick among right answers).
 */
function recallAt(hits: VectorHit[], exact: VectorHit[], k: number): number {
  const wanted = exact.slice(0, k);
  if (!wanted.length) return 1;
  const ids = new Set(wanted.map((h) => h.chunkId));
  const kth = wanted[wanted.length - 1]!.similarity - 1e-5;
  let found = 0;
  for (const h of hits.slice(0, k)) if (ids.has(h.chunkId) || h.similarity >= kth) found++;
  return Math.min(1, found / wanted.length);
}

// ---------------------------------------------------------------------------------------------
// The parent: one child per size and per concurrency trial, then the summary.

function runChild(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the benchmark child exited with ${code}`))));
  });
}

async function runInChild(size: number, concurrency: number, ingestOnly: boolean): Promise<SizeResult> {
  const resultFile = path.join(os.tmpdir(), `lore-retrieval-${process.pid}-${size}-${concurrency}.json`);
  const own = new Set(['--run-size', '--result-file', '--ingest-only', '--concurrency']);
  const passThrough = process.argv.slice(2).filter((a, i, all) => !own.has(a.split('=')[0]!) && !['--run-size', '--result-file', '--concurrency'].includes(all[i - 1] ?? ''));
  await runChild([
    '--expose-gc',
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    ...passThrough,
    '--concurrency',
    String(concurrency),
    '--run-size',
    String(size),
    '--result-file',
    resultFile,
    ...(ingestOnly ? ['--ingest-only'] : []),
  ]);
  const result = JSON.parse(await fs.readFile(resultFile, 'utf8')) as SizeResult;
  await fs.rm(resultFile, { force: true });
  return result;
}

function summary(results: SizeResult[], trials: SizeResult[], startedAt: number): void {
  console.log('\n== summary');
  console.log(
    `${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, Node ${process.version}; load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ` +
      `total ${((performance.now() - startedAt) / 60000).toFixed(1)} min`,
  );
  for (const r of results) {
    const l = r.latency;
    const pair = (name: string) => `${fmt(l[name]?.p50 ?? NaN)}/${fmt(l[name]?.p99 ?? NaN)}`;
    const rec = (ef: number | undefined) =>
      ['unfiltered', 'filtered'].map((f) => r.recall.find((x) => x.efSearch === ef && x.filtered === (f === 'filtered'))?.recall.toFixed(3) ?? '-').join('/');
    const efs = [...new Set(r.recall.map((x) => x.efSearch))];
    console.log(`${r.chunks} chunks (${r.documents} documents):`);
    console.log(`  ingestion: ${r.indexRate.toFixed(0)} chunks/s indexing, ${r.endToEndRate.toFixed(0)} chunks/s end to end (${(r.submitSeconds + r.indexSeconds).toFixed(0)} s)`);
    console.log(
      `  hybrid p50/p99 ms: unfiltered c1 ${pair('hybrid unfiltered c1')}, filtered c1 ${pair('hybrid filtered c1')}, unfiltered c16 ${pair('hybrid unfiltered c16')}, filtered c16 ${pair('hybrid filtered c16')}`,
    );
    console.log(
      `  recall@10 unfiltered/filtered: ${efs.map((ef) => `${ef === undefined ? 'flat' : `ef ${ef}`} ${rec(ef)}`).join(', ')}`,
    );
    console.log(`  RSS ${r.memory.afterIngestion?.rssMb} MB after ingestion, ${r.memory.afterQueries?.rssMb} MB after the query runs (heapUsed ${r.memory.afterIngestion?.heapUsedMb} / ${r.memory.afterQueries?.heapUsedMb} MB)`);
  }
  if (trials.length) {
    const best = trials.reduce((a, b) => (b.indexRate > a.indexRate ? b : a));
    console.log(
      `job concurrency, ${trials[0]!.chunks} chunks each: ${trials.map((t) => `${t.concurrency}: ${t.indexRate.toFixed(0)} chunks/s indexing, ${t.endToEndRate.toFixed(0)} end to end`).join('; ')}; best ${best.concurrency}`,
    );
  }
  const target = results.find((r) => r.size === TARGETS.size);
  if (!target) {
    console.log(`targets apply at ${TARGETS.size} chunks, which this run did not include`);
    return;
  }
  const l = target.latency;
  // The product's setting: the flat index's only line, or pgvector's default ef_search.
  const ef = target.recall.some((x) => x.efSearch === undefined) ? undefined : DEFAULTS.vectorIndex.efSearch;
  const recallOf = (filtered: boolean) => target.recall.find((x) => x.efSearch === ef && x.filtered === filtered)?.recall ?? NaN;
  const worst = (a: number | undefined, b: number | undefined) => Math.max(a ?? Infinity, b ?? Infinity);
  const rows: Array<[boolean, string]> = [
    [worst(l['hybrid unfiltered c1']?.p50, l['hybrid filtered c1']?.p50) < TARGETS.p50Ms, `query p50 < ${TARGETS.p50Ms} ms at c1: unfiltered ${fmt(l['hybrid unfiltered c1']?.p50 ?? NaN)}, filtered ${fmt(l['hybrid filtered c1']?.p50 ?? NaN)}`],
    [worst(l['hybrid unfiltered c1']?.p99, l['hybrid filtered c1']?.p99) < TARGETS.p99Ms, `query p99 < ${TARGETS.p99Ms} ms at c1: unfiltered ${fmt(l['hybrid unfiltered c1']?.p99 ?? NaN)}, filtered ${fmt(l['hybrid filtered c1']?.p99 ?? NaN)}`],
    [Math.min(recallOf(false), recallOf(true)) >= TARGETS.recall, `recall@10 ≥ ${TARGETS.recall} (${ef === undefined ? 'flat index' : `pgvector, default ef_search ${ef}`}): ${recallOf(false).toFixed(3)}, filtered ${recallOf(true).toFixed(3)}`],
    [target.endToEndRate >= TARGETS.chunksPerSecond, `ingestion ≥ ${TARGETS.chunksPerSecond} chunks/s: end to end ${target.endToEndRate.toFixed(0)}, indexing alone ${target.indexRate.toFixed(0)}`],
  ];
  console.log(`targets at ${target.chunks} chunks:`);
  for (const [ok, text] of rows) console.log(`  ${ok ? 'MET   ' : 'MISSED'} ${text}`);
}

async function main(): Promise<void> {
  if (values['run-size']) {
    const result = await runSize(Number(values['run-size']), options.concurrency, values['ingest-only']);
    if (values['result-file']) await fs.writeFile(values['result-file'], JSON.stringify(result));
    return;
  }
  const startedAt = performance.now();
  console.log(
    `retrieval at scale: embedded (PGlite ${options.storage === 'memory' ? 'in memory' : 'in a directory'}, shared_buffers ${process.env.PGLITE_SHARED_BUFFERS ?? '128MB (default)'}), ` +
      `vector index ${process.env.VECTOR_INDEX ?? 'flat (default)'}, keyword index ${process.env.KEYWORD_INDEX ?? 'default'}, lexical embedder, ` +
      `${DEFAULT_DIMENSIONS} dimensions, seed ${options.seed}; load average at the start ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  const results: SizeResult[] = [];
  for (const size of options.sizes) {
    console.log(`\n-- ${size} chunks`);
    results.push(await runInChild(size, options.concurrency, false));
  }
  const trials: SizeResult[] = [];
  if (options.trials.length && options.trialChunks > 0) {
    console.log(`\n-- ingestion by job concurrency, ${options.trialChunks} chunks each`);
    for (const concurrency of options.trials) trials.push(await runInChild(options.trialChunks, concurrency, true));
  }
  summary(results, trials, startedAt);
}

await main();
