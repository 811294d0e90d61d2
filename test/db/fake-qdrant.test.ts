import assert from 'node:assert/strict';
import { QdrantClient } from '@qdrant/js-client-rest';
import { seededRandom } from '../../core/shared/seeded-random.js';
import { type FakeQdrant, startFakeQdrant } from '../support/fake-qdrant.server.js';

/**
 * The fake Qdrant (test/support/fake-qdrant.server.ts), driven only through the official client,
 * so what passes here is what the client sends and understands.
 */

type Filter = Parameters<QdrantClient['search']>[1]['filter'];

const close = (a: number, b: number) => Math.abs(a - b) < 1e-6;

/** Rejects with the client's error carrying this HTTP status (and, when given, this text in Qdrant's error). */
async function rejectsWith(promise: Promise<unknown>, status: number, text?: string | RegExp): Promise<void> {
  await assert.rejects(promise, (err: any) => {
    assert.equal(err.status, status, `status of ${String(err)}`);
    if (text !== undefined) {
      const message = typeof err.data === 'string' ? err.data : err.data?.status?.error;
      assert.match(String(message), typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text);
    }
    return true;
  });
}

/** Replaces console.warn while `run` runs (the client warns about an API key over http and failed version checks). */
async function capturingWarnings(run: (warnings: string[]) => Promise<void>): Promise<void> {
  const warnings: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  try {
    await run(warnings);
  } finally {
    console.warn = original;
  }
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), `timed out waiting for ${what}`);
}

/** Six points around the x axis, with the payload shapes filters meet (nested objects, arrays, null, missing keys). */
const POINTS = [
  { id: 1, vector: [1, 0, 0, 0], payload: { lang: 'en', kb: 'a', year: 2020, tags: { department: 'sales' }, labels: ['x', 'y'] } },
  { id: 2, vector: [0.9, 0.1, 0, 0], payload: { lang: 'en', kb: 'b', year: 2021, tags: { department: 'eng' }, labels: ['y'] } },
  { id: 3, vector: [0.5, 0.5, 0, 0], payload: { lang: 'de', kb: 'a', year: 2022, tags: { department: 'sales' }, labels: [] } },
  { id: 4, vector: [0, 1, 0, 0], payload: { lang: 'fr', kb: 'c', year: 2023 } },
  { id: 5, vector: [-1, 0, 0, 0], payload: { lang: 'en', kb: 'a', year: 2019, tags: { department: 'eng' }, labels: ['z'], note: null } },
  // Same direction as point 1: the same cosine score, so the tie is broken by id.
  { id: 6, vector: [2, 0, 0, 0], payload: { lang: 'de', kb: 'b', year: 2024 } },
];
const QUERY = [1, 0, 0, 0];

describe('fake Qdrant (through @qdrant/js-client-rest)', () => {
  let fake: FakeQdrant;
  let client: QdrantClient;
  let n = 0;
  const fresh = () => `c${++n}`;

  before(async () => {
    fake = await startFakeQdrant();
    client = new QdrantClient({ url: fake.url, checkCompatibility: false });
  });
  after(async () => {
    await fake.close();
  });

  async function seeded(): Promise<string> {
    const name = fresh();
    await client.createCollection(name, { vectors: { size: 4, distance: 'Cosine' } });
    await client.upsert(name, { wait: true, points: POINTS });
    return name;
  }

  const ids = (hits: Array<{ id: number | string }>) => hits.map((h) => h.id);
  const searchIds = async (name: string, filter: Filter, limit = 10) => ids(await client.search(name, { vector: QUERY, filter, limit }));

  describe('collections', () => {
    it('creates, lists, describes, checks and deletes a collection', async () => {
      const name = fresh();
      assert.deepEqual(await client.collectionExists(name), { exists: false });
      assert.equal(
        await client.createCollection(name, {
          vectors: { size: 4, distance: 'Cosine', on_disk: true },
          hnsw_config: { m: 32, ef_construct: 200 },
          quantization_config: { scalar: { type: 'int8', always_ram: true } },
          optimizers_config: { indexing_threshold: 20000 },
          on_disk_payload: true,
        }),
        true,
      );
      assert.deepEqual(await client.collectionExists(name), { exists: true });
      assert.ok((await client.getCollections()).collections.some((c) => c.name === name));
      assert.ok(fake.collections().includes(name));

      await client.upsert(name, { points: [{ id: 1, vector: [1, 2, 3, 4], payload: { kb: 'a' } }] });
      const info = await client.getCollection(name);
      assert.equal(info.status, 'green');
      assert.equal(info.points_count, 1);
      assert.deepEqual(info.config.params.vectors, { size: 4, distance: 'Cosine', on_disk: true });
      assert.equal(info.config.hnsw_config.m, 32);
      assert.equal(info.config.hnsw_config.ef_construct, 200);
      assert.deepEqual(info.config.quantization_config, { scalar: { type: 'int8', always_ram: true } });
      assert.equal(info.config.optimizer_config.indexing_threshold, 20000);
      assert.deepEqual(info.payload_schema, {});

      assert.equal(await client.deleteCollection(name), true);
      assert.deepEqual(await client.collectionExists(name), { exists: false });
      assert.ok(!fake.collections().includes(name));
      // Qdrant answers 200 with `false` for a collection that is not there.
      assert.equal(await client.deleteCollection(name), false);
    });

    it('answers 409 for a collection that exists, and 400 for an unknown distance', async () => {
      const name = fresh();
      await client.createCollection(name, { vectors: { size: 3, distance: 'Dot' } });
      await rejectsWith(client.createCollection(name, { vectors: { size: 3, distance: 'Dot' } }), 409, `Collection \`${name}\` already exists!`);
      await rejectsWith(client.createCollection(fresh(), { vectors: { size: 3, distance: 'Hamming' as 'Dot' } }), 400, 'unknown variant `Hamming`');
    });

    it('answers 404 for a collection that does not exist, on every endpoint', async () => {
      const missing = "doesn't exist!";
      await rejectsWith(client.getCollection('nope'), 404, missing);
      await rejectsWith(client.search('nope', { vector: QUERY, limit: 1 }), 404, missing);
      await rejectsWith(client.upsert('nope', { points: [{ id: 1, vector: QUERY }] }), 404, missing);
      await rejectsWith(client.scroll('nope'), 404, missing);
      await rejectsWith(client.count('nope'), 404, missing);
      await rejectsWith(client.createPayloadIndex('nope', { field_name: 'kb', field_schema: 'keyword' }), 404, missing);
      assert.throws(() => fake.points('nope'));
    });

    it('records payload indexes in payload_schema', async () => {
      const name = await seeded();
      assert.deepEqual(await client.createPayloadIndex(name, { field_name: 'kb', field_schema: 'keyword', wait: true }), {
        operation_id: 1,
        status: 'completed',
      });
      await client.createPayloadIndex(name, { field_name: 'year', field_schema: 'integer', wait: true });
      await client.createPayloadIndex(name, { field_name: 'lang', field_schema: { type: 'keyword', is_tenant: true }, wait: true });
      await client.createPayloadIndex(name, { field_name: 'tags.department', field_schema: 'keyword', wait: true });
      const { payload_schema: schema } = await client.getCollection(name);
      assert.deepEqual(schema.kb, { data_type: 'keyword', points: 6 });
      assert.deepEqual(schema.year, { data_type: 'integer', points: 6 });
      assert.deepEqual(schema.lang, { data_type: 'keyword', params: { type: 'keyword', is_tenant: true }, points: 6 });
      assert.deepEqual(schema['tags.department'], { data_type: 'keyword', points: 4 });
      await rejectsWith(client.createPayloadIndex(name, { field_name: 'x', field_schema: 'vector' as 'keyword' }), 400);
      await client.deletePayloadIndex(name, 'year');
      assert.equal((await client.getCollection(name)).payload_schema.year, undefined);
    });
  });

  describe('points', () => {
    it('upserts, replaces a point with the same id, and keeps UUID ids canonical', async () => {
      const name = fresh();
      await client.createCollection(name, { vectors: { size: 4, distance: 'Cosine' } });
      const result = await client.upsert(name, { wait: true, points: POINTS });
      assert.equal(result.status, 'completed');
      assert.equal(fake.points(name), 6);

      await client.upsert(name, { wait: true, points: [{ id: 1, vector: [0, 0, 0, 1], payload: { lang: 'it' } }] });
      assert.equal(fake.points(name), 6);
      const [one] = await client.retrieve(name, { ids: [1], with_payload: true, with_vector: true });
      assert.deepEqual(one?.payload, { lang: 'it' });
      assert.deepEqual(one?.vector, [0, 0, 0, 1]);
      assert.deepEqual(ids(await client.search(name, { vector: [0, 0, 0, 1], limit: 1 })), [1]);

      await client.upsert(name, {
        wait: true,
        points: [
          { id: '6F1C0A56-0D4B-4C1E-9B57-0B8E5D2C3A10', vector: [0, 0, 1, 0] },
          { id: '0a1b2c3d4e5f60718293a4b5c6d7e8f9', vector: [0, 0, 1, 1], payload: { kb: 'u' } },
        ],
      });
      const uuids = (await client.scroll(name, { limit: 100 })).points.slice(6);
      assert.deepEqual(ids(uuids), ['0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9', '6f1c0a56-0d4b-4c1e-9b57-0b8e5d2c3a10']);
      assert.deepEqual(uuids[1]?.payload, {});
      await rejectsWith(client.upsert(name, { points: [{ id: 'not-a-uuid', vector: QUERY }] }), 400);
      await rejectsWith(client.upsert(name, { points: [{ id: -1, vector: QUERY }] }), 400);
    });

    it('rejects a vector of the wrong size with 400, applying nothing of the request', async () => {
      const name = await seeded();
      await rejectsWith(
        client.upsert(name, { points: [{ id: 100, vector: QUERY }, { id: 101, vector: [1, 0, 0] }] }),
        400,
        'Vector dimension error: expected dim: 4, got 3',
      );
      assert.equal(fake.points(name), 6);
      await rejectsWith(client.search(name, { vector: [1, 0], limit: 3 }), 400, 'Vector dimension error: expected dim: 4, got 2');
    });

    it('deletes points by id and by filter', async () => {
      const name = await seeded();
      const deleted = await client.delete(name, { wait: true, points: [1, 2, 999] });
      assert.equal(deleted.status, 'completed');
      assert.deepEqual(ids((await client.scroll(name)).points), [3, 4, 5, 6]);
      await client.delete(name, { wait: true, filter: { must: [{ key: 'lang', match: { value: 'de' } }] } });
      assert.deepEqual(ids((await client.scroll(name)).points), [4, 5]);
      assert.equal(fake.points(name), 2);
    });

    it('scrolls in id order, page by page, with and without a filter', async () => {
      const name = fresh();
      await client.createCollection(name, { vectors: { size: 2, distance: 'Dot' } });
      const uuid = 'ffffffff-0000-4000-8000-000000000000';
      const points = [...Array.from({ length: 25 }, (_, i) => ({ id: 25 - i, vector: [1, i], payload: { even: (25 - i) % 2 === 0 } })), { id: uuid, vector: [0, 1], payload: { even: true } }];
      await client.upsert(name, { wait: true, points });

      const seen: Array<number | string> = [];
      let offset: number | string | null | undefined = undefined;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<QdrantClient['scroll']>> = await client.scroll(name, { limit: 10, offset: offset ?? undefined, with_payload: false });
        assert.ok(page.points.every((p) => p.payload === undefined && p.vector === undefined));
        seen.push(...ids(page.points));
        offset = page.next_page_offset as number | string | null | undefined;
        pages++;
      } while (offset !== null && offset !== undefined);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [...Array.from({ length: 25 }, (_, i) => i + 1), uuid]);

      const first = await client.scroll(name, { limit: 5, filter: { must: [{ key: 'even', match: { value: true } }] }, with_vector: true });
      assert.deepEqual(ids(first.points), [2, 4, 6, 8, 10]);
      assert.equal(first.next_page_offset, 12);
      assert.deepEqual(first.points[0]?.vector, [1, 23]);
      const last = await client.scroll(name, { limit: 10, offset: 20, filter: { must: [{ key: 'even', match: { value: true } }] } });
      assert.deepEqual(ids(last.points), [20, 22, 24, uuid]);
      assert.equal(last.next_page_offset, null);
    });

    it('counts points, with and without a filter', async () => {
      const name = await seeded();
      assert.deepEqual(await client.count(name), { count: 6 });
      assert.deepEqual(await client.count(name, { filter: { must: [{ key: 'lang', match: { value: 'en' } }] } }), { count: 3 });
      assert.deepEqual(await client.count(name, { filter: { must: [{ key: 'year', range: { gte: 2022 } }] }, exact: false }), { count: 3 });
    });
  });

  describe('search', () => {
    it('orders by cosine similarity (vectors normalised, ties by id), with Qdrant’s hit shape', async () => {
      const name = await seeded();
      const hits = await client.search(name, { vector: [3, 0, 0, 0], limit: 10 });
      assert.deepEqual(ids(hits), [1, 6, 2, 3, 4, 5]);
      const expected = [1, 1, 0.9 / Math.hypot(0.9, 0.1), Math.SQRT1_2, 0, -1];
      hits.forEach((hit, i) => assert.ok(close(hit.score, expected[i]!), `score of ${hit.id}: ${hit.score}`));
      assert.equal(hits[0]?.version, 0);
      // The client asks for payloads by default; the vector is the stored, normalised one.
      assert.deepEqual(hits[0]?.payload, POINTS[0]?.payload);
      assert.equal(hits[0]?.vector, undefined);
      const [six] = await client.search(name, { vector: QUERY, limit: 1, offset: 1, with_payload: false, with_vector: true });
      assert.equal(six?.id, 6);
      assert.equal(six?.payload, undefined);
      assert.deepEqual(six?.vector, [1, 0, 0, 0]);
      assert.deepEqual(ids(await client.search(name, { vector: QUERY, limit: 10, score_threshold: 0.5 })), [1, 6, 2, 3]);
      assert.deepEqual(ids(await client.search(name, { vector: QUERY, limit: 2, params: { hnsw_ef: 128, exact: false } })), [1, 6]);
    });

    it('answers with_payload as a list of keys or an include/exclude selector', async () => {
      const name = await seeded();
      const [a] = await client.search(name, { vector: QUERY, limit: 1, with_payload: ['kb', 'tags.department'] });
      assert.deepEqual(a?.payload, { kb: 'a', tags: { department: 'sales' } });
      const [b] = await client.search(name, { vector: QUERY, limit: 1, with_payload: { exclude: ['labels', 'tags', 'year'] } });
      assert.deepEqual(b?.payload, { lang: 'en', kb: 'a' });
    });

    it('filters with must, should and must_not', async () => {
      const name = await seeded();
      assert.deepEqual(await searchIds(name, { must: [{ key: 'lang', match: { value: 'en' } }] }), [1, 2, 5]);
      assert.deepEqual(await searchIds(name, { should: [{ key: 'kb', match: { value: 'a' } }, { key: 'kb', match: { value: 'c' } }] }), [1, 3, 4, 5]);
      assert.deepEqual(await searchIds(name, { must_not: [{ key: 'lang', match: { value: 'de' } }] }), [1, 2, 4, 5]);
      assert.deepEqual(
        await searchIds(name, {
          must: [{ key: 'kb', match: { any: ['a', 'b'] } }],
          should: [{ key: 'year', range: { lte: 2020 } }, { key: 'lang', match: { value: 'de' } }],
          must_not: [{ has_id: [5] }],
        }),
        [1, 6, 3],
      );
      // An empty should list is no constraint; a single condition instead of a list is accepted.
      assert.deepEqual(await searchIds(name, { should: [], must: { key: 'kb', match: { value: 'c' } } }), [4]);
      assert.deepEqual(
        await searchIds(name, { min_should: { conditions: [{ key: 'kb', match: { value: 'a' } }, { key: 'lang', match: { value: 'en' } }, { key: 'year', range: { gt: 2019 } }], min_count: 3 } }),
        [1],
      );
    });

    it('filters with match value, any and except', async () => {
      const name = await seeded();
      assert.deepEqual(await searchIds(name, { must: [{ key: 'year', match: { value: 2021 } }] }), [2]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'kb', match: { any: ['b', 'c'] } }] }), [6, 2, 4]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'year', match: { any: [2019, 2023] } }] }), [4, 5]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'kb', match: { except: ['a'] } }] }), [6, 2, 4]);
      // A condition on a missing key does not match, even `except`.
      assert.deepEqual(await searchIds(name, { must: [{ key: 'tags.department', match: { except: ['sales'] } }] }), [2, 5]);
      // Types must agree: the string "2021" is not the integer 2021.
      assert.deepEqual(await searchIds(name, { must: [{ key: 'year', match: { value: '2021' } }] }), []);
    });

    it('filters with ranges', async () => {
      const name = await seeded();
      assert.deepEqual(await searchIds(name, { must: [{ key: 'year', range: { gte: 2021, lt: 2024 } }] }), [2, 3, 4]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'year', range: { gt: 2020 } }] }), [6, 2, 3, 4]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'lang', range: { gt: 0 } }] }), []);
    });

    it('filters with has_id, is_empty, is_null and a nested filter as a condition', async () => {
      const name = await seeded();
      assert.deepEqual(await searchIds(name, { must: [{ has_id: [5, 3] }] }), [3, 5]);
      // Missing, null and [] are empty; only an explicit null is null.
      assert.deepEqual(await searchIds(name, { must: [{ is_empty: { key: 'labels' } }] }), [6, 3, 4]);
      assert.deepEqual(await searchIds(name, { must: [{ is_null: { key: 'note' } }] }), [5]);
      assert.deepEqual(
        await searchIds(name, { must: [{ should: [{ key: 'lang', match: { value: 'fr' } }, { key: 'year', range: { lt: 2020 } }] }] }),
        [4, 5],
      );
    });

    it('reads dot-path keys into nested objects, and matches any element of an array value', async () => {
      const name = await seeded();
      assert.deepEqual(await searchIds(name, { must: [{ key: 'tags.department', match: { value: 'sales' } }] }), [1, 3]);
      assert.deepEqual(await searchIds(name, { must_not: [{ key: 'tags.department', match: { value: 'sales' } }] }), [6, 2, 4, 5]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'labels', match: { value: 'y' } }] }), [1, 2]);
      assert.deepEqual(await searchIds(name, { must: [{ key: 'labels', match: { any: ['z', 'x'] } }] }), [1, 5]);
      await rejectsWith(client.search(name, { vector: QUERY, limit: 1, filter: { must: [{ key: 'tags.', match: { value: 'x' } }] } }), 400, 'Invalid json path');
      await rejectsWith(client.search(name, { vector: QUERY, limit: 1, filter: { must: [{ key: 'lang' }] } }), 422, 'At least one field condition');
    });

    it('returns `limit` hits for a selective filter: exact search over the points that pass it', async () => {
      const name = fresh();
      const dims = 16;
      const random = seededRandom(11);
      const points = Array.from({ length: 300 }, (_, i) => ({
        id: i + 1,
        vector: Array.from({ length: dims }, () => random() - 0.5),
        payload: { kb: i % 25 === 0 ? 'rare' : 'common' },
      }));
      await client.createCollection(name, { vectors: { size: dims, distance: 'Cosine' } });
      await client.upsert(name, { wait: true, points });
      const query = Array.from({ length: dims }, () => random() - 0.5);
      const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
      const cos = (a: number[], b: number[]) => unit(a).reduce((s, x, i) => s + x * unit(b)[i]!, 0);
      const rare = points.filter((p) => p.payload.kb === 'rare');
      const want = rare.map((p) => ({ id: p.id, s: cos(query, p.vector) })).sort((a, b) => b.s - a.s).map((x) => x.id);

      const filter = { must: [{ key: 'kb', match: { value: 'rare' } }] };
      const hits = await client.search(name, { vector: query, filter, limit: 10 });
      assert.equal(hits.length, 10);
      assert.deepEqual(ids(hits), want.slice(0, 10));
      assert.equal((await client.search(name, { vector: query, filter, limit: 50 })).length, rare.length);
    });

    it('answers /points/query like /points/search, as {points}', async () => {
      const name = await seeded();
      const filter = { must_not: [{ key: 'lang', match: { value: 'de' } }] };
      const { points } = await client.query(name, { query: QUERY, filter, limit: 3, with_payload: true });
      const searched = await client.search(name, { vector: QUERY, filter, limit: 3 });
      assert.deepEqual(points, searched);
      assert.deepEqual(ids((await client.query(name, { query: { nearest: QUERY }, limit: 2 })).points), [1, 6]);
      // Without payload unless asked; a point id as the query searches by its vector, leaving it out.
      assert.equal((await client.query(name, { query: QUERY, limit: 1 })).points[0]?.payload, undefined);
      assert.deepEqual(ids((await client.query(name, { query: 6, limit: 2 })).points), [1, 2]);
    });

    it('scores Dot and Euclid as Qdrant does', async () => {
      const dot = fresh();
      await client.createCollection(dot, { vectors: { size: 2, distance: 'Dot' } });
      await client.upsert(dot, { wait: true, points: [{ id: 1, vector: [1, 0] }, { id: 2, vector: [3, 0] }, { id: 3, vector: [0, 5] }] });
      const dotHits = await client.search(dot, { vector: [2, 1], limit: 3 });
      assert.deepEqual(dotHits.map((h) => [h.id, h.score]), [[2, 6], [3, 5], [1, 2]]);

      const euclid = fresh();
      await client.createCollection(euclid, { vectors: { size: 2, distance: 'Euclid' } });
      await client.upsert(euclid, { wait: true, points: [{ id: 1, vector: [0, 0] }, { id: 2, vector: [3, 4] }, { id: 3, vector: [1, 1] }] });
      const euclidHits = await client.search(euclid, { vector: [0, 0], limit: 3, score_threshold: 5 });
      // The distance, smallest first; the threshold keeps distances below it.
      assert.deepEqual(euclidHits.map((h) => h.id), [1, 3]);
      assert.ok(close(euclidHits[1]!.score, Math.SQRT2));
    });
  });

  describe('the wire', () => {
    it('records requests: upsert sends ?wait=true by default; delete sends no wait and is acknowledged', async () => {
      const name = await seeded();
      const from = fake.requests.length;
      const deleted = await client.delete(name, { points: [1] });
      assert.equal(deleted.status, 'acknowledged');
      await client.upsert(name, { points: [{ id: 1, vector: QUERY }] });
      await client.search(name, { vector: QUERY, limit: 1 });
      await client.query(name, { query: QUERY, limit: 1 });
      assert.deepEqual(fake.requests.slice(from), [
        { method: 'POST', path: `/collections/${name}/points/delete` },
        { method: 'PUT', path: `/collections/${name}/points?wait=true` },
        { method: 'POST', path: `/collections/${name}/points/search` },
        { method: 'POST', path: `/collections/${name}/points/query` },
      ]);
    });

    it('failNext answers the next requests with an error status, without applying them', async () => {
      const name = await seeded();
      fake.failNext(2);
      await rejectsWith(client.upsert(name, { points: [{ id: 50, vector: QUERY }] }), 503);
      await rejectsWith(client.count(name), 503);
      assert.deepEqual(await client.count(name), { count: 6 });
      fake.failNext(1, 500);
      await rejectsWith(client.getCollections(), 500);
      assert.ok((await client.getCollections()).collections.length > 0);
    });

    it('the default compatibility check reads GET / and finds the server compatible', async () => {
      await capturingWarnings(async (warnings) => {
        const from = fake.requests.length;
        const checked = new QdrantClient({ url: fake.url });
        await until(() => fake.requests.slice(from).some((r) => r.method === 'GET' && r.path === '/'), 'the version check');
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(warnings, []);
        assert.deepEqual(await checked.versionInfo(), { title: 'qdrant - vector search engine', version: '1.17.0' });

        // The same check against a server that is gone does warn: the capture works.
        const gone = await startFakeQdrant();
        await gone.close();
        new QdrantClient({ url: gone.url });
        await until(() => warnings.length > 0, 'the failed version check warning');
        assert.match(warnings[0]!, /Failed to obtain server version/);
      });
    });
  });

  describe('api key', () => {
    let secured: FakeQdrant;
    before(async () => {
      secured = await startFakeQdrant({ apiKey: 's3cret' });
    });
    after(async () => {
      await secured.close();
    });

    it('answers 401 without the api-key header or with a wrong one, and serves it with the right one', async () => {
      await rejectsWith(new QdrantClient({ url: secured.url, checkCompatibility: false }).getCollections(), 401, 'Must provide an API key');
      await rejectsWith(new QdrantClient({ url: secured.url, checkCompatibility: false, headers: { 'api-key': 'wrong' } }).getCollections(), 401, 'Invalid API key');
      await capturingWarnings(async (warnings) => {
        const keyed = new QdrantClient({ url: secured.url, apiKey: 's3cret', checkCompatibility: false });
        assert.ok(await keyed.createCollection('keyed', { vectors: { size: 2, distance: 'Cosine' } }));
        assert.deepEqual(await keyed.getCollections(), { collections: [{ name: 'keyed' }] });
        // The client's own warning about sending a key over http.
        assert.ok(warnings.some((w) => /Api key is used with unsecure connection/.test(w)));
      });
      assert.deepEqual(secured.collections(), ['keyed']);
    });

    it('leaves GET / open, as Qdrant does, so the compatibility check passes without a key', async () => {
      await capturingWarnings(async (warnings) => {
        const from = secured.requests.length;
        new QdrantClient({ url: secured.url });
        await until(() => secured.requests.slice(from).some((r) => r.path === '/'), 'the version check');
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.deepEqual(warnings, []);
      });
    });
  });
});
