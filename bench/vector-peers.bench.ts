/**
 * Lore's in-memory vector index side by side with the embedded engines a user would otherwise
 * pick (LanceDB, hnswlib-node, Orama; bench/peers/), on the same chunks with the same dense vectors.
 *
 * Chunks: Debian's LibreOffice help in six languages (en, de, fr, es, it, nl), each page chunked
 * by Lore's chunker; past the ~43,000 chunks one pass gives, further passes chunk the same pages
 * at other target sizes (so the chunks differ; exact duplicates are dropped). Vectors: the
 * deterministic DenseBenchEmbedder (bench/dense-embedder.ts), identical for every system. Queries:
 * entries of the help's own index (bookmarks.js), sampled over the languages. Filters: each page
 * (per pass) falls in one of 1,000 buckets by a hash; `p10` marks 10 % of them, `p01` 0.1 %.
 *
 * For each size, the data set is built once (cached under .bench/vector-peers/), the exact
 * top 10 of every query is computed by brute force over float32 (usearch's exactSearch), and each
 * system then runs in a child process of its own (so resident memory is its own): build time,
 * vector-only latency p50/p99 at concurrency 1, unfiltered and with each filter, recall@10
 * against the exact answer, hybrid latency where the system has a hybrid mode, and RSS.
 *
 * Lore is measured at its index (core/adapters/flat-index Segment: the per-knowledge-base index
 * every query of the embedded topology goes through, with the runtime's graph policy), the peers
 * through their own APIs in process. Over HTTP, a Lore query adds what bench/retrieval-scale
 * measures (parsing, authentication, limits, metering, the keyword side, fetching the results).
 *
 * Usage: npx tsx bench/vector-peers.bench.ts [--sizes 100000:384,1000000:768] [--systems lore,lancedb,hnswlib,orama]
 *   [--queries 200] [--rounds 3] [--ef 800[,1600…]] [--child-minutes 45]
 *
 * Lore's graph is built as VECTOR_GRAPH_EF_CONSTRUCTION says and searched at VECTOR_GRAPH_EF_SEARCH, or at --ef's first
 * value; --ef's further values are measured on the same graph, read back from the snapshot.
 */
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import readline from 'node:readline';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { usearch } from '../core/adapters/flat-index/scan/usearch.js';
import { VectorScanner } from '../core/adapters/flat-index/scan/vector-scanner.js';
import { type IndexedDocument, Segment, quantize } from '../core/adapters/flat-index/segment.js';
import { documentState } from '../core/adapters/flat-index/flat.vector-index.js';
import { SnapshotStore } from '../core/adapters/flat-index/snapshot.js';
import { type GraphPolicy, graphPolicyOf } from '../core/adapters/flat-index/vector-graph.js';
import { loadConfig } from '../core/config.js';
import { type ChunkFilter, documentFilterLabels, documentLabels, documentMatcher } from '../core/search/chunk-filter.js';
import { seededRandom } from '../core/shared/seeded-random.js';
import { DenseBenchEmbedder } from './dense-embedder.js';
import { TAGS, helpChunks, loadHelpCollections } from './help-chunks.js';
import type { PeerChunk, VectorPeer } from './peers/peer.js';
import { ROOT, median, percentile } from './support.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: 'string', default: '100000:384,1000000:768' },
    systems: { type: 'string', default: 'lore,lancedb,hnswlib,orama' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    ef: { type: 'string' },
    'child-minutes': { type: 'string', default: '45' },
    child: { type: 'string' },
    data: { type: 'string' },
  },
});

const FILTERS = [undefined, 'p10', 'p01'] as const;
type FilterName = (typeof FILTERS)[number];
const CACHE = path.join(ROOT, '.bench');

/** What a data set directory holds (besides vectors.f32, queries.f32 and texts.jsonl). */
interface Manifest {
  size: number;
  dimensions: number;
  /** Per chunk: its page-pass number (the document). */
  documents: number[];
  /** Per chunk: 0 untagged, 1 p10, 2 p01 (TAGS). */
  tags: number[];
  queries: string[];
  /** Per filter name ('' unfiltered), per query: the exact top 10 chunk numbers. */
  truth: Record<string, number[][]>;
}

interface SystemResult {
  system: string;
  buildSeconds: number;
  /** Seconds until searches are served (Lore: the rows are scanned exactly before the graph is complete). */
  searchableSeconds: number;
  vector: Record<string, { p50: number; p99: number; recall: number }>;
  hybrid?: Record<string, { p50: number; p99: number }>;
  rssMb: number;
  /** Lore: writing its snapshot, and a restart's reading it back until searches are served by the graph. */
  snapshot?: { writeSeconds: number; restoreSeconds: number; megabytes: number; rssAfterRestoreMb: number };
}

async function buildDataSet(dir: string, size: number, dimensions: number, queryCount: number): Promise<void> {
  const done = path.join(dir, 'manifest.json');
  if (await fs.stat(done).catch(() => undefined)) return;
  await fs.mkdir(dir, { recursive: true });
  console.log(`building the data set: ${size} chunks × ${dimensions} dimensions`);
  const collections = await loadHelpCollections();
  const embedder = new DenseBenchEmbedder(dimensions);
  const vectors = new Float32Array(size * dimensions);
  const texts: string[] = [];
  const documents: number[] = [];
  const tags: number[] = [];
  for (const chunk of helpChunks(collections)) {
    if (texts.length >= size) break;
    embedder.embed(chunk.content, vectors.subarray(texts.length * dimensions, (texts.length + 1) * dimensions));
    texts.push(chunk.content);
    documents.push(chunk.document);
    tags.push(chunk.tag);
  }
  const random = seededRandom(7);
  const entries = collections.flatMap((c) => c.index.map((e) => e.term));
  const queries = Array.from({ length: queryCount }, () => entries[Math.floor(random() * entries.length)]!);
  const queryVectors = new Float32Array(queryCount * dimensions);
  queries.forEach((q, i) => embedder.embed(q, queryVectors.subarray(i * dimensions, (i + 1) * dimensions)));
  const truth: Record<string, number[][]> = {};
  for (const filter of FILTERS) {
    const rows = filter ? tags.flatMap((t, i) => (TAGS[t] === filter ? [i] : [])) : null;
    let dataset = vectors;
    if (rows) {
      dataset = new Float32Array(rows.length * dimensions);
      rows.forEach((row, i) => dataset.set(vectors.subarray(row * dimensions, (row + 1) * dimensions), i * dimensions));
    }
    const found = usearch.exactSearch(dataset, queryVectors, dimensions, 10, usearch.MetricKind.Cos, 0) as InstanceType<typeof usearch.BatchMatches>;
    truth[filter ?? ''] = queries.map((_, q) => Array.from(found.get(q).keys, (k) => (rows ? rows[Number(k)]! : Number(k))));
  }
  await writeFloats(path.join(dir, 'vectors.f32'), vectors);
  await writeFloats(path.join(dir, 'queries.f32'), queryVectors);
  // One JSON string per line: a million chunks' text is more than one JavaScript string can hold.
  const handle = await fs.open(path.join(dir, 'texts.jsonl'), 'w');
  try {
    for (let i = 0; i < texts.length; i += 10_000) await handle.write(`${texts.slice(i, i + 10_000).map((t) => JSON.stringify(t)).join('\n')}\n`);
  } finally {
    await handle.close();
  }
  const manifest: Manifest = { size, dimensions, documents, tags, queries, truth };
  await fs.writeFile(done, JSON.stringify(manifest));
}

async function writeFloats(file: string, data: Float32Array): Promise<void> {
  const handle = await fs.open(file, 'w');
  try {
    const step = 1 << 24;
    for (let i = 0; i < data.length; i += step) {
      const part = data.subarray(i, Math.min(data.length, i + step));
      await handle.write(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
    }
  } finally {
    await handle.close();
  }
}

/** The data set's vectors, `rows` at a time, without holding all of them. */
async function* readVectors(file: string, dimensions: number, rows = 10_000): AsyncGenerator<{ first: number; vectors: Float32Array }> {
  const handle = await fs.open(file, 'r');
  try {
    for (let first = 0; ; first += rows) {
      const bytes = Buffer.alloc(rows * dimensions * 4);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, first * dimensions * 4);
      if (!bytesRead) return;
      yield { first, vectors: new Float32Array(bytes.buffer, bytes.byteOffset, bytesRead / 4) };
    }
  } finally {
    await handle.close();
  }
}

const overlap = (got: readonly number[], want: readonly number[]) => (want.length ? got.filter((g) => want.includes(g)).length / want.length : 1);

/** Latency per query (ms) over `rounds` rounds: each round's p50 and p99, the median of each; and recall@10. */
async function timeQueries(
  manifest: Manifest,
  rounds: number,
  run: (q: number) => Promise<number[]>,
  filter: FilterName,
): Promise<{ p50: number; p99: number; recall: number }> {
  const p50s: number[] = [];
  const p99s: number[] = [];
  let recall = 0;
  for (let round = 0; round < rounds; round++) {
    const times: number[] = [];
    recall = 0;
    for (let q = 0; q < manifest.queries.length; q++) {
      const started = performance.now();
      const got = await run(q);
      times.push(performance.now() - started);
      recall += overlap(got, manifest.truth[filter ?? '']![q]!);
    }
    p50s.push(percentile(times, 50));
    p99s.push(percentile(times, 99));
  }
  return { p50: median(p50s), p99: median(p99s), recall: recall / manifest.queries.length };
}

async function runLore(dir: string, manifest: Manifest, queryVectors: Float32Array, rounds: number): Promise<SystemResult[]> {
  const d = manifest.dimensions;
  // The runtime's policy (VECTOR_GRAPH_MIN_MB, VECTOR_GRAPH_EF_SEARCH, VECTOR_GRAPH_EF_CONSTRUCTION), or --ef's first
  // value; its further values are measured on the same graph, read back from the snapshot with that ef.
  const settings = loadConfig().vectorIndex;
  const [ef, ...deeper] = values.ef ? values.ef.split(',').map(Number) : [settings.graphEfSearch];
  const policy = graphPolicyOf({ ...settings, graphEfSearch: ef! });
  /** Each filter's latency and recall over the queries. */
  const measure = async (searched: Segment<IndexedDocument>): Promise<SystemResult['vector']> => {
    const vector: SystemResult['vector'] = {};
    for (const filter of FILTERS) {
      const chunkFilter: ChunkFilter = { scope: { tenantId: 't', subTenantId: null }, knowledgeBaseIds: [], tags: filter ? { bucket: filter } : {} };
      const accept = documentMatcher(chunkFilter);
      const labels = documentFilterLabels(chunkFilter);
      vector[filter ?? 'none'] = await timeQueries(manifest, rounds, async (q) => {
        const hits = await searched.nearest(quantize(queryVectors.subarray(q * d, (q + 1) * d)), 10, accept, labels);
        return hits.map((h) => Number(h.chunkId));
      }, filter);
    }
    return vector;
  };
  const scanner = new VectorScanner(0, 4 * 1024 * 1024);
  const segment = new Segment<IndexedDocument>(d, 't', null, scanner, documentLabels, false, policy);
  const started = performance.now();
  let owner: IndexedDocument | undefined;
  let chunks: Array<{ id: string; vector: Float32Array }> = [];
  const flush = () => {
    if (owner) segment.put(owner, chunks);
    chunks = [];
  };
  for await (const { first, vectors } of readVectors(path.join(dir, 'vectors.f32'), d)) {
    for (let i = 0; i < vectors.length / d; i++) {
      const row = first + i;
      const document = manifest.documents[row]!;
      if (owner?.key !== `d${document}`) {
        flush();
        owner = { key: `d${document}`, rows: [], subTenantId: null, tags: { bucket: TAGS[manifest.tags[row]!] || 'none' }, createdAt: new Date(0), title: '', version: '0' };
      }
      chunks.push({ id: String(row), vector: vectors.subarray(i * d, (i + 1) * d) });
    }
    await nextTurn();
  }
  flush();
  const searchable = (performance.now() - started) / 1000;
  while (segment.graphPending > 0) await nextTurn();
  const built = (performance.now() - started) / 1000;
  const vector = await measure(segment);
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  const graphed = policy && segment.hasGraph ? policy : null;
  const label = (search: number) => `Lore (flat index${graphed ? `, HNSW graph ef_construction ${graphed.expansionAdd}, ef ${search}` : ', exact scan'})`;
  const system = label(ef!);
  // A restart's index work: the snapshot written at shutdown, read back and checked at start.
  const store = new SnapshotStore(path.join(dir, 'lore-snapshot'));
  let t = performance.now();
  const generation = await store.begin();
  const graphFile = segment.hasGraph ? path.join(generation, 'graph-0.usearch') : undefined;
  await store.write(generation, { databaseId: 'bench', embedderId: 'bench', keywords: false, keywordIndexGeneration: 0, takenAt: new Date().toISOString() }, [
    { group: 'knowledgeBase', id: 'kb', state: await segment.exportState(graphFile), graphFile },
  ]);
  const writeSeconds = (performance.now() - t) / 1000;
  let megabytes = 0;
  for (const f of await fs.readdir(generation)) megabytes += (await fs.stat(path.join(generation, f))).size / 2 ** 20;
  segment.dispose();
  await scanner.close();
  // The built segment's memory goes before the restart's is counted (usearch frees a graph when it is collected).
  globalThis.gc?.();
  t = performance.now();
  const read = await store.read({ databaseId: 'bench', embedderId: 'bench', keywords: false, keywordIndexGeneration: 0 });
  const restore = (graphPolicy: GraphPolicy | null, on?: VectorScanner) =>
    Segment.restore<IndexedDocument>(documentState(read!.segments[0]!.state), read!.segments[0]!.graphFile, { scanner: on, labels: documentLabels, keywords: false, graphPolicy });
  const restored = restore(policy);
  await restored.nearest(quantize(queryVectors.slice(0, d)), 10, null);
  const restoreSeconds = (performance.now() - t) / 1000;
  const rssAfterRestoreMb = process.memoryUsage().rss / 2 ** 20;
  restored.dispose();
  const results: SystemResult[] = [
    { system, buildSeconds: built, searchableSeconds: searchable, vector, rssMb, snapshot: { writeSeconds, restoreSeconds, megabytes, rssAfterRestoreMb } },
  ];
  if (graphed && deeper.length) {
    // Searched as the built graph was, on a scan worker (a restarted index's graph is searched there too).
    const sweepScanner = new VectorScanner(0, 4 * 1024 * 1024);
    for (const search of deeper) {
      globalThis.gc?.();
      const again = restore({ ...graphed, expansionSearch: search }, sweepScanner);
      results.push({ system: label(search), buildSeconds: built, searchableSeconds: searchable, vector: await measure(again), rssMb: process.memoryUsage().rss / 2 ** 20 });
      again.dispose();
    }
    await sweepScanner.close();
  }
  await fs.rm(path.join(dir, 'lore-snapshot'), { recursive: true, force: true });
  return results;
}

async function loadPeer(system: string): Promise<VectorPeer> {
  switch (system) {
    case 'lancedb':
      return new (await import('./peers/lancedb.peer.js')).LanceDbPeer();
    case 'hnswlib':
      return new (await import('./peers/hnswlib.peer.js')).HnswlibPeer();
    case 'orama':
      return new (await import('./peers/orama.peer.js')).OramaPeer();
    default:
      throw new Error(`unknown system ${system}`);
  }
}

/** The search settings each graph peer is measured at: its default, then deeper (recall against latency). */
const PEER_SWEEPS: Record<string, number[]> = { hnswlib: [16, 100, 400, 800], lancedb: [40, 200, 800] };

async function runPeer(system: string, dir: string, manifest: Manifest, queryVectors: Float32Array, rounds: number): Promise<SystemResult[]> {
  const d = manifest.dimensions;
  const peer = await loadPeer(system);
  const texts: string[] = [];
  for await (const line of readline.createInterface({ input: createReadStream(path.join(dir, 'texts.jsonl')), crlfDelay: Infinity })) texts.push(JSON.parse(line) as string);
  const chunks: PeerChunk[] = [];
  for await (const { first, vectors } of readVectors(path.join(dir, 'vectors.f32'), d)) {
    for (let i = 0; i < vectors.length / d; i++) {
      const row = first + i;
      chunks.push({ id: String(row), text: texts[row]!, vector: vectors.slice(i * d, (i + 1) * d), tag: TAGS[manifest.tags[row]!] || 'none' });
    }
  }
  const started = performance.now();
  await peer.build(chunks, d);
  const built = (performance.now() - started) / 1000;
  chunks.length = 0;
  // A copy per query: native engines may read a typed array from the start of its buffer (usearch does).
  const query = (q: number) => queryVectors.slice(q * d, (q + 1) * d);
  const results: SystemResult[] = [];
  for (const [i, setting] of (PEER_SWEEPS[system] ?? [undefined]).entries()) {
    if (setting !== undefined) tunePeer(peer, system, setting);
    const vector: SystemResult['vector'] = {};
    const hybrid: NonNullable<SystemResult['hybrid']> = {};
    for (const filter of FILTERS) {
      vector[filter ?? 'none'] = await timeQueries(manifest, rounds, async (q) => (await peer.vectorSearch(query(q), 10, filter)).map((h) => Number(h.id)), filter);
      const search = peer.hybridSearch?.bind(peer);
      // Hybrid at the first (default) setting only.
      if (search && i === 0) {
        const { p50, p99 } = await timeQueries(manifest, rounds, async (q) => (await search(manifest.queries[q]!, query(q), 10, filter)).map((h) => Number(h.id)), filter);
        hybrid[filter ?? 'none'] = { p50, p99 };
      }
    }
    results.push({ system: peer.name, buildSeconds: built, searchableSeconds: built, vector, ...(Object.keys(hybrid).length ? { hybrid } : {}), rssMb: process.memoryUsage().rss / 2 ** 20 });
  }
  await peer.close();
  return results;
}

function tunePeer(peer: VectorPeer, system: string, ef: number): void {
  const tunable = peer as VectorPeer & { tune?: (setting: never) => void };
  if (system === 'hnswlib') (tunable.tune as (ef: number) => void)(ef);
  if (system === 'lancedb') (tunable.tune as (s: { ef: number }) => void)({ ef });
}

async function child(system: string, dir: string): Promise<void> {
  const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const bytes = await fs.readFile(path.join(dir, 'queries.f32'));
  const queryVectors = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const rounds = Number(values.rounds);
  const results = system === 'lore' ? await runLore(dir, manifest, queryVectors, rounds) : await runPeer(system, dir, manifest, queryVectors, rounds);
  for (const result of results) console.log(`RESULT ${JSON.stringify(result)}`);
}

function runChild(system: string, dir: string): Promise<Array<SystemResult | string>> {
  return new Promise((resolve) => {
    const args = ['--import', 'tsx', path.join(ROOT, 'bench/vector-peers.bench.ts'), '--child', system, '--data', dir, '--rounds', String(values.rounds), ...(values.ef ? ['--ef', values.ef] : [])];
    const proc = spawn(process.execPath, ['--max-old-space-size=16384', '--expose-gc', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
    // A system that stops answering (LanceDB 0.31 was seen idle forever mid-run) is ended and reported.
    const timer = setTimeout(() => proc.kill('SIGKILL'), Number(values['child-minutes']) * 60_000);
    proc.on('close', (code) => {
      clearTimeout(timer);
      const lines = out.split('\n').filter((l) => l.startsWith('RESULT '));
      resolve(lines.length ? lines.map((l) => JSON.parse(l.slice(7)) as SystemResult) : [`${system} failed (exit ${code}): ${err.trim().split('\n').slice(-5).join(' | ')}`]);
    });
  });
}

function report(size: number, dimensions: number, results: Array<SystemResult | string>): void {
  const ok = results.filter((r): r is SystemResult => typeof r !== 'string');
  const lore = ok.find((r) => r.system.startsWith('Lore'));
  const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  const ratio = (peer: number, mine: number | undefined) => (mine ? ` (${(peer / mine).toFixed(1)}×)` : '');
  console.log(`\n## ${size.toLocaleString('en')} chunks × ${dimensions} dimensions (ratios: the peer's figure over Lore's)\n`);
  console.log('| system | build s (searchable s) | vector p50 / p99 ms | recall@10 | filtered 10 % p50 / p99 ms | recall | filtered 0.1 % p50 / p99 ms | recall | hybrid p50 ms (none / 10 % / 0.1 %) | RSS MB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of ok) {
    const v = (f: string) => r.vector[f]!;
    const cell = (f: string) => `${ms(v(f).p50)}${r === lore ? '' : ratio(v(f).p50, lore?.vector[f]!.p50)} / ${ms(v(f).p99)}`;
    const hybrid = r.hybrid ? ['none', 'p10', 'p01'].map((f) => ms(r.hybrid![f]!.p50)).join(' / ') : '—';
    console.log(
      `| ${r.system} | ${r.buildSeconds.toFixed(1)} (${r.searchableSeconds.toFixed(1)}) | ${cell('none')} | ${v('none').recall.toFixed(3)} | ${cell('p10')} | ${v('p10').recall.toFixed(3)} | ${cell('p01')} | ${v('p01').recall.toFixed(3)} | ${hybrid} | ${r.rssMb.toFixed(0)} |`,
    );
  }
  for (const r of ok) {
    if (!r.snapshot) continue;
    const s = r.snapshot;
    console.log(
      `\n${r.system}: snapshot ${s.megabytes.toFixed(0)} MB written in ${s.writeSeconds.toFixed(1)} s; read back, checked and searchable in ${s.restoreSeconds.toFixed(1)} s (RSS then ${s.rssAfterRestoreMb.toFixed(0)} MB)`,
    );
  }
  for (const r of results) if (typeof r === 'string') console.log(`\n${r}`);
}

async function main(): Promise<void> {
  if (values.child) return child(values.child, values.data!);
  const systems = values.systems.split(',');
  for (const spec of values.sizes.split(',')) {
    const [size, dimensions] = spec.split(':').map(Number) as [number, number];
    const dir = path.join(CACHE, 'vector-peers', `${size}-${dimensions}-q${values.queries}`);
    await buildDataSet(dir, size, dimensions, Number(values.queries));
    const results: Array<SystemResult | string> = [];
    for (const system of systems) {
      if (system === 'orama' && size > 200_000) {
        results.push('orama: left out above 200,000 chunks (it keeps every vector as a JavaScript array of numbers: ~8 bytes a component)');
        continue;
      }
      console.log(`${size} × ${dimensions}: ${system}…`);
      results.push(...(await runChild(system, dir)));
    }
    report(size, dimensions, results);
  }
}

await main();
