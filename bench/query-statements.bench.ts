/**
 * Where a query's time goes, statement by statement: runs the retrieval-scale bench's queries
 * through SearchService over a database that bench kept (`--keep-data DIR`), timing every
 * statement sent to PGlite, and prints each statement's share per query next to the query's own
 * p50/p99. A statement's time includes waiting for the main thread when other work of the same
 * query (a filter evaluated in JavaScript, say) runs meanwhile, so that work shows up here too.
 *
 * Usage: npx tsx bench/retrieval-scale.bench.ts --sizes 100000 --keep-data .bench/data   (once)
 *        [KEYWORD_INDEX=flat|postgres] npx tsx bench/query-statements.bench.ts --data .bench/data/100000 [--filtered]
 *          [--queries 300] [--mode hybrid|vector|keyword]
 */
import { WordListDecompounder } from '../core/adapters/wordlist.decompounder.js';
import fs from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createRuntime } from '../runtime/runtime.js';
import { loadConfig } from '../core/config.js';
import type { QueryResult, Queryable, SqlParam } from '../core/db/database.js';
import { migrate } from '../core/db/migrator.js';
import { openPgliteDatabase } from '../core/db/pglite.database.js';
import type { QueryRequest } from '../core/search/search.schema.js';
import { DEFAULT_SEARCH_OPTIONS, type SearchOptions, SearchService } from '../core/search/search.service.js';
import { SyntheticCorpus } from './corpus.js';
import { keyContext, median, percentile } from './support.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    filtered: { type: 'boolean', default: false },
    mode: { type: 'string', default: 'hybrid' },
    queries: { type: 'string', default: '300' },
    seed: { type: 'string', default: '42' },
  },
});
if (!values.data) throw new Error('--data DIR is required: a directory kept by bench/retrieval-scale.bench.ts --keep-data');
const kept = JSON.parse(await fs.readFile(`${values.data}.json`, 'utf8')) as { tenantId: string; documents: number };
const log = pino({ level: 'silent' });
const { database } = loadConfig({ PGLITE_SHARED_BUFFERS: process.env.PGLITE_SHARED_BUFFERS ?? '256MB' });
const db = await openPgliteDatabase(values.data, database.kind === 'embedded' ? { sharedBuffers: database.sharedBuffers } : {});
await migrate(db);

// Every statement of the search, timed (the services are built over this wrapper).
const times = new Map<string, number[]>();
let recording = false;
const query = db.query.bind(db);
const timed: Queryable['query'] = async <T>(sql: string, params?: readonly SqlParam[]): Promise<QueryResult<T>> => {
  const started = performance.now();
  try {
    return await query<T>(sql, params);
  } finally {
    if (recording) {
      const key = sql.replace(/\s+/g, ' ').trim().slice(0, 100);
      times.set(key, [...(times.get(key) ?? []), performance.now() - started]);
    }
  }
};
db.query = timed;

// The flat index's snapshot that bench kept beside the database.
const config = loadConfig({ LOG_LEVEL: 'silent', KEYWORD_INDEX: process.env.KEYWORD_INDEX, VECTOR_SNAPSHOT_DIR: `${values.data}.vector-index` });
const runtime = await createRuntime(db, config, log);
const mode = values.mode as SearchOptions['mode'];
if (!['hybrid', 'vector', 'keyword'].includes(mode)) throw new Error('--mode is hybrid, vector or keyword');
const { embedder, vectorIndex, keywordIndex } = runtime.services.adapters;
const search = new SearchService(db, embedder, vectorIndex, keywordIndex, new WordListDecompounder(), runtime.services.adapters.synonymDictionary ?? null, { ...DEFAULT_SEARCH_OPTIONS, mode });
try {
  const started = performance.now();
  while ((await runtime.services.adapters.vectorIndex.status()).tenant !== 'ok') await new Promise((r) => setTimeout(r, 200));
  console.log(`vector index loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const { key } = await runtime.services.keys.create({ tenantId: kept.tenantId, subTenantId: null }, { name: 'statements bench', role: 'read' });
  const ctx = await keyContext(runtime.services, key, log);
  const corpus = new SyntheticCorpus({ seed: Number(values.seed), topics: 300, terms: 8000 });
  const texts = Array.from({ length: Number(values.queries) }, (_, i) => corpus.query(i, (Math.imul(i + 1, 2654435761) >>> 0) % kept.documents));
  const request = (text: string): QueryRequest => ({
    query: text,
    top_k: 10,
    source_language: 'auto',
    ...(values.filtered ? { filters: { 'tags.department': 'legal' } } : {}),
  });
  for (const text of texts.slice(0, 30)) await search.query(ctx, request(text));
  recording = true;
  const totals: number[] = [];
  for (const text of texts) {
    const t = performance.now();
    await search.query(ctx, request(text));
    totals.push(performance.now() - t);
  }
  recording = false;
  const perQuery = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / totals.length;
  console.log(
    `${totals.length} ${mode} queries (keyword index ${keywordIndex.kind})${values.filtered ? ' filtered to tags.department=legal' : ''}: p50 ${percentile(totals, 50).toFixed(2)} ms, ` +
      `p99 ${percentile(totals, 99).toFixed(2)} ms, mean ${perQuery(totals).toFixed(2)} ms`,
  );
  console.log('ms per query   runs   median    p99   statement');
  for (const [sql, xs] of [...times].sort((a, b) => perQuery(b[1]) - perQuery(a[1]))) {
    console.log(
      `${perQuery(xs).toFixed(2).padStart(12)} ${String(xs.length).padStart(6)} ${median(xs).toFixed(2).padStart(8)} ${percentile(xs, 99).toFixed(2).padStart(6)}   ${sql}`,
    );
  }
} finally {
  await runtime.close();
  await db.close();
}
