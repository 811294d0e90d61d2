/**
 * The flat vector index's exact int8 scan at one segment's size, in isolation: usearch's row-wise
 * SIMD scan (the calling thread's, for small segments) against ColumnVectors' column scan (the
 * worker's, for large ones), over the built-in lexical embedder's vectors of the synthetic bench
 * corpus. Queries are the corpus's own (sparse: a few words' hashed features, ~6% non-zero) and,
 * standing in for a transformer model's dense queries, chunk vectors. Prints the median time per
 * scan over several rounds, unfiltered and over a listed 10% of the rows, and checks that both
 * scans return the same top 10.
 *
 * Usage: node --import tsx bench/vector-scan.bench.ts [--rows 100000] [--queries 200] [--rounds 5]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ColumnVectors, type ScanMatches } from '../core/adapters/flat-index/scan/column-scan.js';
import { scanNow } from '../core/adapters/flat-index/scan/vector-scanner.js';
import { quantize } from '../core/adapters/flat-index/segment.js';
import { LexicalEmbedder } from '../core/adapters/lexical.embedder.js';
import { DEFAULT_CHUNKING, chunkText } from '../core/ingestion/chunker.js';
import { DEFAULT_DIMENSIONS } from '../core/knowledge-bases/knowledge-base.schema.js';
import { SyntheticCorpus } from './corpus.js';
import { median } from './support.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
  },
});
const N = Number(values.rows);
const Q = Number(values.queries);
const ROUNDS = Number(values.rounds);
const d = DEFAULT_DIMENSIONS;
const K = 50; // the search's candidate count at top_k 10

const corpus = new SyntheticCorpus({ seed: 42, topics: 300, terms: 8000 });
const embedder = new LexicalEmbedder();
const data = new Int8Array(N * d);
let rows = 0;
let documents = 0;
const started = performance.now();
while (rows < N) {
  const texts = chunkText(corpus.document(documents++).content, DEFAULT_CHUNKING).map((c) => c.content).slice(0, N - rows);
  for (const v of await embedder.embed(texts, { dimensions: d, kind: 'document' })) quantize(v, data, d * rows++);
}
console.log(`${N} chunks of ${d} dimensions embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const sparse: Int8Array[] = [];
for (let i = 0; i < Q; i++) {
  const target = (Math.imul(i + 1, 2654435761) >>> 0) % documents;
  sparse.push(quantize((await embedder.embed([corpus.query(i, target)], { dimensions: d, kind: 'query' }))[0]!));
}
const dense = Array.from({ length: Q }, (_, i) => data.slice(((i * 7919) % N) * d, (((i * 7919) % N) + 1) * d));
const nonZero = sparse.reduce((n, q) => n + q.filter((x) => x !== 0).length, 0) / Q;

let t = performance.now();
const columns = new ColumnVectors(d);
for (let at = 0; at < N; at += 1000) columns.write(at, data.subarray(at * d, Math.min(N, at + 1000) * d));
console.log(`column layout written in ${(performance.now() - t).toFixed(0)} ms (${(columns.bytes / 2 ** 20).toFixed(0)} MiB)`);

const only = Int32Array.from({ length: N }, (_, i) => i).filter((i) => i % 10 === 3);
const gather = (q: Int8Array) => {
  const out = new Int8Array(only.length * d);
  only.forEach((row, i) => out.set(data.subarray(row * d, (row + 1) * d), i * d));
  return scanNow(out, q, d, K, 1);
};
const scans: Record<string, (q: Int8Array) => ScanMatches> = {
  'usearch, rows': (q) => scanNow(data, q, d, K, 1),
  'column scan': (q) => columns.scan(q, K),
  'usearch, 10% gathered': gather,
  'column scan, 10% listed': (q) => columns.scan(q, K, N, only),
};

console.log(`median ms per scan over ${ROUNDS} rounds of ${Q} queries, one thread, top ${K}; sparse queries: ${nonZero.toFixed(0)} non-zero dimensions on average`);
for (const [kind, queries] of [['sparse', sparse], ['dense', dense]] as const) {
  for (const [name, scan] of Object.entries(scans)) {
    const rounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const times: number[] = [];
      for (const q of queries) {
        t = performance.now();
        scan(q);
        times.push(performance.now() - t);
      }
      rounds.push(median(times));
    }
    console.log(`  ${kind.padEnd(6)} ${name.padEnd(26)} ${median(rounds).toFixed(2).padStart(7)}  (rounds: ${rounds.map((x) => x.toFixed(2)).join(', ')})`);
  }
  let same = 0;
  for (const q of queries) {
    const a = new Set(Array.from(scans['usearch, rows']!(q).keys.subarray(0, 10), Number));
    same += Array.from(columns.scan(q, 10).keys, Number).filter((k) => a.has(k)).length;
  }
  console.log(`  ${kind.padEnd(6)} top-10 agreement of the two scans: ${(same / queries.length / 10).toFixed(3)}`);
}
