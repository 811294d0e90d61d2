import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FlatVectorIndex } from '../../core/adapters/flat-index/flat.vector-index.js';
import { VectorScanner } from '../../core/adapters/flat-index/scan/vector-scanner.js';
import { type IndexedDocument, type Owner, Segment, quantize } from '../../core/adapters/flat-index/segment.js';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { PgVectorIndex } from '../../core/adapters/pgvector.vector-index.js';
import { type ChunkFilter, documentFilterLabels, documentLabels, documentMatcher } from '../../core/search/chunk-filter.js';
import { Bm25Query, occurrences } from '../../core/search/bm25.js';
import { seededRandom } from '../../core/shared/seeded-random.js';
import { SyntheticCorpus } from '../../bench/corpus.js';
import { type TestApp, client, createTenant, ingest, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { wordForms } from '../support/keywords.js';

const silent = pino({ level: 'silent' });
const DIMENSIONS = 256;

function randomUnitVector(random: () => number, d: number): Float32Array {
  const v = Float32Array.from({ length: d }, () => random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('flat vector index: one segment', () => {
  it('quantizes each vector to int8 on its own scale', () => {
    assert.deepEqual([...quantize(Float32Array.from([0.5, -0.2, 0, 0.125]))], [127, -51, 0, 32]);
    assert.deepEqual([...quantize(new Float32Array(3))], [0, 0, 0]);
  });

  it('finds the exact nearest live rows, before and after compacting removed ones', async () => {
    const random = seededRandom(7);
    const segment = new Segment<Owner>(DIMENSIONS, 't', null);
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 3000; i++) {
      const v = randomUnitVector(random, DIMENSIONS);
      vectors.set(`c${i}`, v);
      segment.put({ key: `o${i}`, rows: [] }, [{ id: `c${i}`, vector: v }]);
    }
    const exact = (q: Float32Array, live: (i: number) => boolean, k: number) =>
      [...vectors.entries()]
        .filter(([id]) => live(Number(id.slice(1))))
        .map(([id, v]) => ({ id, s: dot(q, v) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, k)
        .map((x) => x.id);
    const check = async (live: (i: number) => boolean) => {
      let overlap = 0;
      for (let n = 0; n < 20; n++) {
        const q = randomUnitVector(random, DIMENSIONS);
        const got = (await segment.nearest(quantize(q), 10, null)).map((h) => h.chunkId);
        assert.equal(got.length, 10);
        assert.ok(got.every((id) => live(Number(id.slice(1)))), 'a removed row was returned');
        const want = exact(q, live, 10);
        overlap += got.filter((id) => want.includes(id)).length / 10;
      }
      // int8 rounding only swaps near-ties; a wrong row layout would give ~0.
      assert.ok(overlap / 20 >= 0.9, `overlap with the exact answer: ${overlap / 20}`);
    };
    await check(() => true);
    for (let i = 0; i < 2000; i++) segment.remove(`o${i}`);
    assert.equal(segment.live, 1000);
    assert.ok(segment.rows < 3000, 'removing most rows compacts the segment');
    await check((i) => i >= 2000);
    // Filtered to a few owners: gathered and scanned; the filter never shortens the answer.
    const few = new Set(['o2001', 'o2500', 'o2999']);
    const filtered = await segment.nearest(quantize(randomUnitVector(random, DIMENSIONS)), 10, (o) => few.has(o.key));
    assert.deepEqual(filtered.map((h) => h.chunkId).sort(), ['c2001', 'c2500', 'c2999']);
  });

  it('keeps its rows\' lexemes through removals and compaction, and ranks only live, accepted rows', () => {
    const segment = new Segment<Owner>(8, 't', null, undefined, undefined, true);
    // Every row holds two lexemes (the same length), so a word's weight grows with its occurrences alone.
    const terms = (i: number) => new Map([[`w${i % 7}`, occurrences(0, 1 + (i % 3))], ['common', occurrences(0, 1)]]);
    for (let i = 0; i < 3000; i++) segment.put({ key: `o${i}`, rows: [] }, [{ id: `c${String(i).padStart(4, '0')}`, vector: new Float32Array(8).fill(1), terms: terms(i) }]);
    const ranking = (lexemes: string[]) =>
      new Bm25Query(wordForms(lexemes.map((l) => [l])), { chunks: 1000, chunksByAnalysis: new Map(), lexemes: 2000, holding: new Map([...lexemes.map((l): [string, number] => [l, 100]), ['fresh', 1]]) });
    // Occurrences order (3 > 2 > 1), then chunk ids.
    const expected = (live: (i: number) => boolean, lexeme: string, k: number) =>
      Array.from({ length: 3000 }, (_, i) => i)
        .filter((i) => live(i) && terms(i).has(lexeme))
        .sort((a, b) => terms(b).get(lexeme)! - terms(a).get(lexeme)! || a - b)
        .slice(0, k)
        .map((i) => `c${String(i).padStart(4, '0')}`);
    const ids = (lexemes: string[], k: number, accept: ((o: Owner) => boolean) | null = null) =>
      segment.keywordHits(ranking(lexemes), k, accept).map((h) => h.chunkId);
    assert.deepEqual(ids(['w3'], 30), expected(() => true, 'w3', 30));
    for (let i = 0; i < 2000; i++) segment.remove(`o${i}`);
    assert.ok(segment.rows < 3000, 'removing most rows compacts the segment');
    assert.deepEqual(ids(['w3'], 30), expected((i) => i >= 2000, 'w3', 30));
    assert.deepEqual(ids(['w5', 'nowhere'], 500), expected((i) => i >= 2000, 'w5', 500));
    const two = (o: Owner) => o.key === 'o2007' || o.key === 'o2014';
    assert.deepEqual(ids(['w5'], 10, two), ['c2014', 'c2007'], 'only accepted rows; o2014 holds w5 twice, o2007 once');
    segment.put({ key: 'o2014', rows: [] }, [{ id: 'c9999', vector: new Float32Array(8).fill(1), terms: new Map([['fresh', occurrences(0, 1)], ['x', occurrences(0, 1)]]) }]);
    assert.deepEqual(ids(['w5'], 10, two), ['c2007'], 'a replaced owner\'s old rows are gone');
    const fresh = segment.keywordHits(new Bm25Query(wordForms([['fresh'], ['w5']]), { chunks: 1000, chunksByAnalysis: new Map(), lexemes: 2000, holding: new Map([['fresh', 100], ['w5', 100]]) }), 10, two);
    assert.deepEqual(fresh.map((h) => h.chunkId), ['c2007', 'c9999'], 'equal ranks by chunk id');
    assert.equal(fresh[0]!.rank, fresh[1]!.rank);
    const plain = new Segment<Owner>(8, 't', null);
    plain.put({ key: 'o', rows: [] }, [{ id: 'c', vector: new Float32Array(8).fill(1), terms: terms(0) }]);
    assert.deepEqual(plain.keywordHits(ranking(['common']), 10, null), [], 'a segment that keeps no keywords finds none');
  });

  it('tests only the owners under the rarest of a filter\'s labels, and keeps labels current as owners change', async () => {
    const random = seededRandom(13);
    const segment = new Segment<IndexedDocument>(DIMENSIONS, 't', null, undefined, documentLabels);
    const put = (i: number, tags: Record<string, string>) =>
      segment.put({ key: `o${i}`, rows: [], subTenantId: null, tags, createdAt: new Date(0), title: `t${i}`, version: "1" }, [
        { id: `c${i}`, vector: randomUnitVector(random, DIMENSIONS) },
      ]);
    for (let i = 0; i < 200; i++) put(i, { team: i % 2 ? 'a' : 'b', year: String(2000 + (i % 10)) });
    const search = async (tags: Record<string, string>) => {
      const filter: ChunkFilter = { scope: { tenantId: 't', subTenantId: null }, knowledgeBaseIds: [], tags };
      let tested = 0;
      const matcher = documentMatcher(filter)!;
      const accept = (doc: IndexedDocument) => (tested++, matcher(doc));
      const hits = await segment.nearest(quantize(randomUnitVector(random, DIMENSIONS)), 500, accept, documentFilterLabels(filter));
      return { ids: hits.map((h) => Number(h.chunkId.slice(1))).sort((x, y) => x - y), tested };
    };
    const both = await search({ team: 'a', year: '2003' });
    assert.deepEqual(both.ids, Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 2 === 1 && i % 10 === 3));
    assert.equal(both.tested, 20, 'only the owners of the rarer label (year 2003) are tested');
    put(3, { team: 'b', year: '2003' });
    segment.remove('o13');
    const after = await search({ team: 'a', year: '2003' });
    assert.ok(!after.ids.includes(3) && !after.ids.includes(13), 'a re-labelled or removed owner is no longer found');
    assert.deepEqual((await search({ team: 'b', year: '2003' })).ids, [3]);
    assert.deepEqual((await search({ team: 'c' })).ids, [], 'a label nobody carries finds nothing');
  });

  it('drops a mirror that failed to take rows, so its scans fail over to the calling thread instead of answering from stale rows', async () => {
    const scanner = new VectorScanner(1, 0);
    try {
      const random = seededRandom(17);
      const rows = new Int8Array(10 * DIMENSIONS);
      for (let r = 0; r < 10; r++) quantize(randomUnitVector(random, DIMENSIONS), rows, r * DIMENSIONS);
      const segment = scanner.segmentId();
      scanner.replace(segment, DIMENSIONS, rows);
      const query = rows.slice(3 * DIMENSIONS, 4 * DIMENSIONS);
      assert.equal(Number((await scanner.scan(segment, rows.length, query, 1)).keys[0]), 3, 'the mirror answers');
      // Rows 20.. with 10..19 missing: the worker cannot take them.
      scanner.append(segment, 20 * DIMENSIONS, rows);
      await assert.rejects(scanner.scan(segment, 30 * DIMENSIONS, query, 1), /not mirrored/);
    } finally {
      await scanner.close();
    }
  });

  it('scans large segments on a worker thread; a scan in flight while rows are removed and compacted returns only live rows', async () => {
    const scanner = new VectorScanner(1, 64 * 1024);
    try {
      const random = seededRandom(11);
      const segment = new Segment<Owner>(DIMENSIONS, 't', null, scanner);
      const here = new Segment<Owner>(DIMENSIONS, 't', null);
      const query = randomUnitVector(random, DIMENSIONS);
      for (let i = 0; i < 2500; i++) {
        // Rows near the query first, so that the removed ones would be the answer.
        const v = i < 1500 ? query.map((x) => x + (random() - 0.5) * 0.01) : randomUnitVector(random, DIMENSIONS);
        for (const s of [segment, here]) s.put({ key: `o${i}`, rows: [] }, [{ id: `c${i}`, vector: v }]);
      }
      let worked = 0;
      const scan = scanner.scan.bind(scanner);
      scanner.scan = (...args) => {
        worked += 1;
        return scan(...args);
      };
      const ids = async (s: Segment<Owner>) => (await s.nearest(quantize(query), 10, null)).map((h) => h.chunkId);
      assert.deepEqual(await ids(segment), await ids(here), 'the worker and this thread agree');
      assert.equal(worked, 1, 'the scan ran on the worker');
      const inFlight = segment.nearest(quantize(query), 10, null);
      for (let i = 0; i < 1500; i++) segment.remove(`o${i}`);
      assert.ok(segment.rows < 2500, 'the removals compacted the segment while the scan ran');
      const hits = await inFlight;
      assert.ok(hits.every((h) => Number(h.chunkId.slice(1)) >= 1500), `a removed row came back: ${hits.map((h) => h.chunkId).join()}`);
      for (let i = 0; i < 1500; i++) here.remove(`o${i}`);
      assert.deepEqual(await ids(segment), await ids(here), 'the compacted mirror matches');
      for (let i = 2500; i < 2600; i++) {
        const v = randomUnitVector(random, DIMENSIONS);
        for (const s of [segment, here]) s.put({ key: `o${i}`, rows: [] }, [{ id: `c${i}`, vector: v }]);
        assert.deepEqual(await ids(segment), await ids(here), 'rows added after compaction reach the mirror');
      }
      await scanner.close();
      assert.deepEqual(await ids(segment), await ids(here), 'without the worker, scans run on this thread');
    } finally {
      await scanner.close();
    }
  });
});

for (const database of testDatabases()) {
  describe(`flat vector index [${database.name}]`, () => {
    let app: TestApp;
    let index: FlatVectorIndex;
    let exact: PgVectorIndex;
    const embedder = new LexicalEmbedder();
    const corpus = new SyntheticCorpus({ seed: 3, topics: 12, terms: 300 });

    before(async function () {
      this.timeout(120_000);
      app = await startTestApp(await database.get());
      const tenant = await createTenant(app, 'enterprise');
      const kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'flat', dimensions: DIMENSIONS })).body.id as string;
      for (let i = 0; i < 40; i++) {
        const doc = corpus.document(i);
        await ingest(app, tenant.key, { knowledge_base_id: kb, title: doc.title, content: doc.content });
      }
      // A second index over the same database, loaded from the tables as at start-up.
      exact = new PgVectorIndex(await database.get(), { graphs: false });
      index = new FlatVectorIndex(await database.get(), embedder.id, exact, silent, { threads: 1, workerMinBytes: 0 });
      await index.start();
      await index.loaded;
    });

    after(async () => {
      await index.close();
      await app.close();
    });

    // Searches, filters, isolation, notifications and corpus records: the VectorIndex contract
    // (test/db/vector-index-contract.test.ts) runs them against this index and the others.

    it('serves searches from the database until it has loaded', async () => {
      const fresh = new FlatVectorIndex(await database.get(), embedder.id, exact, silent);
      // Not started: nothing in memory, so every answer comes from the exact database scan.
      const other = await createTenant(app, 'standard');
      const otherKb = (await client(app.url, other.key)('POST', '/v1/knowledge-bases', { name: 'x', dimensions: DIMENSIONS })).body.id;
      const { jobId } = await ingest(app, other.key, { knowledge_base_id: otherKb, title: 'Okapi', content: 'Okapi forest giraffe.' });
      await waitForJob(app, other.key, jobId);
      const hits = await fresh.search({
        filter: { scope: { tenantId: other.id, subTenantId: null }, knowledgeBaseIds: [otherKb], tags: {}, embedder: embedder.id },
        dimensions: DIMENSIONS,
        vector: embedder.embedText('okapi', DIMENSIONS),
        limit: 5,
      });
      assert.equal(hits.length, 1);
      assert.deepEqual(await fresh.status(), { tenant: 'missing', corpus: 'missing' });
    });

    it('lets the event loop turn while it loads (timers and requests do not wait for the whole load)', async () => {
      const fresh = new FlatVectorIndex(await database.get(), embedder.id, exact, silent, { loadPageSize: 5 });
      let loaded = false;
      let timerFiredWhileLoading = false;
      await fresh.start();
      void fresh.loaded.then(() => (loaded = true));
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          timerFiredWhileLoading = !loaded;
          resolve();
        }, 0),
      );
      await fresh.loaded;
      await fresh.close();
      assert.ok(timerFiredWhileLoading, 'a timer had to wait for the end of the load');
    });
  });
}
