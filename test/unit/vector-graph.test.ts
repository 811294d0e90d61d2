import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { VectorScanner } from '../../core/adapters/flat-index/scan/vector-scanner.js';
import { type Owner, Segment, quantize } from '../../core/adapters/flat-index/segment.js';
import { DEFAULT_GRAPH_POLICY, type GraphPolicy } from '../../core/adapters/flat-index/vector-graph.js';
import { seededRandom } from '../../core/shared/seeded-random.js';

const DIMENSIONS = 96;

interface Tagged extends Owner {
  tag: string;
}

/** Clustered dense vectors, as a neural embedder's: 40 topics, each vector its topic's centre plus noise. */
function denseVectors(count: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: DIMENSIONS }, gauss));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * centres.length)]!;
    return centre.map((x) => x + 0.7 * gauss());
  });
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) [dot, na, nb] = [dot + a[i]! * b[i]!, na + a[i]! ** 2, nb + b[i]! ** 2];
  return dot / Math.sqrt(na * nb);
};

/** Waits until the segment's graph holds every row. */
async function built(segment: Segment<Tagged>): Promise<void> {
  while (segment.graphPending > 0) await nextTurn();
}

for (const host of ['here', 'on the scan worker'] as const) describe(`flat vector index: the HNSW graph of a large dense segment (${host})`, () => {
  // Filters passing up to 500 rows are scanned exactly; broader ones go through the graph.
  const policy: GraphPolicy = { ...DEFAULT_GRAPH_POLICY, minBytes: 500 * DIMENSIONS, exactBytes: 500 * DIMENSIONS };
  const vectors = denseVectors(3000, 3);
  const queries = denseVectors(30, 4);
  let segment: Segment<Tagged>;
  let scanner: VectorScanner | undefined;
  const live = new Set<number>();

  /** The exact top `k` among live rows that `accept` passes, by float cosine. */
  const exact = (q: Float32Array, k: number, accept: (i: number) => boolean = () => true) =>
    [...live]
      .filter(accept)
      .map((i) => ({ id: `c${i}`, s: cosine(q, vectors[i]!) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, k)
      .map((x) => x.id);

  /** Mean overlap of the segment's top 10 with the exact top 10 over the queries; every hit must be live and pass. */
  const overlap = async (accept: ((o: Tagged) => boolean) | null, labels: string[] = []) => {
    let sum = 0;
    for (const q of queries) {
      const got = (await segment.nearest(quantize(q), 10, accept, labels)).map((h) => h.chunkId);
      const passes = (i: number) => !accept || accept({ key: `o${i}`, rows: [], tag: i % 2 ? 'odd' : 'even' });
      const bad = got.filter((id) => !live.has(Number(id.slice(1))) || !passes(Number(id.slice(1))));
      assert.deepEqual(bad, [], "a removed or filtered-out row came back");
      const want = exact(q, 10, passes);
      assert.equal(got.length, want.length, 'the filter never shortens the answer');
      sum += got.filter((id) => want.includes(id)).length / want.length;
    }
    return sum / queries.length;
  };

  beforeEach(() => {
    // Mirrors start far above these segments' size: only the graph goes to the worker.
    scanner = host === 'here' ? undefined : new VectorScanner(1, 2 ** 40);
    segment = new Segment<Tagged>(DIMENSIONS, 't', null, scanner, (o) => [o.tag], false, policy);
    live.clear();
  });
  afterEach(async () => {
    segment.dispose();
    await scanner?.close();
  });

  const put = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      segment.put({ key: `o${i}`, rows: [], tag: i % 2 ? 'odd' : 'even' }, [{ id: `c${i}`, vector: vectors[i] }]);
      live.add(i);
    }
  };

  it('starts a graph once the segment is large and dense, and finds what the exact scan finds', async () => {
    put(0, 499);
    assert.equal(segment.hasGraph, false, 'below the size, no graph');
    put(499, 3000);
    assert.equal(segment.hasGraph, true);
    await built(segment);
    const found = await overlap(null);
    assert.ok(found >= 0.95, `overlap with the exact top 10: ${found}`);
  });

  it('never starts one over sparse vectors (the lexical embedder\'s)', () => {
    const sparse = new Segment<Tagged>(DIMENSIONS, 't', null, undefined, () => [], false, policy);
    for (let i = 0; i < 1000; i++) {
      const v = new Float32Array(DIMENSIONS);
      for (let j = 0; j < 8; j++) v[(i * 7 + j * 13) % DIMENSIONS] = 1 + j;
      sparse.put({ key: `o${i}`, rows: [], tag: '' }, [{ id: `c${i}`, vector: v }]);
    }
    assert.equal(sparse.hasGraph, false);
    sparse.dispose();
  });

  it('answers correctly while the graph catches up: rows not yet in it are scanned exactly', async () => {
    put(0, 2000);
    await built(segment);
    // A new row equal to a query is the best answer before the graph has it.
    const q = queries[0]!;
    segment.put({ key: 'new', rows: [], tag: 'even' }, [{ id: 'c-new', vector: q }]);
    assert.ok(segment.graphPending > 0, 'the row waits for the next turn of the event loop');
    assert.equal((await segment.nearest(quantize(q), 1, null))[0]!.chunkId, 'c-new');
    await built(segment);
    assert.equal((await segment.nearest(quantize(q), 1, null))[0]!.chunkId, 'c-new', 'and the graph has it afterwards');
  });

  it('filters inside the search: a broad filter through the graph, a narrow one by an exact scan, never shortened', async () => {
    put(0, 3000);
    await built(segment);
    assert.ok((await overlap((o) => o.tag === 'odd', ['odd'])) >= 0.9, 'half of the rows pass: through the graph');
    const few = new Set(['o10', 'o20', 'o2999']);
    const hits = await segment.nearest(quantize(queries[1]!), 10, (o) => few.has(o.key));
    assert.deepEqual(hits.map((h) => h.chunkId).sort(), ['c10', 'c20', 'c2999'], 'three rows pass: all three, exactly');
  });

  it('answers with every passing row when asked for all of them, even those the graph cannot reach', async () => {
    // Many equal vectors leave some of a graph's nodes unreachable from its entry point: a search
    // asking for every row must still get every one (by the exact scan the graph falls back to).
    const few = denseVectors(3, 11);
    for (let i = 0; i < 3000; i++) {
      segment.put({ key: `o${i}`, rows: [], tag: i % 2 ? 'odd' : 'even' }, [{ id: `c${i}`, vector: few[i % 3] }]);
    }
    await built(segment);
    assert.equal((await segment.nearest(quantize(few[0]!), 3000, null)).length, 3000);
    assert.equal((await segment.nearest(quantize(few[1]!), 1500, (o) => o.tag === 'odd', ['odd'])).length, 1500);
  });

  it('keeps removed rows out, through removals and the compaction that follows them', async () => {
    put(0, 3000);
    await built(segment);
    for (let i = 0; i < 2000; i++) {
      segment.remove(`o${i}`);
      live.delete(i);
    }
    assert.ok(segment.rows < 3000, 'the removals compacted the segment');
    assert.ok((await overlap(null)) >= 0.9);
    // Rows added after the compaction go to the graph under their new numbers.
    const extra = denseVectors(600, 9);
    for (let i = 0; i < extra.length; i++) segment.put({ key: `x${i}`, rows: [], tag: 'x' }, [{ id: `x${i}`, vector: extra[i] }]);
    await built(segment);
    const hit = await segment.nearest(quantize(extra[123]!), 1, null);
    assert.equal(hit[0]!.chunkId, 'x123');
    // The graph is approximate and built in time slices (so not the same graph on a loaded machine):
    // a survivor must come back under its own id among the first, not necessarily first.
    const survivors = (await segment.nearest(quantize(vectors[2500]!), 10, (o) => o.tag !== 'x')).map((h) => h.chunkId);
    assert.ok(survivors.includes('c2500'), `got ${survivors.join(', ')}`);
    assert.ok(survivors.every((id) => live.has(Number(id.slice(1)))), `got ${survivors.join(', ')}`);
  });

  if (host === 'on the scan worker') {
    it('answers correctly when the worker is lost: the graph is built again here', async () => {
      put(0, 3000);
      await built(segment);
      assert.ok((await overlap(null)) >= 0.95);
      await scanner!.close();
      // The first search finds the worker gone: it is answered by an exact scan (int8, so near-ties
      // of the float answer may differ), and the graph starts here.
      assert.ok((await overlap(null)) >= 0.95);
      assert.ok(segment.hasGraph && segment.graphPending > 0, 'a graph is being built here');
      await built(segment);
      assert.ok((await overlap(null)) >= 0.95);
      assert.ok((await overlap((o) => o.tag === 'odd', ['odd'])) >= 0.9);
    });
  }
});
