/**
 * Query latency with and without a platform corpus in the search, on the embedded topology (PGlite
 * + full-text search, lexical embedder; the flat in-process vector index by default, or pgvector HNSW
 * with VECTOR_INDEX=pgvector and the default exact-scan threshold).
 *
 * A Standard tenant owns a knowledge base of `--tenant-docs` one-chunk documents. Its queries are
 * timed (SearchService.query, concurrency 1: retrieval only, no quotas or metering) first with no
 * corpus on the instance; then a corpus of `--chunks` synthetic one-chunk records is loaded through
 * the service layer (CorpusService.loadRecords in loads of up to 5,000 records, indexed by the
 * corpus_ingestion jobs of the embedded engine) and the same queries are timed in rounds, each
 * round running every variant once. With pgvector: inserting into an HNSW graph one row at a time is
 * slow on PGlite, so unless `--incremental-index`, only the first load goes into the index as the product
 * does it (its rate is printed); for the rest the HNSW index is dropped and then built once over
 * the whole corpus, as pgvector advises for bulk loads (that build's time is printed too). The
 * queries run against the same index either way.
 *
 *
 *   without corpus   `corpora: []`: the tenant's documents only, while the corpus exists
 *   with corpus      the default: the tenant's documents and the corpus, fused
 *   with filter      as above with a `metadata_filter` that ~10% of the records match
 *   corpus vector    the vector index's searchCorpora alone (limit 50), as the search sends it
 *                    (pgvector: its plan is printed)
 *   corpus keyword   the corpus's full-text search alone
 *
 * It prints p50/p99 per variant and round, their medians over the rounds, ingestion throughput,
 * and the load average around each phase (the figures move with the machine's load). Each variant
 * stops after `--budget-seconds` per round and says how many queries it measured.
 *
 * Usage: node --import tsx bench/corpus-latency.bench.ts [--chunks 100000] [--tenant-docs 1000]
 *   [--queries 200] [--rounds 5] [--budget-seconds 60] [--incremental-index] [--data-dir DIR] [--seed 7]
 * `--data-dir` keeps the database there, and a later run with the same directory reuses it (no
 * second load). npm run bench -- corpus-latency --chunks=20000 passes `--name=value` forms.
 */
import { scopeOf, tenantScope } from '../core/shared/scope.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { PgVectorIndex } from '../core/adapters/pgvector.vector-index.js';
import { LexemeFrequencies, corpusKeywordSearch } from '../core/adapters/postgres.keyword-index.js';
import { createRuntime } from '../runtime/runtime.js';
import { loadConfig } from '../core/config.js';
import type { RequestContext } from '../core/context.js';
import { corporaOfTenant } from '../core/corpora/corpus.repository.js';
import type { CorpusRecordInput } from '../core/corpora/corpus.schema.js';
import type { Database } from '../core/db/database.js';
import { migrate } from '../core/db/migrator.js';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import { lexemesOf } from '../core/search/bm25.js';
import type { QueryRequest } from '../core/search/search.schema.js';
import { keywordRanking, queryLexemes } from '../core/search/search.repository.js';
import type { Services } from '../runtime/services.js';
import { keyContext, median, percentile } from './support.js';
import { VectorQueryProbe } from './vector-query-probe.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    chunks: { type: 'string', default: '100000' },
    'tenant-docs': { type: 'string', default: '1000' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
    'budget-seconds': { type: 'string', default: '60' },
    'incremental-index': { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    seed: { type: 'string', default: '7' },
  },
  allowPositionals: true,
});
const options = {
  chunks: Number(values.chunks),
  tenantDocs: Number(values['tenant-docs']),
  queries: Number(values.queries),
  rounds: Number(values.rounds),
  budgetMs: Number(values['budget-seconds']) * 1000,
  incrementalIndex: values['incremental-index'],
  dataDir: values['data-dir'],
  seed: Number(values.seed),
};
const SLUG = 'bench-corpus';
const LOAD_SIZE = Math.max(100, Math.min(5000, Math.floor(options.chunks / 10)));
const WARMUP = 5;
const TOP_K = 10;
const FILTER = { region: 'r3' };

/** mulberry32: a small seeded generator, so every run builds the same texts. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Pseudo-words from syllables, drawn with a skew (a few frequent, most rare) as in real text, so
 * both the keyword index and the lexical embedder see realistic overlap between texts.
 */
class Texts {
  private readonly words: string[] = [];
  constructor(private readonly random: () => number) {
    const syllables = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'pel', 'dri', 'nu', 'sor', 'ga', 'bel', 'tri', 'om', 'zu', 'fen', 'ha', 'qui'];
    for (let i = 0; i < 20_000; i++) {
      const n = 2 + Math.floor(random() * 3);
      let w = '';
      for (let j = 0; j < n; j++) w += syllables[Math.floor(random() * syllables.length)];
      this.words.push(`${w}${i % 97}`);
    }
  }
  word(): string {
    return this.words[Math.floor(this.words.length * this.random() ** 3)]!;
  }
  sentence(words: number): string {
    return Array.from({ length: words }, () => this.word()).join(' ');
  }
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

interface Latency {
  p50: number;
  p99: number;
  /** Queries measured: fewer than asked when the time budget ran out. */
  n: number;
}

async function time(queries: string[], run: (q: string) => Promise<unknown>): Promise<Latency> {
  for (const q of queries.slice(-WARMUP)) await run(q);
  const latencies: number[] = [];
  const start = performance.now();
  for (const q of queries) {
    if (performance.now() - start > options.budgetMs) break;
    const t = performance.now();
    await run(q);
    latencies.push(performance.now() - t);
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
}

/** The migration's index of 1024-dimension platform chunks. */
const PLATFORM_INDEX =
  'CREATE INDEX idx_platform_chunks_embedding ON platform_chunks USING hnsw ((embedding::vector(1024)) vector_cosine_ops) WHERE dimensions = 1024';

async function loadCorpus(
  db: Database,
  services: Services,
  pgvector: boolean,
  engine: { drain(types?: readonly string[]): Promise<number> },
  texts: Texts,
  random: () => number,
): Promise<void> {
  await services.corpora.create({ slug: SLUG, name: 'Bench corpus', license_info: '', requires_dua: false, plans: ['standard'], dimensions: 1024 });
  let start = performance.now();
  let indexDropped = false;
  for (let offset = 0; offset < options.chunks; offset += LOAD_SIZE) {
    if (pgvector && offset === LOAD_SIZE && !options.incrementalIndex) {
      const seconds = (performance.now() - start) / 1000;
      console.log(`  into the HNSW index as the product loads: ${(LOAD_SIZE / seconds).toFixed(0)} chunks/s; the rest goes in without it`);
      await db.exec('DROP INDEX idx_platform_chunks_embedding');
      indexDropped = true;
      start = performance.now();
    }
    const records: CorpusRecordInput[] = [];
    for (let i = offset; i < Math.min(options.chunks, offset + LOAD_SIZE); i++) {
      records.push({
        source_record_id: `rec-${i}`,
        content: texts.sentence(40 + Math.floor(random() * 30)),
        metadata: { region: `r${i % 10}`, year: 2000 + (i % 25) },
      });
    }
    await services.corpora.loadRecords(SLUG, { records });
    await engine.drain(['corpus_ingestion']);
    const done = Math.min(options.chunks, offset + LOAD_SIZE);
    const since = indexDropped ? LOAD_SIZE : 0;
    const seconds = (performance.now() - start) / 1000;
    console.log(
      `  loaded ${done} records (${((done - since) / seconds).toFixed(0)} chunks/s${indexDropped ? ' without the HNSW index' : ''}), ` +
        `load average ${load()}`,
    );
  }
  if (indexDropped) {
    const t = performance.now();
    await db.exec(`SET maintenance_work_mem = '512MB'; ${PLATFORM_INDEX}; RESET maintenance_work_mem`);
    console.log(`  HNSW index built over ${options.chunks} chunks in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const { corpus } = await services.corpora.get(SLUG);
  if (corpus.chunk_count !== options.chunks) throw new Error(`the corpus holds ${corpus.chunk_count} chunks, not ${options.chunks}`);
}

async function main(): Promise<void> {
  const log = pino({ level: 'silent' });
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : await fs.mkdtemp(path.join(os.tmpdir(), 'lore-corpus-bench-'));
  const stateFile = path.join(dataDir, 'bench-state.json');
  const state = (await fs.readFile(stateFile, 'utf8').then(JSON.parse, () => undefined)) as { apiKey: string; chunks: number } | undefined;
  // PGLITE_SHARED_BUFFERS from the environment, as `npm start` reads it (the HNSW graph of 100k chunks needs ~1GB).
  const { database } = loadConfig({ PGLITE_SHARED_BUFFERS: process.env.PGLITE_SHARED_BUFFERS });
  const db = await openPgliteDatabase(path.join(dataDir, 'pgdata'), database.kind === 'embedded' ? { sharedBuffers: database.sharedBuffers } : {});
  await migrate(db);
  // The flat index's snapshots go to dataDir/vector-index, with the database (kept with it, or removed).
  const config = loadConfig({ LOG_LEVEL: 'silent', VECTOR_INDEX: process.env.VECTOR_INDEX, DATA_DIR: dataDir });
  const pgvector = config.vectorIndex.kind === 'pgvector';
  const runtime = await createRuntime(db, config, log);
  runtime.maintenance?.start(); // as `npm start` does: planner statistics, vacuum
  try {
    const { services } = runtime;
    const random = seeded(options.seed);
    const texts = new Texts(random);
    console.log(
      `corpus latency: PGlite in ${dataDir}, lexical embedder, vector index ${config.vectorIndex.kind}` +
        `${pgvector ? ` (exact-scan threshold ${config.vectorIndex.exactScanThreshold}, ef_search ${config.vectorIndex.efSearch})` : ''}; ${options.tenantDocs} tenant chunks, ${options.chunks} corpus chunks, ` +
        `${options.queries} queries × ${options.rounds} rounds, top_k ${TOP_K}, concurrency 1; ${os.cpus().length} CPUs, load average ${load()}`,
    );

    let apiKey = state?.apiKey;
    let baseline: Latency | undefined;
    const queries = Array.from({ length: options.queries }, () => texts.sentence(3 + Math.floor(random() * 4)));
    const context = (): Promise<RequestContext> => keyContext(services, apiKey!, log);
    const search = (ctx: RequestContext, extra: Partial<QueryRequest>) => (q: string) =>
      services.search.query(ctx, { query: q, top_k: TOP_K, source_language: 'auto', ...extra });

    if (state && state.chunks !== options.chunks) throw new Error(`${dataDir} holds a corpus of ${state.chunks} chunks; use another --data-dir`);
    if (!state) {
      const created = await services.tenants.create({ name: 'bench', plan: 'standard' });
      apiKey = created.apiKey;
      const scope = tenantScope(created.tenant.id);
      await services.tenants.update(scope, { limit_overrides: { max_documents: 1_000_000, max_chunks: 10_000_000 } });
      const kb = await services.knowledgeBases.create(scope, { name: 'bench', dimensions: 1024 });
      for (let i = 0; i < options.tenantDocs; i++) {
        await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: `doc ${i}`, content: texts.sentence(40 + Math.floor(random() * 30)) });
      }
      await runtime.engine.drain();
      baseline = await time(queries, search(await context(), {}));
      console.log(`\nno corpus on the instance: p50 ${ms(baseline.p50)} ms, p99 ${ms(baseline.p99)} ms (load average ${load()})`);
      console.log(`\nloading ${options.chunks} corpus records:`);
      await loadCorpus(db, services, pgvector, runtime.engine, texts, random);
      await fs.writeFile(stateFile, JSON.stringify({ apiKey, chunks: options.chunks }));
    } else {
      console.log('\nreusing the tenant and corpus of an earlier run');
    }

    const ctx = await context();
    const corpus = (await corporaOfTenant(db, scopeOf(ctx), ctx.tenant.plan)).find((c) => c.slug === SLUG)!;
    const filteredShare = Number(
      (await db.query<{ s: number }>(`SELECT avg((metadata ->> 'region' = $1)::int)::float8 AS s FROM platform_chunks`, [FILTER.region])).rows[0]!.s,
    );
    const probe = new VectorQueryProbe(db);
    const probedIndex = pgvector ? new PgVectorIndex(probe.database(), config.vectorIndex) : services.adapters.vectorIndex;
    const vector = async (q: string) => {
      const [v] = await services.adapters.embedder.embed([q], { dimensions: 1024, kind: 'query' });
      return probedIndex.searchCorpora({
        filter: { corpusIds: [corpus.id], metadata: {}, embedder: services.adapters.embedder.id },
        dimensions: 1024,
        vector: v!,
        limit: 50,
      });
    };
    const frequencies = new LexemeFrequencies(db);
    const keyword = async (q: string) => {
      const words = await queryLexemes(db, q);
      return corpusKeywordSearch(db, {
        filter: { corpusIds: [corpus.id], metadata: {} },
        words: lexemesOf(words),
        ranking: await keywordRanking(db, [corpus.id], words),
        limit: 50,
        frequencies,
      });
    };
    const variants: Array<[string, (q: string) => Promise<unknown>]> = [
      ['without corpus', search(ctx, { corpora: [] })],
      ['with corpus', search(ctx, {})],
      [`with filter (${(filteredShare * 100).toFixed(0)}%)`, search(ctx, { metadata_filter: FILTER })],
      ['corpus vector', vector],
      ['corpus keyword', keyword],
    ];
    await vector(queries[0]!);
    if (pgvector) console.log(`plan of the corpus vector statement: ${await probe.planSummary()}`);
    const sample = (await services.search.query(ctx, { query: queries[0]!, top_k: TOP_K, source_language: 'auto' })).results;
    console.log(`\na query's results: ${sample.filter((r) => r.source === SLUG).length} from the corpus, ${sample.filter((r) => r.source === 'tenant').length} own`);

    const figures = new Map<string, Latency[]>();
    for (let round = 1; round <= options.rounds; round++) {
      const line: string[] = [];
      for (const [name, run] of variants) {
        const f = await time(queries, run);
        figures.set(name, [...(figures.get(name) ?? []), f]);
        line.push(`${name} ${ms(f.p50)}/${ms(f.p99)} (n=${f.n})`);
      }
      console.log(`round ${round} (p50/p99 ms): ${line.join('; ')}; load average ${load()}`);
    }
    console.log(`\nmedians over ${options.rounds} rounds (ms):`);
    console.log('| variant | p50 | p99 | queries per round |\n|---|---|---|---|');
    if (baseline) {
      console.log(`| no corpus on the instance (before loading; one run) | ${ms(baseline.p50)} | ${ms(baseline.p99)} | ${baseline.n} |`);
    }
    for (const [name, runs] of figures) {
      const n = runs.map((r) => r.n);
      console.log(
        `| ${name} | ${ms(median(runs.map((r) => r.p50)))} | ${ms(median(runs.map((r) => r.p99)))} | ${Math.min(...n)}–${Math.max(...n)} |`,
      );
    }
    console.log(`load average at the end: ${load()}`);
  } finally {
    await runtime.close();
    await db.close();
    if (!options.dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
