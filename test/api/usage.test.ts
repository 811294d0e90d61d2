import assert from 'node:assert/strict';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { MB } from '../../core/plans.js';
import type { Embedder } from '../../core/ports/embedder.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createKey, createTenant, ingest, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const TEXT = 'Usage figures must be exact after every ingest, delete and query. '.repeat(40);
const NOTES = 'Uploaded notes count twice: the text and the original file. '.repeat(10);

/** The built-in embedder, refusing text that contains POISON: that document's indexing fails for good. */
function refusingEmbedder(): Embedder {
  const lexical = new LexicalEmbedder();
  return {
    id: lexical.id,
    embed: async (texts, options) => {
      if (texts.some((t) => t.includes('POISON'))) throw new Error('The embedding endpoint refused the input.');
      return lexical.embed(texts, options);
    },
  };
}

for (const database of testDatabases()) {
  describe(`usage [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get(), { env: { JOB_MAX_ATTEMPTS: '1' }, adapters: { embedder: refusingEmbedder() } });
    });
    after(() => app.close());

    it('starts at zero with the limits of the plan', async () => {
      const t = await createTenant(app, 'free');
      const usage = await client(app.url, t.key)('GET', '/v1/usage');
      assert.equal(usage.status, 200);
      assert.deepEqual(usage.body, {
        chunks: { used: 0, limit: 5000, percent: 0 },
        documents: { used: 0, limit: 50, percent: 0 },
        storage_bytes: { used: 0, limit: 50 * MB, percent: 0 },
        queries_this_period: { used: 0, limit: 1000, percent: 0 },
        knowledge_bases: { used: 0, limit: 1 },
        query_rate_limit_per_min: 10,
      });
      const ent = await createTenant(app, 'enterprise');
      const e = (await client(app.url, ent.key)('GET', '/v1/usage')).body;
      assert.equal(e.knowledge_bases.limit, null);
      assert.equal(e.query_rate_limit_per_min, 500);
      assert.equal(e.queries_this_period.limit, 500_000);
      const payg = (await client(app.url, (await createTenant(app, 'payg')).key)('GET', '/v1/usage')).body;
      assert.deepEqual(payg.queries_this_period, { used: 0, limit: 0, percent: null });
    });

    it('is exact after a sequence of ingests, deletes and queries, for any key', async () => {
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'u' })).body.id;
      const a = await ingest(app, t.key, { knowledge_base_id: kb, title: 'a', content: TEXT });
      const b = await ingest(app, t.key, { knowledge_base_id: kb, title: 'b', content: 'short' });
      const form = new FormData();
      form.append('file', new Blob([NOTES], { type: 'text/plain' }), 'notes.txt');
      form.append('metadata', JSON.stringify({ knowledge_base_id: kb }));
      const upload = await api('POST', '/v1/documents/upload', form);
      assert.equal(upload.status, 202);
      const c = { documentId: upload.body.document_id as string, job: await waitForJob(app, t.key, upload.body.job_id) };
      for (let i = 0; i < 3; i++) assert.equal((await api('POST', '/v1/query', { query: 'usage figures' })).status, 200);
      assert.equal((await api('POST', '/v1/query', { query: '' })).status, 422);
      const read = client(app.url, await createKey(app, t.key, 'read'));
      let usage = (await read('GET', '/v1/usage')).body;
      const chunks = a.job.total_chunks + b.job.total_chunks + c.job.total_chunks;
      const bytes = Buffer.byteLength(TEXT) + 5 + 2 * Buffer.byteLength(NOTES);
      assert.deepEqual(usage.chunks, { used: chunks, limit: 100_000, percent: Math.round((chunks / 100_000) * 10_000) / 100 });
      assert.deepEqual(usage.documents, { used: 3, limit: 1000, percent: 0.3 });
      assert.equal(usage.storage_bytes.used, bytes);
      assert.deepEqual(usage.queries_this_period, { used: 3, limit: 50_000, percent: 0.01 });
      assert.deepEqual(usage.knowledge_bases, { used: 1, limit: 20 });

      assert.equal((await api('DELETE', `/v1/documents/${a.documentId}`)).status, 204);
      assert.equal((await api('DELETE', `/v1/documents/${c.documentId}`)).status, 204);
      usage = (await api('GET', '/v1/usage')).body;
      assert.equal(usage.chunks.used, b.job.total_chunks);
      assert.equal(usage.documents.used, 1);
      assert.equal(usage.storage_bytes.used, 5);
      assert.equal(usage.queries_this_period.used, 3);
    });

    it('frees the chunks of a document whose indexing failed; its bytes count until it is deleted', async () => {
      const t = await createTenant(app, 'standard');
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'f' })).body.id;
      const good = await ingest(app, t.key, { knowledge_base_id: kb, title: 'good', content: TEXT });
      const poison = `POISON ${TEXT}`;
      const bad = await ingest(app, t.key, { knowledge_base_id: kb, title: 'bad', content: poison });
      assert.equal(bad.job.status, 'failed');
      assert.ok(bad.job.total_chunks > 0, 'the failed document had reserved chunks');
      assert.equal((await api('GET', `/v1/documents/${bad.documentId}`)).body.chunk_count, 0);
      let usage = (await api('GET', '/v1/usage')).body;
      assert.equal(usage.chunks.used, good.job.total_chunks);
      assert.equal(usage.documents.used, 2);
      assert.equal(usage.storage_bytes.used, Buffer.byteLength(TEXT) + Buffer.byteLength(poison));

      assert.equal((await api('DELETE', `/v1/documents/${bad.documentId}`)).status, 204);
      usage = (await api('GET', '/v1/usage')).body;
      assert.equal(usage.chunks.used, good.job.total_chunks);
      assert.equal(usage.documents.used, 1);
      assert.equal(usage.storage_bytes.used, Buffer.byteLength(TEXT));
    });

    it('reflects support overrides, and is isolated between tenants', async () => {
      const a = await createTenant(app, 'enterprise');
      const b = await createTenant(app, 'enterprise');
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${a.id}`, {
        limit_overrides: { storage_bytes: 2 * MB, max_knowledge_bases: 3 },
      });
      const apiA = client(app.url, a.key);
      const kb = (await apiA('POST', '/v1/knowledge-bases', { name: 'x' })).body.id;
      await ingest(app, a.key, { knowledge_base_id: kb, title: 'x', content: 'hello' });
      const usageA = (await apiA('GET', '/v1/usage')).body;
      assert.equal(usageA.storage_bytes.limit, 2 * MB);
      assert.deepEqual(usageA.knowledge_bases, { used: 1, limit: 3 });
      const usageB = (await client(app.url, b.key)('GET', '/v1/usage')).body;
      assert.equal(usageB.documents.used, 0);
      assert.equal(usageB.knowledge_bases.used, 0);
      assert.equal(usageB.storage_bytes.limit, 10 * 1024 * MB);
    });
  });
}
