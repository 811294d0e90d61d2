import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FlatVectorIndex } from '../../core/adapters/flat-index/flat.vector-index.js';
import { DEFAULT_GRAPH_POLICY } from '../../core/adapters/flat-index/vector-graph.js';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { PgVectorIndex } from '../../core/adapters/pgvector.vector-index.js';
import { QdrantVectorIndex } from '../../core/adapters/qdrant/qdrant.vector-index.js';
import type { Database } from '../../core/db/database.js';
import type { VectorIndex } from '../../core/ports/vector-index.js';
import type { ChunkFilter } from '../../core/search/chunk-filter.js';
import { SyntheticCorpus } from '../../bench/corpus.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, ingest, startTestApp, waitForCorpusJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { type FakeQdrant, startFakeQdrant } from '../support/fake-qdrant.server.js';

const silent = pino({ level: 'silent' });
const DIMENSIONS = 256;
const embedder = new LexicalEmbedder();

/** Each VectorIndex adapter, built over a database that already holds the chunks. */
interface Adapter {
  name: string;
  make(db: Database): Promise<{ index: VectorIndex; close: () => Promise<void> }>;
}

const ADAPTERS: Adapter[] = [
  {
    name: 'pgvector (exact scan)',
    make: (db) => {
      const index = new PgVectorIndex(db, { graphs: false });
      return Promise.resolve({ index, close: () => index.close() });
    },
  },
  {
    name: 'flat',
    make: async (db) => {
      // Every segment on a worker thread, as large ones are in production.
      const index = new FlatVectorIndex(db, embedder.id, new PgVectorIndex(db, { graphs: false }), silent, { threads: 1, workerMinBytes: 0 });
      await index.start();
      await index.loaded;
      return { index, close: () => index.close() };
    },
  },
  {
    name: 'flat, every segment searched through an HNSW graph',
    make: async (db) => {
      // The lexical embedder's vectors are sparse: a density of 0 lets them have a graph anyway; filters go through it too.
      const graph = { ...DEFAULT_GRAPH_POLICY, minBytes: 1, minDensity: 0, exactBytes: 0 };
      const index = new FlatVectorIndex(db, embedder.id, new PgVectorIndex(db, { graphs: false }), silent, { threads: 1, graph });
      await index.start();
      await index.loaded;
      return { index, close: () => index.close() };
    },
  },
  {
    name: 'qdrant (against a fake of its REST API)',
    make: async (db) => {
      const fake: FakeQdrant = await startFakeQdrant();
      const index = new QdrantVectorIndex(
        db,
        embedder.id,
        { url: fake.url, apiKey: undefined, prefix: 'contract_', efSearch: 128, m: 16, efConstruct: 100, quantization: 'none', batchSize: 64 },
        silent,
      );
      await index.start();
      return {
        index,
        close: async () => {
          await index.close();
          await fake.close();
        },
      };
    },
  },
];

/**
 * The behaviour every VectorIndex adapter shares, run against each: the same chunks, the same
 * searches and filters, the same notifications. The database's exact scan is the reference.
 */
for (const database of testDatabases()) {
  for (const adapter of ADAPTERS) {
    describe(`VectorIndex contract: ${adapter.name} [${database.name}]`, () => {
      let app: TestApp;
      let index: VectorIndex;
      let close: () => Promise<void>;
      let exact: PgVectorIndex;
      let tenant: { id: string; key: string };
      let kb: string;
      const corpus = new SyntheticCorpus({ seed: 5, topics: 10, terms: 250 });
      const documents: Array<{ id: string; department: string }> = [];
      const filter = (extra: Partial<ChunkFilter> = {}): ChunkFilter => ({
        scope: { tenantId: tenant.id, subTenantId: null },
        knowledgeBaseIds: [kb],
        tags: {},
        embedder: embedder.id,
        ...extra,
      });
      const search = (target: VectorIndex, query: string, f: ChunkFilter, limit = 10) =>
        target.search({ filter: f, dimensions: DIMENSIONS, vector: embedder.embedText(query, DIMENSIONS), limit });

      before(async function () {
        this.timeout(120_000);
        app = await startTestApp(await database.get());
        tenant = await createTenant(app, 'enterprise');
        kb = (await client(app.url, tenant.key)('POST', '/v1/knowledge-bases', { name: 'contract', dimensions: DIMENSIONS })).body.id;
        for (let i = 0; i < 30; i++) {
          const doc = corpus.document(i);
          const department = i < 3 ? 'legal' : 'ops';
          const { documentId } = await ingest(app, tenant.key, { knowledge_base_id: kb, title: `${i === 7 ? 'Annual Report: ' : ''}${doc.title}`, content: doc.content, tags: { department } });
          documents.push({ id: documentId, department });
        }
        exact = new PgVectorIndex(await database.get(), { graphs: false });
        ({ index, close } = await adapter.make(await database.get()));
        // What a reconciliation (or the ingestion jobs) tells an index that keeps a copy.
        await index.documentsIndexed(documents.map((d) => ({ id: d.id })));
      });
      after(async () => {
        await close();
        await app.close();
      });

      it('finds the exact scan\'s nearest chunks', async () => {
        let overlap = 0;
        for (let i = 0; i < 10; i++) {
          const query = corpus.query(i, i % 30);
          const got = (await search(index, query, filter())).map((h) => h.chunkId);
          const want = (await search(exact, query, filter())).map((h) => h.chunkId);
          assert.equal(got.length, 10);
          overlap += got.filter((id) => want.includes(id)).length / want.length;
        }
        assert.ok(overlap / 10 >= 0.9, `overlap with the exact scan: ${overlap / 10}`);
        const hits = await search(index, corpus.query(1, 1), filter(), 5);
        for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.similarity >= hits[i]!.similarity, 'closest first');
        assert.ok(hits.every((h) => h.similarity <= 1.0001 && h.similarity >= -1.0001), 'cosine similarities');
      });

      it('applies every filter inside the search: all matching chunks, nothing else', async () => {
        const { rows } = await app.db.query<{ id: string; department: string; title: string }>(
          "SELECT c.id, d.tags ->> 'department' AS department, d.title FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.knowledge_base_id = $1",
          [kb],
        );
        const legal = rows.filter((r) => r.department === 'legal').map((r) => r.id).sort();
        const ops = rows.filter((r) => r.department === 'ops').map((r) => r.id);
        assert.ok(legal.length >= 3 && ops.length > 30);
        assert.deepEqual((await search(index, 'contract', filter({ tags: { department: 'legal' } }), 100)).map((h) => h.chunkId).sort(), legal);
        const most = await search(index, 'contract', filter({ tags: { department: 'ops' } }), ops.length);
        assert.equal(most.length, ops.length, 'a filter matching many never shortens the answer');
        assert.ok(most.every((h) => ops.includes(h.chunkId)));
        assert.deepEqual(await search(index, 'contract', filter({ createdBefore: new Date('2000-01-01') })), []);
        assert.equal((await search(index, 'contract', filter({ createdAfter: new Date('2000-01-01') }), 5)).length, 5);
        const titled = rows.filter((r) => r.title.toLowerCase().includes('annual report')).map((r) => r.id).sort();
        assert.ok(titled.length >= 1);
        assert.deepEqual((await search(index, 'contract', filter({ titleContains: 'ANNUAL report' }), 100)).map((h) => h.chunkId).sort(), titled);
        assert.deepEqual(await search(index, 'contract', filter({ titleContains: 'no such title %_' })), []);
        assert.deepEqual(await search(index, 'contract', filter({ embedder: 'another-model' })), []);
        assert.deepEqual(await search(index, 'contract', filter({ knowledgeBaseIds: [] })), []);
      });

      it("never answers with another tenant's or another sub-tenant's chunks", async () => {
        const other = await createTenant(app, 'standard');
        assert.deepEqual(await search(index, corpus.query(1, 1), { ...filter(), scope: { tenantId: other.id, subTenantId: null } }), []);
        const sub = '00000000-0000-4000-8000-000000000001';
        assert.deepEqual(await search(index, corpus.query(1, 1), { ...filter(), scope: { tenantId: tenant.id, subTenantId: sub } }), []);
      });

      it('follows notifications: a deleted document stays gone, a new one appears, a removed tenant has nothing', async () => {
        const victim = documents[5]!.id;
        const victimChunks = (await app.db.query<{ id: string }>('SELECT id FROM chunks WHERE document_id = $1', [victim])).rows.map((r) => r.id);
        assert.ok((await search(index, corpus.document(5).title, filter(), 100)).some((h) => victimChunks.includes(h.chunkId)));
        assert.equal((await client(app.url, tenant.key)('DELETE', `/v1/documents/${victim}`)).status, 204);
        await index.documentsRemoved([victim]);
        await index.documentsIndexed([{ id: victim }]);
        assert.ok(!(await search(index, corpus.document(5).title, filter(), 100)).some((h) => victimChunks.includes(h.chunkId)));

        const added = await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Zebra crossings', content: 'Quagga zebra okapi crossings.' });
        await index.documentsIndexed([{ id: added.documentId }]);
        const [chunk] = (await app.db.query<{ id: string }>('SELECT id FROM chunks WHERE document_id = $1', [added.documentId])).rows;
        assert.deepEqual((await search(index, 'quagga zebra okapi', filter(), 1)).map((h) => h.chunkId), [chunk!.id]);

        // The account is deleted (its rows go), then the index is told, as the account service does.
        assert.equal((await client(app.url, tenant.key)('DELETE', '/v1/account', undefined, { 'x-confirm-delete': 'DELETE_MY_ACCOUNT' })).status, 202);
        await index.tenantRemoved({ tenantId: tenant.id });
        assert.deepEqual(await search(index, 'quagga zebra okapi', filter(), 1), []);
      });

      it('indexes corpus records, replaces a reloaded record and filters on metadata', async () => {
        const admin = client(app.url, TEST_ADMIN_TOKEN);
        const slug = `contract-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
        assert.equal((await admin('POST', '/internal/v1/corpora', { slug, name: 'Contract', plans: ['enterprise'], dimensions: DIMENSIONS })).status, 201);
        const load = async (records: Array<{ source_record_id: string; content: string; metadata?: Record<string, unknown> }>) => {
          const res = await admin('POST', `/internal/v1/corpora/${slug}/records`, { records });
          assert.equal(res.status, 202, JSON.stringify(res.body));
          assert.equal((await waitForCorpusJob(admin, slug, res.body.job_id)).status, 'completed');
        };
        await load([
          { source_record_id: 'a', content: 'Lichens are fungi and algae together.', metadata: { year: 2020, kind: 'bio' } },
          { source_record_id: 'b', content: 'Lichens grow on bare rock.', metadata: { year: 2021, kind: 'geo' } },
        ]);
        const corpusId = (await app.db.query<{ id: string }>('SELECT id FROM corpora WHERE slug = $1', [slug])).rows[0]!.id;
        const platform = (metadata: Record<string, string> = {}) =>
          index.searchCorpora({ filter: { corpusIds: [corpusId], metadata, embedder: embedder.id }, dimensions: DIMENSIONS, vector: embedder.embedText('lichens', DIMENSIONS), limit: 10 });
        await index.ensureDimensions(DIMENSIONS, 'corpus');
        await index.corpusRecordsIndexed(corpusId, ['a', 'b']);
        assert.equal((await platform()).length, 2);
        assert.equal((await platform({ year: '2021' })).length, 1, 'numbers compare as their JSON text');
        assert.equal((await platform({ kind: 'bio', year: '2021' })).length, 0);
        await load([{ source_record_id: 'a', content: 'Lichens, reloaded: fungi, algae and yeasts.', metadata: { year: 2020 } }]);
        await index.corpusRecordsIndexed(corpusId, ['a']);
        const stored = (await app.db.query<{ id: string }>('SELECT id FROM platform_chunks WHERE corpus_id = $1', [corpusId])).rows.map((r) => r.id).sort();
        assert.deepEqual((await platform()).map((h) => h.chunkId).sort(), stored, 'the replaced chunks are gone');
        assert.equal((await admin('DELETE', `/internal/v1/corpora/${slug}`)).status, 204);
        await index.corpusRecordsRemoved(corpusId, null);
        assert.deepEqual(await platform(), []);
      });
    });
  }
}
