/**
 * Checks every peer on a seeded synthetic corpus: build time, query latency (vector, filtered,
 * hybrid) and recall@10 against an exact cosine scan done here in a plain loop. Also checks that
 * filtered hits carry the tag asked for, and that every query returns k hits.
 *
 *   npx tsx bench/peers/check-peers.ts [--chunks 20000] [--queries 100] [--peers lancedb,hnswlib,orama]
 *     [--lance-index ivf_hnsw_sq|ivf_pq] [--lance-ef N] [--nprobes N] [--refine N] [--hnsw-ef N]
 *
 * Search settings left out are each peer's defaults (documented in its file).
 */
import { parseArgs } from 'node:util';
import { HnswlibPeer, hnswlibAvailable } from './hnswlib.peer.js';
import { LanceDbPeer } from './lancedb.peer.js';
import { OramaPeer } from './orama.peer.js';
import type { PeerChunk, PeerHit, VectorPeer } from './peer.js';
import { exactTopK, syntheticSet } from './synthetic-chunks.js';

const K = 10;
const DIMENSIONS = 384;
const TAGS = ['p10', 'p01'] as const;

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '20000' },
    queries: { type: 'string', default: '100' },
    peers: { type: 'string', default: 'lancedb,hnswlib,orama' },
    // Unset: each peer's own defaults (see its file).
    'lance-index': { type: 'string' },
    nprobes: { type: 'string' },
    refine: { type: 'string' },
    'lance-ef': { type: 'string' },
    'hnsw-ef': { type: 'string' },
  },
});

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

function recall(hits: readonly PeerHit[], truth: readonly string[]): number {
  if (!truth.length) return 1;
  const wanted = new Set(truth);
  return hits.filter((h) => wanted.has(h.id)).length / truth.length;
}

async function makePeers(names: readonly string[]): Promise<VectorPeer[]> {
  const peers: VectorPeer[] = [];
  for (const name of names) {
    if (name === 'lancedb') {
      peers.push(
        new LanceDbPeer({
          ...(args['lance-index'] === 'ivf_pq' || args['lance-index'] === 'ivf_hnsw_sq' ? { index: args['lance-index'] } : {}),
          ...(args.nprobes ? { nprobes: Number(args.nprobes) } : {}),
          ...(args.refine ? { refineFactor: Number(args.refine) } : {}),
          ...(args['lance-ef'] ? { ef: Number(args['lance-ef']) } : {}),
        }),
      );
    } else if (name === 'hnswlib') {
      if (await hnswlibAvailable()) peers.push(new HnswlibPeer(args['hnsw-ef'] ? { efSearch: Number(args['hnsw-ef']) } : {}));
      else console.log('hnswlib-node: not installed here (optional dependency, needs a C++ toolchain); skipped');
    } else if (name === 'orama') {
      peers.push(new OramaPeer());
    } else {
      throw new Error(`unknown peer ${name}`);
    }
  }
  return peers;
}

interface Timed {
  ms: number[];
  recall: number[];
  /** Queries that returned fewer than k hits although k matching chunks exist. */
  short: number;
  /** Hits without the tag asked for. */
  wrongTag: number;
}

async function timeQueries(run: (i: number) => Promise<PeerHit[]>, count: number, truth: (i: number) => string[] | undefined, tagOf?: (id: string) => string, tag?: string): Promise<Timed> {
  const timed: Timed = { ms: [], recall: [], short: 0, wrongTag: 0 };
  for (let i = 0; i < Math.min(5, count); i++) await run(i); // warm caches and lazy index loads
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const hits = await run(i);
    timed.ms.push(performance.now() - start);
    if (hits.length < K) timed.short++;
    if (tag !== undefined && tagOf) timed.wrongTag += hits.filter((h) => tagOf(h.id) !== tag).length;
    const t = truth(i);
    if (t) timed.recall.push(recall(hits, t));
  }
  return timed;
}

const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const chunkCount = Number(args.chunks);
  const queryCount = Number(args.queries);
  const started = performance.now();
  const { chunks, queries } = syntheticSet({ chunks: chunkCount, queries: queryCount, dimensions: DIMENSIONS, topics: 200, seed: 7 });
  const tagOf = new Map(chunks.map((c: PeerChunk) => [c.id, c.tag]));
  const counts = TAGS.map((t) => `${t} ${chunks.filter((c) => c.tag === t).length}`).join(', ');
  const truth = {
    all: queries.map((q) => exactTopK(chunks, q.vector, K)),
    p10: queries.map((q) => exactTopK(chunks, q.vector, K, 'p10')),
    p01: queries.map((q) => exactTopK(chunks, q.vector, K, 'p01')),
  };
  console.log(`${chunkCount} chunks × ${DIMENSIONS} dims (${counts}), ${queryCount} queries, k ${K}; corpus + exact answers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(`Node ${process.version}\n`);

  const header = ['peer', 'build s', 'vec p50', 'vec p99', 'recall', 'p10 p50', 'p10 rec', 'p01 p50', 'p01 rec', 'hyb p50', 'hyb p99'];
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const peer of await makePeers(args.peers.split(','))) {
    const t0 = performance.now();
    await peer.build(chunks, DIMENSIONS);
    const buildSeconds = (performance.now() - t0) / 1000;
    const plain = await timeQueries((i) => peer.vectorSearch(queries[i]!.vector, K), queryCount, (i) => truth.all[i]);
    const p10 = await timeQueries((i) => peer.vectorSearch(queries[i]!.vector, K, 'p10'), queryCount, (i) => truth.p10[i], (id) => tagOf.get(id) ?? '', 'p10');
    const p01 = await timeQueries((i) => peer.vectorSearch(queries[i]!.vector, K, 'p01'), queryCount, (i) => truth.p01[i], (id) => tagOf.get(id) ?? '', 'p01');
    const hybridSearch = peer.hybridSearch?.bind(peer);
    const hybrid = hybridSearch ? await timeQueries((i) => hybridSearch(queries[i]!.text, queries[i]!.vector, K), queryCount, () => undefined) : undefined;
    await peer.close();
    rows.push([
      peer.name,
      buildSeconds.toFixed(1),
      fmt(percentile(plain.ms, 50)),
      fmt(percentile(plain.ms, 99)),
      mean(plain.recall).toFixed(3),
      fmt(percentile(p10.ms, 50)),
      mean(p10.recall).toFixed(3),
      fmt(percentile(p01.ms, 50)),
      mean(p01.recall).toFixed(3),
      hybrid ? fmt(percentile(hybrid.ms, 50)) : '—',
      hybrid ? fmt(percentile(hybrid.ms, 99)) : '—',
    ]);
    for (const [what, t] of [['vector', plain], ['p10', p10], ['p01', p01], ['hybrid', hybrid]] as const) {
      if (t?.short) notes.push(`${peer.name}: ${t.short} ${what} queries returned fewer than ${K} hits`);
      if (t?.wrongTag) notes.push(`${peer.name}: ${t.wrongTag} ${what} hits had another tag`);
    }
  }
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: readonly string[]): string => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  console.log(line(header));
  for (const row of rows) console.log(line(row));
  console.log('\nLatencies in ms; recall@10 against the exact cosine scan (filtered: against the exact scan of that tag).');
  for (const note of notes) console.log(`! ${note}`);
  console.log(`Total ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

await main();
