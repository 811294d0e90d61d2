/**
 * Where ingestion's time goes, statement by statement: stores the retrieval-scale bench's synthetic
 * documents through DocumentService.ingest (the job engine stopped), then indexes them with the job
 * engine, timing every statement sent to PGlite (transactions' and the engine's included) and
 * printing, per phase, each statement's milliseconds per chunk, beside the phase's wall-clock and
 * CPU time per chunk. A statement's time runs from its call to its answer, so it includes waiting
 * for its turn when two jobs run at once (`--concurrency 1`, the default, keeps that out).
 *
 * `--sql FILE` runs a script after the migrations, for what-ifs (a trigger or an index dropped):
 * compare runs of the same size, alternating, since the machine's speed drifts.
 *
 * Usage: npx tsx bench/ingestion-statements.bench.ts [--chunks 20000] [--concurrency 1] [--sql what-if.sql] [--top 12]
 */
import fs from 'node:fs/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../core/config.js';
import type { Database, Queryable } from '../core/db/database.js';
import { migrate } from '../core/db/migrator.js';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import { DEFAULT_DIMENSIONS } from '../core/knowledge-bases/knowledge-base.schema.js';
import { tenantScope } from '../core/shared/scope.js';
import { createRuntime } from '../runtime/runtime.js';
import { SyntheticCorpus } from './corpus.js';
import { waitForJobs } from './support.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '1' },
    sql: { type: 'string' },
    top: { type: 'string', default: '12' },
    seed: { type: 'string', default: '42' },
  },
});

type Phase = 'store' | 'index';
const times = new Map<string, { phase: Phase; sql: string; ms: number; n: number }>();
let phase: Phase = 'store';

function timed(q: Queryable): Queryable {
  return {
    async query(sql, params) {
      const started = performance.now();
      try {
        return await q.query(sql, params);
      } finally {
        const text = sql.replace(/\s+/g, ' ').trim().slice(0, 90);
        const key = `${phase} ${text}`;
        const entry = times.get(key) ?? { phase, sql: text, ms: 0, n: 0 };
        entry.ms += performance.now() - started;
        entry.n += 1;
        times.set(key, entry);
      }
    },
    exec: (sql) => q.exec(sql),
  };
}

/** The database with every statement timed, in transactions and in the giving-way view too. */
function timedDatabase(db: Database): Database {
  const wrap = (view: Database, givingWay: () => Database): Database => ({
    ...view,
    ...timed(view),
    transaction: (fn) => view.transaction((tx) => fn(timed(tx))),
    givingWay,
  });
  const givingWay: Database = wrap(db.givingWay(), () => givingWay);
  return wrap(db, () => givingWay);
}

const size = Number(values.chunks);
const raw = await openPgliteDatabase('memory://');
await migrate(raw);
if (values.sql) await raw.exec(await fs.readFile(values.sql, 'utf8'));
const db = timedDatabase(raw);
// No snapshots of the flat index: the database lives in memory, and the default place (./data) is shared.
const runtime = await createRuntime(db, loadConfig({ JOB_CONCURRENCY: values.concurrency, LOG_LEVEL: 'silent', VECTOR_SNAPSHOT_DIR: 'off' }), pino({ level: 'silent' }));
runtime.maintenance?.start(); // as `npm start` does
try {
  const { services } = runtime;
  const { tenant } = await services.tenants.create({ name: 'bench', plan: 'enterprise' });
  const scope = tenantScope(tenant.id);
  await services.tenants.update(scope, { limit_overrides: { max_documents: 10_000_000, max_chunks: 100_000_000, storage_bytes: 1024 ** 4 } });
  const kb = await services.knowledgeBases.create(scope, { name: 'bench', dimensions: DEFAULT_DIMENSIONS });
  const corpus = new SyntheticCorpus({ seed: Number(values.seed), topics: 300, terms: 8000 });
  const { docs, chunks } = corpus.documentsHolding(size);
  times.clear();

  /** Per chunk: wall-clock and CPU ms; and how long the event loop was held (what a request arriving meanwhile waits). */
  const measure = async (work: () => Promise<void>) => {
    const cpu = process.cpuUsage();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    await work();
    delay.disable();
    const used = process.cpuUsage(cpu);
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    return {
      wall: (performance.now() - started) / chunks,
      cpu: (used.user + used.system) / 1000 / chunks,
      delay: `event loop delay p50 / p99 / max ${ms(delay.percentile(50))} / ${ms(delay.percentile(99))} / ${ms(delay.max)} ms`,
    };
  };
  const store = await measure(async () => {
    for (const doc of docs) await services.documents.ingest(scope, { knowledge_base_id: kb.id, title: doc.title, content: doc.content, tags: doc.tags });
  });
  phase = 'index';
  const index = await measure(async () => {
    await runtime.engine.start();
    await waitForJobs(raw);
  });

  console.log(
    `${docs.length} documents, ${chunks} chunks, job concurrency ${values.concurrency}${values.sql ? `, after ${values.sql}` : ''}; ms per chunk (wall / CPU of the process):`,
  );
  console.log(`  storing ${store.wall.toFixed(3)} / ${store.cpu.toFixed(3)} (${store.delay})`);
  console.log(`  indexing ${index.wall.toFixed(3)} / ${index.cpu.toFixed(3)} (${index.delay})`);
  for (const p of ['store', 'index'] as const) {
    console.log(`  ${p === 'store' ? 'storing' : 'indexing'}, the statements taking most (ms per chunk, statements):`);
    const rows = [...times.values()].filter((t) => t.phase === p).sort((a, b) => b.ms - a.ms);
    for (const t of rows.slice(0, Number(values.top))) console.log(`    ${(t.ms / chunks).toFixed(3)}  ${String(t.n).padStart(6)}  ${t.sql}`);
  }
} finally {
  await runtime.close();
  await raw.close();
}
