import assert from 'node:assert/strict';
import { QdrantClient } from '@qdrant/js-client-rest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { PgVectorIndex } from '../../core/adapters/pgvector.vector-index.js';
import { QdrantVectorIndex } from '../../core/adapters/qdrant/qdrant.vector-index.js';
import { ConfigError, loadConfig } from '../../core/config.js';
import { DEFAULT_DIMENSIONS } from '../../core/knowledge-bases/knowledge-base.schema.js';
import { lorePlatform } from '../../operator/lore-platform.js';
import type { ChunkFilter } from '../../core/search/chunk-filter.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp, waitForCorpusJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { type FakeQdrant, startFakeQdrant } from '../support/fake-qdrant.server.js';
import { runCli } from '../support/process.js';

const silent = pino({ level: 'silent' });
const DIMENSIONS = 64;
const embedder = new LexicalEmbedder();
const OPTIONS = { apiKey: undefined, prefix: 'rc_', efSearch: 64, m: 16, efConstruct: 100, quantization: 'none' as const, batchSize: 50 };

describe('npm run cli -- vector-index reconcile', function () {
  this.timeout(120_000);
  it('repairs Qdrant from the chunk tables, and says when the configured index has nothing to repair', async () => {
    const fake = await startFakeQdrant();
    const dir = await mkdtemp(path.join(tmpdir(), 'lore-reconcile-'));
    try {
      const { stdout } = await runCli(['vector-index', 'reconcile'], { DATA_DIR: dir, VECTOR_INDEX: 'qdrant', QDRANT_URL: fake.url, LOG_LEVEL: 'silent' });
      assert.deepEqual(JSON.parse(stdout), { vector_index: 'qdrant', documentsIndexed: 0, documentsRemoved: 0, collectionsDropped: 0, recordsIndexed: 0, recordsRemoved: 0 });
      const flat = await runCli(['vector-index', 'reconcile'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
      assert.equal(JSON.parse(flat.stdout).reconciled, false);
    } finally {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('VECTOR_INDEX=qdrant configuration', () => {
  it('needs QDRANT_URL, and keeps keyword search in the database', () => {
    assert.throws(() => loadConfig({ VECTOR_INDEX: 'qdrant' }), ConfigError);
    const config = loadConfig({ VECTOR_INDEX: 'qdrant', QDRANT_URL: 'http://qdrant:6333', QDRANT_QUANTIZATION: 'scalar' });
    assert.equal(config.vectorIndex.qdrant?.url, 'http://qdrant:6333');
    assert.equal(config.vectorIndex.qdrant?.quantization, 'scalar');
    assert.equal(config.keywordIndex, 'postgres');
    assert.throws(() => loadConfig({ VECTOR_INDEX: 'qdrant', QDRANT_URL: 'http://q', KEYWORD_INDEX: 'flat' }), ConfigError);
  });
});

for (const database of testDatabases()) {
  describe(`Qdrant vector index: the whole API on it, reconciliation and retries [${database.name}]`, function () {
    this.timeout(120_000);
    let fake: FakeQdrant;
    let app: TestApp;

    before(async () => {
      fake = await startFakeQdrant();
      app = await startTestApp(await database.get(), { env: { VECTOR_INDEX: 'qdrant', QDRANT_URL: fake.url, QDRANT_COLLECTION_PREFIX: 'app_' } });
    });
    after(async () => {
      await app.close();
      await fake.close();
    });

    it("the operator's ensureTenantVectors creates a tenant's collection ahead of its first document, and again after it was deleted outside Lore", async () => {
      const platform = lorePlatform(app.services);
      const tenant = await createTenant(app, 'standard');
      const name = `app_t_${tenant.id}_${DEFAULT_DIMENSIONS}`;
      assert.equal(await platform.ensureTenantVectors(tenant.id), 'created');
      assert.ok(fake.collections().includes(name));
      assert.equal(await platform.ensureTenantVectors(tenant.id), 'exists', 'a second pass creates nothing');
      await new QdrantClient({ url: fake.url }).deleteCollection(name);
      assert.equal(await platform.ensureTenantVectors(tenant.id), 'created', 'drift repaired');
      assert.ok(fake.collections().includes(name));
    });

    it('serves ingestion and queries through Qdrant: documents land in their tenant\'s collection and are found', async () => {
      assert.equal(app.services.adapters.vectorIndex.kind, 'qdrant');
      const tenant = await createTenant(app, 'standard');
      const api = client(app.url, tenant.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'Q', dimensions: DIMENSIONS })).body.id as string;
      await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Tea', content: 'Green tea is brewed at eighty degrees for two minutes.' });
      await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Bikes', content: 'Bicycle tyres need pumping every few weeks.' });
      // The index is told after the job's transaction commits, a moment after the job reads completed.
      for (let i = 0; i < 50 && !(fake.collections().includes(`app_t_${tenant.id}_${DIMENSIONS}`) && fake.points(`app_t_${tenant.id}_${DIMENSIONS}`) === 2); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(fake.points(`app_t_${tenant.id}_${DIMENSIONS}`), 2);
      const res = await api('POST', '/v1/query', { query: 'how long to brew green tea', top_k: 1 });
      assert.equal(res.status, 200);
      assert.match(res.body.results[0].content, /Green tea/);
      // Deleting a document removes its points.
      const doc = res.body.results[0].document_id as string;
      assert.equal((await api('DELETE', `/v1/documents/${doc}`)).status, 204);
      for (let i = 0; i < 50 && fake.points(`app_t_${tenant.id}_${DIMENSIONS}`) !== 1; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(fake.points(`app_t_${tenant.id}_${DIMENSIONS}`), 1);
      // Deleting the account drops the tenant's collection.
      assert.equal((await api('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' })).status, 202);
      for (let i = 0; i < 50 && fake.collections().includes(`app_t_${tenant.id}_${DIMENSIONS}`); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(!fake.collections().includes(`app_t_${tenant.id}_${DIMENSIONS}`));
    });

    it('reconciles the collections with the chunk tables: indexes what is missing, drops what is gone, then changes nothing', async () => {
      const tenant = await createTenant(app, 'enterprise');
      const kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'R', dimensions: DIMENSIONS })).body.id as string;
      const docs: string[] = [];
      for (let i = 0; i < 6; i++) docs.push((await ingest(app, tenant.key, { knowledge_base_id: kb, title: `Doc ${i}`, content: `Topic ${i}: ${'word'.repeat(i + 1)} alpha beta.` })).documentId);
      // A second index with its own prefix starts empty, as after a lost Qdrant volume.
      const index = new QdrantVectorIndex(app.db, embedder.id, { url: fake.url, ...OPTIONS }, silent);
      const first = await index.reconcile();
      assert.ok(first.documentsIndexed >= 6, JSON.stringify(first));
      const collection = index.tenantCollection(tenant.id, DIMENSIONS);
      const chunks = (await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE tenant_id = $1', [tenant.id])).rows[0]!.n;
      assert.equal(fake.points(collection), chunks);
      assert.deepEqual(await index.reconcile(), { documentsIndexed: 0, documentsRemoved: 0, collectionsDropped: 0, recordsIndexed: 0, recordsRemoved: 0 }, 'a second run changes nothing');

      // Drift: a document's points lost, a stray point of a document that does not exist, a whole collection deleted.
      const raw = new QdrantClient({ url: fake.url, checkCompatibility: false });
      await raw.delete(collection, { wait: true, filter: { must: [{ key: 'document_id', match: { value: docs[2]! } }] } });
      await raw.upsert(collection, { wait: true, points: [{ id: '00000000-0000-4000-8000-00000000abcd', vector: Array.from(embedder.embedText('stray', DIMENSIONS)), payload: { document_id: '00000000-0000-4000-8000-00000000dcba', knowledge_base_id: kb } }] });
      const repaired = await index.reconcile();
      assert.equal(repaired.documentsIndexed, 1);
      assert.equal(repaired.documentsRemoved, 1);
      assert.equal(fake.points(collection), chunks);
      await raw.deleteCollection(collection);
      const again = new QdrantVectorIndex(app.db, embedder.id, { url: fake.url, ...OPTIONS }, silent);
      assert.ok((await again.reconcile()).documentsIndexed >= 6);
      assert.equal(fake.points(collection), chunks);
      const filter: ChunkFilter = { scope: { tenantId: tenant.id, subTenantId: null }, knowledgeBaseIds: [kb], tags: {}, embedder: embedder.id };
      const query = { filter, dimensions: DIMENSIONS, vector: embedder.embedText('topic alpha', DIMENSIONS), limit: 6 };
      const exact = new PgVectorIndex(app.db, { graphs: false });
      assert.deepEqual((await again.search(query)).map((h) => h.chunkId).sort(), (await exact.search(query)).map((h) => h.chunkId).sort());

      // A deleted tenant's collection is dropped.
      assert.equal((await client(app.url, tenant.key)('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' })).status, 202);
      assert.equal((await again.reconcile()).collectionsDropped, 1);
      assert.ok(!fake.collections().includes(collection));
    });

    it('reconciles corpus records too', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const slug = `rc-${Date.now()}`;
      assert.equal((await admin('POST', '/internal/v1/corpora', { slug, name: 'RC', plans: ['enterprise'], dimensions: DIMENSIONS })).status, 201);
      const res = await admin('POST', `/internal/v1/corpora/${slug}/records`, { records: [{ source_record_id: 'x', content: 'Mosses hold water.' }, { source_record_id: 'y', content: 'Ferns spread spores.' }] });
      assert.equal((await waitForCorpusJob(admin, slug, res.body.job_id)).status, 'completed');
      const corpusId = (await app.db.query<{ id: string }>('SELECT id FROM corpora WHERE slug = $1', [slug])).rows[0]!.id;
      const index = new QdrantVectorIndex(app.db, embedder.id, { url: fake.url, ...OPTIONS, prefix: `rc2_${Date.now()}_` }, silent);
      const records = () => index.searchCorpora({ filter: { corpusIds: [corpusId], metadata: {} }, dimensions: DIMENSIONS, vector: embedder.embedText('mosses ferns', DIMENSIONS), limit: 10 });
      // Every record on the instance is indexed (other suites' corpora too), ours among them.
      assert.ok((await index.reconcile()).recordsIndexed >= 2);
      assert.equal((await records()).length, 2);
      assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);
      assert.equal((await index.reconcile()).recordsRemoved, 2);
      assert.deepEqual(await records(), []);
    });

    it('retries what may pass on a second try (5xx, network), and not a refusal (4xx)', async () => {
      const index = new QdrantVectorIndex(app.db, embedder.id, { url: fake.url, ...OPTIONS, prefix: 'retry_' }, silent);
      await index.ensureDimensions(DIMENSIONS, 'corpus');
      const search = () => index.searchCorpora({ filter: { corpusIds: ['00000000-0000-4000-8000-000000000000'], metadata: {} }, dimensions: DIMENSIONS, vector: embedder.embedText('x', DIMENSIONS), limit: 3 });
      fake.failNext(2, 503);
      assert.deepEqual(await search(), []);
      fake.failNext(1, 400);
      await assert.rejects(search());
      assert.deepEqual(await search(), []);
      const down = new QdrantVectorIndex(app.db, embedder.id, { url: 'http://127.0.0.1:9', ...OPTIONS }, silent);
      await down.start();
      assert.deepEqual(await down.status(), { tenant: 'missing', corpus: 'missing' });
    });
  });
}
