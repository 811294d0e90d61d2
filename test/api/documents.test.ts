import assert from 'node:assert/strict';
import { z } from 'zod';
import { documentAcceptedSchema } from '../../api/routes/document.routes.js';
import { knowledgeBaseCreatedSchema } from '../../api/routes/knowledge-base.routes.js';
import { documentSchema, documentSummarySchema } from '../../core/documents/document.schema.js';
import { queryResponseSchema } from '../../core/search/search.schema.js';
import {
  TEST_ADMIN_TOKEN,
  type TestApp,
  client,
  createKey,
  createTenant,
  errorBody,
  ingest,
  startTestApp,
  typed,
  waitForJob,
} from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const PARAGRAPH =
  'Lore splits every document into chunks along paragraph and sentence boundaries. Each chunk is embedded and indexed for keyword search. ';

async function knowledgeBase(app: TestApp, key: string, name = 'docs'): Promise<string> {
  const res = await client(app.url, key)('POST', '/v1/knowledge-bases', { name });
  assert.equal(res.status, 201);
  return typed(res, knowledgeBaseCreatedSchema).body.id;
}

async function override(app: TestApp, tenantId: string, limit_overrides: Record<string, number>) {
  const res = await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${tenantId}`, { limit_overrides });
  assert.equal(res.status, 200);
}

for (const database of testDatabases()) {
  describe(`documents and jobs [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    it('ingests a document asynchronously: 202 with a job that completes with every Job field', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      const api = client(app.url, t.key);
      const content = PARAGRAPH.repeat(30);
      const res = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'Guide', content, tags: { team: 'docs' } });
      assert.equal(res.status, 202);
      const accepted = typed(res, documentAcceptedSchema).body;
      assert.match(accepted.job_id, /^[0-9a-f-]{36}$/);
      const job = await waitForJob(app, t.key, accepted.job_id);
      assert.deepEqual(Object.keys(job).sort(), [
        'attempts', 'completed_at', 'created_at', 'document_id', 'error', 'id', 'job_type', 'knowledge_base_id',
        'processed_chunks', 'status', 'tenant_id', 'total_chunks',
      ]);
      assert.equal(job.status, 'completed');
      assert.equal(job.job_type, 'ingestion');
      assert.equal(job.tenant_id, t.id);
      assert.equal(job.knowledge_base_id, kb);
      assert.equal(job.document_id, accepted.document_id);
      assert.equal(job.error, null);
      assert.ok(job.total_chunks > 1);
      assert.equal(job.processed_chunks, job.total_chunks);
      assert.ok(Date.parse(job.completed_at!) >= Date.parse(job.created_at));

      const doc = await api('GET', `/v1/documents/${accepted.document_id}`);
      assert.equal(doc.status, 200);
      const { body } = typed(doc, documentSchema);
      assert.equal(body.status, 'ready');
      assert.equal(body.content, content);
      assert.equal(body.title, 'Guide');
      assert.deepEqual(body.tags, { team: 'docs' });
      assert.equal(body.chunk_count, job.total_chunks);
      assert.equal(body.language, 'en');
      assert.equal(body.content_bytes, Buffer.byteLength(content));
      assert.equal(body.file, null);
      const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE document_id = $1', [
        accepted.document_id,
      ]);
      assert.equal(rows[0]!.n, job.total_chunks);

      const listed = typed(await api('GET', `/v1/knowledge-bases/${kb}/documents`), z.array(documentSummarySchema)).body;
      assert.deepEqual(listed.map((d) => d.id), [accepted.document_id]);
      assert.ok(listed[0] && !('content' in listed[0]), 'listings leave the content out');
    });

    it('validates the body: 422 for fields, 400 for a malformed knowledge_base_id, 404 for an unknown one', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      const api = client(app.url, t.key);
      const valid = { knowledge_base_id: kb, title: 'T', content: 'Some text.' };
      for (const body of [
        { ...valid, title: '' },
        { ...valid, title: 'x'.repeat(501) },
        { ...valid, content: '' },
        { ...valid, content: '   \n ' },
        { knowledge_base_id: kb, title: 'T' },
        { ...valid, tags: { a: 1 } },
        { ...valid, tags: ['a'] },
        { ...valid, anonymize: 'yes' },
        { ...valid, colour: 'red' },
      ]) {
        const res = await api('POST', '/v1/documents', body);
        assert.equal(res.status, 422, JSON.stringify(body).slice(0, 200));
        assert.equal(errorBody(res).error, 'validation_failed');
      }
      assert.equal((await api('POST', '/v1/documents', { ...valid, title: 'x'.repeat(500) })).status, 202);
      const malformed = await api('POST', '/v1/documents', { ...valid, knowledge_base_id: 'kb-1' });
      assert.equal(malformed.status, 400);
      assert.equal(errorBody(malformed).error, 'invalid_knowledge_base_id');
      const unknown = await api('POST', '/v1/documents', { ...valid, knowledge_base_id: '00000000-0000-4000-8000-000000000000' });
      assert.equal(unknown.status, 404);
      assert.equal(errorBody(unknown).error, 'not_found');
    });

    it('refuses content over the plan max document size and over 10 MB with 413 document_too_large', async () => {
      const free = await createTenant(app, 'free');
      const kb = await knowledgeBase(app, free.key);
      const fiveMb = 5 * 1024 * 1024;
      const over = await client(app.url, free.key)('POST', '/v1/documents', { knowledge_base_id: kb, title: 'big', content: 'a'.repeat(fiveMb + 1) });
      assert.equal(over.status, 413);
      assert.equal(errorBody(over).error, 'document_too_large');
      assert.equal(errorBody(over).limit, fiveMb);

      const ent = await createTenant(app, 'enterprise');
      const kb2 = await knowledgeBase(app, ent.key);
      const tenMb = 10 * 1024 * 1024;
      const huge = await client(app.url, ent.key)('POST', '/v1/documents', { knowledge_base_id: kb2, title: 'big', content: 'b'.repeat(tenMb + 1) });
      assert.equal(huge.status, 413);
      assert.equal(errorBody(huge).error, 'document_too_large');
      assert.equal(errorBody(huge).limit, tenMb);
    });

    it('enforces the document limit (402), storage quota (413) and chunk quota (402)', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      const api = client(app.url, t.key);
      await override(app, t.id, { max_documents: 2 });
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: '1', content: 'one' })).status, 202);
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: '2', content: 'two' })).status, 202);
      const third = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: '3', content: 'three' });
      assert.equal(third.status, 402);
      assert.equal(errorBody(third).error, 'document_limit_reached');

      const s = await createTenant(app);
      const kbS = await knowledgeBase(app, s.key);
      await override(app, s.id, { storage_bytes: 100 });
      const apiS = client(app.url, s.key);
      assert.equal((await apiS('POST', '/v1/documents', { knowledge_base_id: kbS, title: 'a', content: 'x'.repeat(60) })).status, 202);
      const full = await apiS('POST', '/v1/documents', { knowledge_base_id: kbS, title: 'b', content: 'y'.repeat(41) });
      assert.equal(full.status, 413);
      const fullError = errorBody(full);
      assert.equal(fullError.error, 'storage_quota_exceeded');
      assert.equal(fullError.limit, 100);
      assert.equal(fullError.current, 60);
      assert.equal((await apiS('POST', '/v1/documents', { knowledge_base_id: kbS, title: 'c', content: 'y'.repeat(40) })).status, 202);

      const c = await createTenant(app);
      const kbC = await knowledgeBase(app, c.key);
      await override(app, c.id, { max_chunks: 3 });
      const apiC = client(app.url, c.key);
      const many = await apiC('POST', '/v1/documents', { knowledge_base_id: kbC, title: 'many', content: PARAGRAPH.repeat(40) });
      assert.equal(many.status, 402);
      assert.equal(errorBody(many).error, 'chunk_quota_exceeded');
      assert.equal((await apiC('POST', '/v1/documents', { knowledge_base_id: kbC, title: 'few', content: PARAGRAPH })).status, 202);
    });

    it('lets no two concurrent ingests slip under a limit together', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      await override(app, t.id, { max_documents: 3 });
      const api = client(app.url, t.key);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => api('POST', '/v1/documents', { knowledge_base_id: kb, title: `d${i}`, content: `document ${i}` })),
      );
      assert.equal(results.filter((r) => r.status === 202).length, 3);
      assert.equal(results.filter((r) => r.status === 402).length, 7);
      assert.equal(typed(await api('GET', `/v1/knowledge-bases/${kb}/documents`), z.array(documentSummarySchema)).body.length, 3);
    });

    it('deletes a document with its chunks and frees its storage at once', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      await override(app, t.id, { storage_bytes: 10_000 });
      const api = client(app.url, t.key);
      const content = PARAGRAPH.repeat(50);
      const { documentId } = await ingest(app, t.key, { knowledge_base_id: kb, title: 'x', content });
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'y', content })).status, 413);
      const read = client(app.url, await createKey(app, t.key, 'read'));
      assert.equal((await read('DELETE', `/v1/documents/${documentId}`)).status, 403);
      assert.equal((await api('DELETE', `/v1/documents/${documentId}`)).status, 204);
      assert.equal((await api('GET', `/v1/documents/${documentId}`)).status, 404);
      assert.equal((await api('DELETE', `/v1/documents/${documentId}`)).status, 404);
      const { rows } = await app.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE document_id = $1', [documentId]);
      assert.equal(rows[0]!.n, 0);
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'y', content })).status, 202);
    });

    it('anonymizes on request and by the tenant default; the stored and indexed text is the anonymized one', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      const api = client(app.url, t.key);
      const text = 'Contact jan.jansen@example.nl or +31 6 12345678. IBAN NL91ABNA0417164300.';
      const a = await ingest(app, t.key, { knowledge_base_id: kb, title: 'a', content: text, anonymize: true });
      const getDocument = async (id: string) => typed(await api('GET', `/v1/documents/${id}`), documentSchema).body;
      const doc = await getDocument(a.documentId);
      assert.ok(!doc.content.includes('jan.jansen@example.nl'));
      assert.ok(!doc.content.includes('NL91ABNA0417164300'));
      assert.ok(doc.content.includes('[EMAIL]'));
      assert.equal(doc.anonymized, true);
      const { rows } = await app.db.query<{ content: string }>('SELECT content FROM chunks WHERE document_id = $1', [a.documentId]);
      assert.ok(rows.every((r) => !r.content.includes('jan.jansen')));

      const plain = await ingest(app, t.key, { knowledge_base_id: kb, title: 'b', content: text });
      assert.ok((await getDocument(plain.documentId)).content.includes('jan.jansen@example.nl'));

      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { anonymize_default: true });
      const byDefault = await ingest(app, t.key, { knowledge_base_id: kb, title: 'c', content: text });
      assert.ok(!(await getDocument(byDefault.documentId)).content.includes('jan.jansen'));
      const optOut = await ingest(app, t.key, { knowledge_base_id: kb, title: 'd', content: text, anonymize: false });
      assert.ok((await getDocument(optOut.documentId)).content.includes('jan.jansen'));
    });

    it('checks roles: read keys cannot ingest; any key reads documents and jobs', async () => {
      const t = await createTenant(app);
      const kb = await knowledgeBase(app, t.key);
      const read = client(app.url, await createKey(app, t.key, 'read'));
      const denied = await read('POST', '/v1/documents', { knowledge_base_id: kb, title: 'T', content: 'c' });
      assert.equal(denied.status, 403);
      assert.equal(errorBody(denied).error, 'insufficient_role');
      const write = client(app.url, await createKey(app, t.key, 'write'));
      const res = await write('POST', '/v1/documents', { knowledge_base_id: kb, title: 'T', content: 'c' });
      assert.equal(res.status, 202);
      const accepted = typed(res, documentAcceptedSchema).body;
      assert.equal((await read('GET', `/v1/jobs/${accepted.job_id}`)).status, 200);
      assert.equal((await read('GET', `/v1/documents/${accepted.document_id}`)).status, 200);
    });

    it("isolates tenants: B cannot read, list, delete, download or ingest into A's documents and jobs", async () => {
      const a = await createTenant(app);
      const b = await createTenant(app);
      const kb = await knowledgeBase(app, a.key);
      const { documentId, jobId } = await ingest(app, a.key, { knowledge_base_id: kb, title: 'secret', content: 'The launch code is swordfish.' });
      const apiB = client(app.url, b.key);
      for (const [method, path] of [
        ['GET', `/v1/documents/${documentId}`],
        ['GET', `/v1/documents/${documentId}/download`],
        ['DELETE', `/v1/documents/${documentId}`],
        ['GET', `/v1/jobs/${jobId}`],
        ['GET', `/v1/knowledge-bases/${kb}/documents`],
      ] as const) {
        const res = await apiB(method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(errorBody(res).error, 'not_found');
      }
      assert.equal((await apiB('POST', '/v1/documents', { knowledge_base_id: kb, title: 'x', content: 'y' })).status, 404);
      const query = await apiB('POST', '/v1/query', { query: 'launch code swordfish' });
      assert.equal(query.status, 200);
      assert.deepEqual(typed(query, queryResponseSchema).body.results, []);
      assert.equal((await client(app.url, a.key)('GET', `/v1/documents/${documentId}`)).status, 200);
    });
  });
}
