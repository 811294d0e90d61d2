import assert from 'node:assert/strict';
import { documentAcceptedSchema } from '../../api/routes/document.routes.js';
import { knowledgeBaseCreatedSchema } from '../../api/routes/knowledge-base.routes.js';
import { jobSchema } from '../../core/jobs/job.schema.js';
import { queryResponseSchema } from '../../core/search/search.schema.js';
import {
  type ApiClient,
  type TestApp,
  client,
  createKey,
  createTenant,
  errorBody,
  ingest,
  startTestApp,
  storeDocument,
  typed,
  waitForJob,
} from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const TOPICS = [
  'Photosynthesis converts sunlight, water and carbon dioxide into glucose and oxygen inside chloroplasts.',
  'The French Revolution began in 1789 and abolished the feudal privileges of the nobility.',
  'A compiler translates source code into machine code; an interpreter executes it line by line.',
  'Volcanoes erupt when magma from the mantle rises through cracks in the crust of the earth.',
  'Sourdough bread rises because wild yeast and lactic acid bacteria ferment the dough slowly.',
  'Die Photosynthese wandelt Sonnenlicht in chemische Energie um und findet in den Chloroplasten statt.',
  'Фотосинтезата превръща слънчевата светлина в химическа енергия в хлоропластите на растенията.',
];

async function createKnowledgeBase(api: ApiClient, body: object): Promise<string> {
  const res = await api('POST', '/v1/knowledge-bases', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return typed(res, knowledgeBaseCreatedSchema).body.id;
}

async function setup(app: TestApp, plan: 'standard' | 'enterprise' = 'standard') {
  const t = await createTenant(app, plan);
  const api = client(app.url, t.key);
  const kb = await createKnowledgeBase(api, { name: 'science' });
  return { t, api, kb };
}

/** The results of a query that must succeed. */
async function search(api: ApiClient, body: object) {
  const res = await api('POST', '/v1/query', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return typed(res, queryResponseSchema).body.results;
}

for (const database of testDatabases()) {
  describe(`query [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      // Threshold 0: every search walks the HNSW index (where pgvector exists), as large tenants do.
      app = await startTestApp(await database.get(), { env: { VECTOR_EXACT_SCAN_THRESHOLD: '0' } });
    });
    after(() => app.close());

    it('returns the best-matching chunks first, with exactly the tenant result fields', async () => {
      const { t, api, kb } = await setup(app);
      for (const [i, content] of TOPICS.entries()) {
        await ingest(app, t.key, { knowledge_base_id: kb, title: `topic ${i}`, content, tags: { n: String(i) } });
      }
      const res = await api('POST', '/v1/query', { query: 'how do volcanoes erupt from magma' });
      assert.equal(res.status, 200);
      const { results } = typed(res, queryResponseSchema).body;
      const [first] = results;
      assert.ok(first);
      assert.equal(first.document_title, 'topic 3');
      assert.deepEqual(Object.keys(first).sort(), [
        'chunk_id', 'chunk_index', 'content', 'document_id', 'document_tags', 'document_title', 'knowledge_base_id', 'score', 'source',
      ]);
      assert.equal(first.source, 'tenant');
      assert.equal(first.knowledge_base_id, kb);
      assert.equal(first.chunk_index, 0);
      assert.deepEqual(first.document_tags, { n: '3' });
      const scores = results.map((r) => r.score);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
      assert.ok(scores.every((s) => s > 0));

      const german = await search(api, { query: 'Photosynthese Chloroplasten', top_k: 1 });
      assert.equal(german[0]?.document_title, 'topic 5');
      const bulgarian = await search(api, { query: 'фотосинтезата хлоропластите', top_k: 1 });
      assert.equal(bulgarian[0]?.document_title, 'topic 6');
    });

    it('defaults top_k to 10 and validates every field', async () => {
      const { t, api, kb } = await setup(app);
      for (let i = 0; i < 12; i++) {
        await ingest(app, t.key, { knowledge_base_id: kb, title: `note ${i}`, content: `Meeting note number ${i} about the quarterly budget.` });
      }
      assert.equal((await search(api, { query: 'quarterly budget meeting' })).length, 10);
      assert.equal((await search(api, { query: 'quarterly budget meeting', top_k: 12 })).length, 12);
      assert.equal((await api('POST', '/v1/query', { query: 'q'.repeat(4096), top_k: 1 })).status, 200);
      for (const body of [
        {},
        { query: '' },
        { query: '   ' },
        { query: 'q'.repeat(4097) },
        { query: 'x', top_k: 0 },
        { query: 'x', top_k: 101 },
        { query: 'x', top_k: 2.5 },
        { query: 'x', knowledge_base_ids: [] },
        { query: 'x', knowledge_base_ids: 'abc' },
        { query: 'x', filters: { colour: 'red' } },
        { query: 'x', filters: { 'tags.a': 1 } },
        { query: 'x', filters: { created_after: 'yesterday' } },
        { query: 'x', translate_response: 'yes' },
        { query: 'x', unknown: true },
      ]) {
        const res = await api('POST', '/v1/query', body);
        assert.equal(res.status, 422, JSON.stringify(body).slice(0, 100));
        assert.equal(errorBody(res).error, 'validation_failed');
      }
      const lang = await api('POST', '/v1/query', { query: 'x', source_language: 'pl' });
      assert.equal(lang.status, 400);
      assert.equal(errorBody(lang).error, 'unsupported_language');
      assert.equal((await api('POST', '/v1/query', { query: 'budget', source_language: 'en' })).status, 200);
      const longUser = await api('POST', '/v1/query', { query: 'x' }, { 'x-user-id': 'u'.repeat(257) });
      assert.equal(longUser.status, 422);
      assert.equal(errorBody(longUser).error, 'validation_failed');
      assert.equal((await api('POST', '/v1/query', { query: 'x' }, { 'x-user-id': 'u'.repeat(256) })).status, 200);
    });

    it('returns a full top_k for selective filters (filters apply inside the index scan)', async () => {
      const { t, api, kb } = await setup(app);
      // 120 documents share the words; only every tenth carries the wanted tag.
      const stored = [];
      for (let i = 0; i < 120; i++) {
        stored.push(
          await storeDocument(app, t.id, {
            knowledge_base_id: kb,
            title: `report ${i}`,
            content: `Incident report ${i}: the storage cluster lost a replica and recovered after a failover.`,
            tags: { region: i % 10 === 0 ? 'eu' : 'us' },
          }),
        );
      }
      for (const { job_id } of stored) assert.equal((await waitForJob(app, t.key, job_id)).status, 'completed');
      const res = await api('POST', '/v1/query', { query: 'storage replica failover', top_k: 12, filters: { 'tags.region': 'eu' } });
      assert.equal(res.status, 200);
      const { results } = typed(res, queryResponseSchema).body;
      assert.equal(results.length, 12);
      assert.ok(results.every((r) => r.document_tags?.region === 'eu'));
      assert.deepEqual(await search(api, { query: 'storage replica', filters: { 'tags.region': 'mars' } }), []);
    });

    it('filters by creation time and title, and restricts to knowledge_base_ids', async () => {
      const { t, api, kb } = await setup(app);
      const kb2 = await createKnowledgeBase(api, { name: 'other' });
      await ingest(app, t.key, { knowledge_base_id: kb, title: 'Alpha Manual', content: 'How to calibrate the spectrometer.' });
      const between = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 20));
      await ingest(app, t.key, { knowledge_base_id: kb2, title: 'Beta Guide', content: 'How to calibrate the spectrometer quickly.' });
      const titles = async (body: object) => (await search(api, { query: 'calibrate spectrometer', ...body })).map((r) => r.document_title).sort();
      assert.deepEqual(await titles({}), ['Alpha Manual', 'Beta Guide']);
      assert.deepEqual(await titles({ filters: { created_after: between } }), ['Beta Guide']);
      assert.deepEqual(await titles({ filters: { created_before: between } }), ['Alpha Manual']);
      assert.deepEqual(await titles({ filters: { document_title: 'alpha' } }), ['Alpha Manual']);
      assert.deepEqual(await titles({ filters: { document_title: '%' } }), []);
      assert.deepEqual(await titles({ knowledge_base_ids: [kb2] }), ['Beta Guide']);
      const missing = await api('POST', '/v1/query', { query: 'x', knowledge_base_ids: ['00000000-0000-4000-8000-000000000000'] });
      assert.equal(missing.status, 404);
      assert.equal(errorBody(missing).error, 'not_found');
    });

    it('searches knowledge bases of different dimensions, including above the HNSW limits', async () => {
      const { t, api } = await setup(app);
      for (const dimensions of [8, 384, 3000, 4096]) {
        const kb = await createKnowledgeBase(api, { name: `d${dimensions}`, dimensions });
        await ingest(app, t.key, { knowledge_base_id: kb, title: `dims ${dimensions}`, content: TOPICS[4]! });
      }
      const results = await search(api, { query: 'sourdough wild yeast', top_k: 4 });
      assert.deepEqual(results.map((r) => r.document_title).sort(), ['dims 3000', 'dims 384', 'dims 4096', 'dims 8']);
      const { rows } = await app.db.query<{ dimensions: number; n: number }>(
        'SELECT dimensions, cardinality(embedding::real[]) AS n FROM chunks WHERE tenant_id = $1 ORDER BY dimensions',
        [t.id],
      );
      assert.deepEqual(rows.map((r) => [r.dimensions, r.n]), [[8, 8], [384, 384], [3000, 3000], [4096, 4096]]);
    });

    it('counts one usage event per successful query', async () => {
      const { t, api } = await setup(app);
      const count = async () =>
        (await app.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_events WHERE tenant_id = $1 AND event_type = 'query'", [t.id])).rows[0]!.n;
      await api('POST', '/v1/query', { query: 'anything' });
      await api('POST', '/v1/query', { query: 'anything', top_k: 3 }, { 'x-user-id': 'user-7' });
      await api('POST', '/v1/query', { query: '' });
      assert.equal(await count(), 2);
    });

    it('refuses response translation on Free (403)', async () => {
      const free = await createTenant(app, 'free');
      const denied = await client(app.url, free.key)('POST', '/v1/query', { query: 'x', translate_response: true });
      assert.equal(denied.status, 403);
      assert.equal(errorBody(denied).error, 'free_tier_restriction');
      const { api } = await setup(app);
      assert.equal((await api('POST', '/v1/query', { query: 'x', translate_response: true })).status, 200);
      assert.equal((await api('POST', '/v1/query', { query: 'x', translate_response: false })).status, 200);
    });

    it('requires a key: read keys may query', async () => {
      const { t } = await setup(app);
      const read = client(app.url, await createKey(app, t.key, 'read'));
      assert.equal((await read('POST', '/v1/query', { query: 'x' })).status, 200);
      assert.equal((await client(app.url)('POST', '/v1/query', { query: 'x' })).status, 401);
    });

    it("never returns another tenant's chunks, even for identical text", async () => {
      const a = await setup(app);
      const b = await setup(app);
      await ingest(app, a.t.key, { knowledge_base_id: a.kb, title: 'A only', content: 'Quantum tunnelling lets particles cross energy barriers.' });
      await ingest(app, b.t.key, { knowledge_base_id: b.kb, title: 'B only', content: 'Quantum tunnelling lets particles cross energy barriers.' });
      const ra = await search(a.api, { query: 'quantum tunnelling barriers', top_k: 100 });
      const rb = await search(b.api, { query: 'quantum tunnelling barriers', top_k: 100 });
      assert.deepEqual(ra.map((r) => r.document_title), ['A only']);
      assert.deepEqual(rb.map((r) => r.document_title), ['B only']);
      const cross = await b.api('POST', '/v1/query', { query: 'quantum', knowledge_base_ids: [a.kb] });
      assert.equal(cross.status, 404);
      assert.equal(errorBody(cross).error, 'not_found');
    });
  });

  // Its own block: while it runs no other app's job engine is started on the shared database, so
  // nothing but the test's own drain() can pick up the pending document's job.
  describe(`query of documents still being ingested [${database.name}]`, () => {
    it('searches only completed documents, and forgets deleted ones at once', async () => {
      const paused = await startTestApp(await database.get(), { jobs: false });
      try {
        const t = await createTenant(paused);
        const api = client(paused.url, t.key);
        const kb = await createKnowledgeBase(api, { name: 'k' });
        const res = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'pending', content: TOPICS[2]! });
        assert.equal(res.status, 202);
        const { job_id: jobId, document_id: documentId } = typed(res, documentAcceptedSchema).body;
        const job = async () => typed(await api('GET', `/v1/jobs/${jobId}`), jobSchema).body;
        assert.equal((await job()).status, 'queued');
        assert.deepEqual(await search(api, { query: 'compiler machine code' }), []);
        await paused.runtime.engine.drain();
        assert.equal((await job()).status, 'completed');
        const found = await search(api, { query: 'compiler machine code' });
        assert.equal(found[0]?.document_title, 'pending');
        assert.equal((await api('DELETE', `/v1/documents/${documentId}`)).status, 204);
        assert.deepEqual(await search(api, { query: 'compiler machine code' }), []);
      } finally {
        await paused.close();
      }
    });
  });
}
