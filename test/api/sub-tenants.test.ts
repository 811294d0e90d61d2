import assert from 'node:assert/strict';
import { TEST_ADMIN_TOKEN, type TestApp, client, createKey, createTenant, ingest, startTestApp, waitForJob } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const PARAGRAPH = 'Sub-tenants keep their own documents apart from each other and from the parent. ';

for (const database of testDatabases()) {
  describe(`sub-tenants [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    async function enterprise() {
      const t = await createTenant(app, 'enterprise');
      return { ...t, api: client(app.url, t.key) };
    }

    async function subTenant(api: ReturnType<typeof client>, body: Record<string, unknown> = {}) {
      const res = await api('POST', '/v1/sub-tenants', { name: 'Customer', ...body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: string };
    }

    async function subKey(api: ReturnType<typeof client>, id: string, role: 'read' | 'write' = 'write') {
      const res = await api('POST', `/v1/sub-tenants/${id}/api-keys`, { role });
      assert.equal(res.status, 201);
      return res.body.key as string;
    }

    it('creates a sub-tenant with the full record shape', async () => {
      const t = await enterprise();
      const res = await t.api('POST', '/v1/sub-tenants', { name: 'Acme Retail', external_id: 'crm-1', max_documents: 10, storage_quota_bytes: 1000 });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), [
        'created_at', 'external_id', 'id', 'included_queries_per_period', 'max_document_size_bytes', 'max_documents',
        'max_knowledge_bases', 'max_total_chunks', 'name', 'per_user_rate_limit_per_min', 'query_rate_limit_per_min',
        'storage_quota_bytes', 'translation_config', 'updated_at', 'usage',
      ]);
      assert.equal(res.body.name, 'Acme Retail');
      assert.equal(res.body.external_id, 'crm-1');
      assert.equal(res.body.max_documents, 10);
      assert.equal(res.body.max_total_chunks, null);
      assert.deepEqual(res.body.usage, {
        chunks: { used: 0, limit: null },
        documents: { used: 0, limit: 10 },
        queries_this_period: { used: 0, limit: null },
        storage_bytes: { used: 0, limit: 1000 },
        knowledge_bases: 0,
        active_users: 0,
      });
      assert.deepEqual((await t.api('GET', `/v1/sub-tenants/${res.body.id}`)).body.id, res.body.id);
      assert.deepEqual((await t.api('GET', '/v1/sub-tenants')).body.map((s: { id: string }) => s.id), [res.body.id]);
    });

    it('validates names, external ids and limits', async () => {
      const t = await enterprise();
      for (const body of [
        {},
        { name: '' },
        { name: 'x'.repeat(201) },
        { name: 'a', external_id: '' },
        { name: 'a', max_documents: -1 },
        { name: 'a', query_rate_limit_per_min: 0 },
        { name: 'a', storage_quota_bytes: 1.5 },
        { name: 'a', colour: 'red' },
      ]) {
        assert.equal((await t.api('POST', '/v1/sub-tenants', body)).status, 422, JSON.stringify(body));
      }
      assert.equal((await t.api('POST', '/v1/sub-tenants', { name: 'y'.repeat(200) })).status, 201);
    });

    it('returns the existing record (200) for an existing external_id, also under 20 concurrent creates', async () => {
      const t = await enterprise();
      const first = await t.api('POST', '/v1/sub-tenants', { name: 'One', external_id: 'ext-1' });
      const again = await t.api('POST', '/v1/sub-tenants', { name: 'Other name', external_id: 'ext-1' });
      assert.equal(again.status, 200);
      assert.equal(again.body.id, first.body.id);
      assert.equal(again.body.name, 'One');
      const results = await Promise.all(
        Array.from({ length: 20 }, () => t.api('POST', '/v1/sub-tenants', { name: 'Racer', external_id: 'race' })),
      );
      assert.equal(results.filter((r) => r.status === 201).length, 1);
      assert.equal(results.filter((r) => r.status === 200).length, 19);
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sub_tenants WHERE tenant_id = $1 AND external_id = 'race'`, [t.id]);
      assert.equal(rows[0]!.n, 1);
      // External ids are per tenant: another tenant may use the same one.
      const other = await enterprise();
      assert.equal((await other.api('POST', '/v1/sub-tenants', { name: 'Mine', external_id: 'ext-1' })).status, 201);
    });

    it('updates the name and limits; null clears a limit', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api, { max_documents: 5 });
      const res = await t.api('PATCH', `/v1/sub-tenants/${s.id}`, { name: 'Renamed', max_documents: null, max_knowledge_bases: 2 });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'Renamed');
      assert.equal(res.body.max_documents, null);
      assert.equal(res.body.max_knowledge_bases, 2);
      assert.equal((await t.api('PATCH', `/v1/sub-tenants/${s.id}`, {})).status, 422);
      assert.equal((await t.api('PATCH', `/v1/sub-tenants/${s.id}`, { external_id: 'x' })).status, 422);
    });

    it('requires the Enterprise plan, a tenant-level key, and the admin role', async () => {
      const standard = await createTenant(app, 'standard');
      const std = client(app.url, standard.key);
      const t = await enterprise();
      const s = await subTenant(t.api);
      const subWrite = client(app.url, await subKey(t.api, s.id, 'write'));
      const parentWrite = client(app.url, await createKey(app, t.key, 'write'));
      const endpoints: Array<[string, string, unknown?]> = [
        ['POST', '/v1/sub-tenants', { name: 'x' }],
        ['GET', '/v1/sub-tenants'],
        ['GET', `/v1/sub-tenants/${s.id}`],
        ['PATCH', `/v1/sub-tenants/${s.id}`, { name: 'y' }],
        ['DELETE', `/v1/sub-tenants/${s.id}`],
        ['POST', `/v1/sub-tenants/${s.id}/api-keys`, { role: 'read' }],
        ['GET', `/v1/sub-tenants/${s.id}/api-keys`],
        ['DELETE', `/v1/sub-tenants/${s.id}/api-keys/00000000-0000-4000-8000-000000000000`],
        ['GET', `/v1/sub-tenants/${s.id}/usage`],
        ['GET', '/v1/usage/breakdown'],
        ['GET', '/v1/usage/users'],
      ];
      for (const [method, path, body] of endpoints) {
        const plan = await std(method, path, body);
        assert.equal(plan.status, 403, `${method} ${path}`);
        assert.equal(plan.body.error, 'enterprise_plan_required', `${method} ${path}`);
        const scoped = await subWrite(method, path, body);
        assert.equal(scoped.status, 403);
        assert.equal(scoped.body.error, 'sub_tenant_keys_cannot_manage_sub_tenants', `${method} ${path}`);
        const role = await parentWrite(method, path, body);
        assert.equal(role.status, 403);
        assert.equal(role.body.error, 'insufficient_role', `${method} ${path}`);
      }
    });

    it('issues scoped keys (read or write), lists and revokes them', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api);
      const created = await t.api('POST', `/v1/sub-tenants/${s.id}/api-keys`, { role: 'read' });
      assert.equal(created.status, 201);
      assert.equal(created.body.role, 'read');
      assert.equal(created.body.sub_tenant_id, s.id);
      assert.match(created.body.key, /^lore_/);
      assert.equal((await t.api('POST', `/v1/sub-tenants/${s.id}/api-keys`, { role: 'admin' })).status, 422);
      const listed = (await t.api('GET', `/v1/sub-tenants/${s.id}/api-keys`)).body;
      assert.deepEqual(listed.map((k: { id: string }) => k.id), [created.body.id]);
      assert.equal(listed[0].sub_tenant_id, s.id);
      // The parent's own key listing shows every key of the tenant.
      assert.ok((await t.api('GET', '/v1/auth/keys')).body.some((k: { id: string }) => k.id === created.body.id));
      const other = await subTenant(t.api, { name: 'Other' });
      assert.equal((await t.api('DELETE', `/v1/sub-tenants/${other.id}/api-keys/${created.body.id}`)).status, 404);
      assert.equal((await client(app.url, created.body.key)('GET', '/v1/knowledge-bases')).status, 200);
      assert.equal((await t.api('DELETE', `/v1/sub-tenants/${s.id}/api-keys/${created.body.id}`)).status, 204);
      assert.equal((await client(app.url, created.body.key)('GET', '/v1/knowledge-bases')).status, 401);
    });

    it('isolates sub-tenants from each other; the parent sees everything', async () => {
      const t = await enterprise();
      const a = await subTenant(t.api, { name: 'A' });
      const b = await subTenant(t.api, { name: 'B' });
      const keyA = await subKey(t.api, a.id);
      const apiA = client(app.url, keyA);
      const apiB = client(app.url, await subKey(t.api, b.id));
      const kbA = (await apiA('POST', '/v1/knowledge-bases', { name: 'A docs' })).body.id;
      const kbB = (await apiB('POST', '/v1/knowledge-bases', { name: 'B docs' })).body.id;
      const docA = await ingest(app, keyA, { knowledge_base_id: kbA, title: 'A secret', content: 'Project Falcon launches in May.' });
      const form = new FormData();
      form.append('metadata', JSON.stringify({ knowledge_base_id: kbA }));
      form.append('file', new Blob(['A file'], { type: 'text/plain' }), 'a.txt');
      const upload = (await apiA('POST', '/v1/documents/upload', form)).body;
      await waitForJob(app, keyA, upload.job_id);

      const kbsA = (await apiA('GET', '/v1/knowledge-bases')).body;
      assert.deepEqual(kbsA.map((k: { id: string; sub_tenant_id: string }) => [k.id, k.sub_tenant_id]), [[kbA, a.id]]);
      assert.deepEqual((await apiB('GET', '/v1/knowledge-bases')).body.map((k: { id: string }) => k.id), [kbB]);
      for (const [method, path] of [
        ['GET', `/v1/knowledge-bases/${kbA}/documents`],
        ['PATCH', `/v1/knowledge-bases/${kbA}`],
        ['GET', `/v1/documents/${docA.documentId}`],
        ['GET', `/v1/documents/${upload.document_id}/download`],
        ['DELETE', `/v1/documents/${docA.documentId}`],
        ['GET', `/v1/jobs/${docA.jobId}`],
      ] as const) {
        const res = await apiB(method, path, method === 'PATCH' ? { name: 'x' } : undefined);
        assert.equal(res.status, 404, `${method} ${path}`);
      }
      assert.equal((await apiB('POST', '/v1/documents', { knowledge_base_id: kbA, title: 'x', content: 'y' })).status, 404);
      assert.deepEqual((await apiB('POST', '/v1/query', { query: 'Project Falcon launch' })).body.results, []);
      assert.equal((await apiB('POST', '/v1/query', { query: 'x', knowledge_base_ids: [kbA] })).status, 404);
      assert.equal((await apiA('POST', '/v1/query', { query: 'Project Falcon launch' })).body.results[0].document_id, docA.documentId);

      const parentKbs = (await t.api('GET', '/v1/knowledge-bases')).body.map((k: { id: string }) => k.id).sort();
      assert.deepEqual(parentKbs, [kbA, kbB].sort());
      assert.equal((await t.api('GET', `/v1/documents/${docA.documentId}`)).status, 200);
      assert.equal((await t.api('POST', '/v1/query', { query: 'Project Falcon launch' })).body.results[0].document_id, docA.documentId);

      // Another tenant's admin cannot reach the sub-tenant at all.
      const stranger = await enterprise();
      for (const [method, path] of [
        ['GET', `/v1/sub-tenants/${a.id}`],
        ['PATCH', `/v1/sub-tenants/${a.id}`],
        ['DELETE', `/v1/sub-tenants/${a.id}`],
        ['POST', `/v1/sub-tenants/${a.id}/api-keys`],
        ['GET', `/v1/sub-tenants/${a.id}/api-keys`],
        ['GET', `/v1/sub-tenants/${a.id}/usage`],
        ['PATCH', `/v1/sub-tenants/${a.id}/users/u1/preferences`],
      ] as const) {
        const body = method === 'PATCH' && path.endsWith('preferences') ? { translation_config: {} } : method === 'POST' ? { role: 'read' } : method === 'PATCH' ? { name: 'x' } : undefined;
        assert.equal((await stranger.api(method, path, body)).status, 404, `${method} ${path}`);
      }
      assert.deepEqual((await stranger.api('GET', '/v1/sub-tenants')).body, []);
    });

    it('enforces the sub-tenant knowledge-base, document, size, storage and chunk limits at their boundaries', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api, {
        max_knowledge_bases: 1,
        max_documents: 2,
        max_document_size_bytes: 500,
        storage_quota_bytes: 700,
        max_total_chunks: 3,
      });
      const api = client(app.url, await subKey(t.api, s.id));
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'only' })).body.id;
      const kb2 = await api('POST', '/v1/knowledge-bases', { name: 'second' });
      assert.equal(kb2.status, 403);
      assert.equal(kb2.body.error, 'knowledge_base_limit_reached');
      assert.equal(kb2.body.scope, 'sub_tenant');

      const big = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'big', content: 'x'.repeat(501) });
      assert.equal(big.status, 413);
      assert.equal(big.body.error, 'document_too_large');
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'a', content: 'y'.repeat(500) })).status, 202);
      const storage = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'b', content: 'z'.repeat(201) });
      assert.equal(storage.status, 413);
      assert.equal(storage.body.error, 'sub_tenant_storage_quota_exceeded');
      assert.equal(storage.body.current, 500);
      assert.equal(storage.body.limit, 700);
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'c', content: 'w'.repeat(200) })).status, 202);
      const third = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'd', content: 'v' });
      assert.equal(third.status, 403);
      assert.equal(third.body.error, 'sub_tenant_document_limit_reached');

      const c = await subTenant(t.api, { max_total_chunks: 3 });
      const apiC = client(app.url, await subKey(t.api, c.id));
      const kbC = (await apiC('POST', '/v1/knowledge-bases', { name: 'c' })).body.id;
      const chunks = await apiC('POST', '/v1/documents', { knowledge_base_id: kbC, title: 'long', content: PARAGRAPH.repeat(60) });
      assert.equal(chunks.status, 429);
      assert.equal(chunks.body.error, 'sub_tenant_chunk_quota_exceeded');
      // The parent's key writing into the sub-tenant's knowledge base meets the same limits.
      const viaParent = await t.api('POST', '/v1/documents', { knowledge_base_id: kbC, title: 'long', content: PARAGRAPH.repeat(60) });
      assert.equal(viaParent.body.error, 'sub_tenant_chunk_quota_exceeded');
      assert.equal((await apiC('POST', '/v1/documents', { knowledge_base_id: kbC, title: 'short', content: PARAGRAPH })).status, 202);
    });

    it("shares the parent's chunk pool: 429 tenant_pool_quota_exceeded when all sub-tenants together exhaust it", async () => {
      const t = await enterprise();
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { limit_overrides: { max_chunks: 4 } });
      const one = await subTenant(t.api, { name: 'one' });
      const two = await subTenant(t.api, { name: 'two' });
      const keyOne = await subKey(t.api, one.id);
      const keyTwo = await subKey(t.api, two.id);
      const kbOne = (await client(app.url, keyOne)('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      const kbTwo = (await client(app.url, keyTwo)('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      await ingest(app, keyOne, { knowledge_base_id: kbOne, title: '1', content: 'one' });
      await ingest(app, keyOne, { knowledge_base_id: kbOne, title: '2', content: 'two' });
      await ingest(app, keyTwo, { knowledge_base_id: kbTwo, title: '3', content: 'three' });
      await ingest(app, keyTwo, { knowledge_base_id: kbTwo, title: '4', content: 'four' });
      const full = await client(app.url, keyOne)('POST', '/v1/documents', { knowledge_base_id: kbOne, title: '5', content: 'five' });
      assert.equal(full.status, 429);
      assert.equal(full.body.error, 'tenant_pool_quota_exceeded');
      // The parent's own knowledge base meets its plan's chunk quota as usual.
      const kbParent = (await t.api('POST', '/v1/knowledge-bases', { name: 'own' })).body.id;
      const own = await t.api('POST', '/v1/documents', { knowledge_base_id: kbParent, title: '6', content: 'six' });
      assert.equal(own.status, 402);
      assert.equal(own.body.error, 'chunk_quota_exceeded');
    });

    it('holds sub-tenant limits under concurrency', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api, { max_documents: 3 });
      const key = await subKey(t.api, s.id);
      const api = client(app.url, key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => app.services.documents.ingest({ tenantId: t.id, subTenantId: s.id }, { knowledge_base_id: kb, title: `d${i}`, content: 'c' }).then(
          () => 202,
          (e: { status: number }) => e.status,
        )),
      );
      assert.deepEqual(results.sort(), [202, 202, 202, 403, 403, 403, 403, 403, 403, 403]);
    });

    it('applies the sub-tenant query rate limit and included queries', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api, { query_rate_limit_per_min: 3, included_queries_per_period: 4 });
      const api = client(app.url, await subKey(t.api, s.id, 'read'), { strict: true });
      for (let i = 0; i < 3; i++) assert.equal((await api('POST', '/v1/query', { query: `q${i}` })).status, 200);
      const limited = await api('POST', '/v1/query', { query: 'q3' });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, 'rate_limit_exceeded');
      assert.ok(Number(limited.headers.get('retry-after')) >= 1);

      const q = await subTenant(t.api, { included_queries_per_period: 2 });
      const apiQ = client(app.url, await subKey(t.api, q.id, 'read'), { strict: true });
      assert.equal((await apiQ('POST', '/v1/query', { query: 'a' })).status, 200);
      assert.equal((await apiQ('POST', '/v1/query', { query: 'b' })).status, 200);
      const over = await apiQ('POST', '/v1/query', { query: 'c' });
      assert.equal(over.status, 402);
      assert.equal(over.body.error, 'quota_exhausted');
      assert.equal(over.body.scope, 'sub_tenant');
      // The parent is not capped by its sub-tenant's budget.
      assert.equal((await t.api('POST', '/v1/query', { query: 'parent' })).status, 200);
    });

    it('limits queries per end user (X-User-Id), configurable per sub-tenant and tenant', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api, { per_user_rate_limit_per_min: 2 });
      const api = client(app.url, await subKey(t.api, s.id, 'read'), { strict: true });
      const as = (user: string) => ({ 'x-user-id': user });
      assert.equal((await api('POST', '/v1/query', { query: 'a' }, as('alice'))).status, 200);
      assert.equal((await api('POST', '/v1/query', { query: 'b' }, as('alice'))).status, 200);
      const third = await api('POST', '/v1/query', { query: 'c' }, as('alice'));
      assert.equal(third.status, 429);
      assert.equal(third.body.error, 'per_user_rate_limit_exceeded');
      assert.ok(Number(third.headers.get('retry-after')) >= 1);
      assert.equal((await api('POST', '/v1/query', { query: 'd' }, as('bob'))).status, 200);
      assert.equal((await api('POST', '/v1/query', { query: 'e' })).status, 200, 'no X-User-Id: no per-user limit');

      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { per_user_rate_limit_per_min: 1 });
      const parent = client(app.url, t.key, { strict: true });
      assert.equal((await parent('POST', '/v1/query', { query: 'f' }, as('carol'))).status, 200);
      assert.equal((await parent('POST', '/v1/query', { query: 'g' }, as('carol'))).body.error, 'per_user_rate_limit_exceeded');
      const ledger = await app.db.query<{ user_id: string; n: number }>(
        `SELECT user_id, count(*)::int AS n FROM usage_events WHERE tenant_id = $1 AND event_type = 'query' AND user_id IS NOT NULL GROUP BY 1 ORDER BY 1`,
        [t.id],
      );
      assert.deepEqual(ledger.rows, [{ user_id: 'alice', n: 2 }, { user_id: 'bob', n: 1 }, { user_id: 'carol', n: 1 }]);
    });

    it('reports exact usage per sub-tenant, in the breakdown and active users', async () => {
      const t = await enterprise();
      const a = await subTenant(t.api, { name: 'A', max_total_chunks: 1000 });
      const b = await subTenant(t.api, { name: 'B' });
      const keyA = await subKey(t.api, a.id);
      const apiA = client(app.url, keyA);
      const kb = (await apiA('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      const d1 = await ingest(app, keyA, { knowledge_base_id: kb, title: '1', content: PARAGRAPH.repeat(30) });
      const d2 = await ingest(app, keyA, { knowledge_base_id: kb, title: '2', content: 'small' });
      for (const user of ['u1', 'u2', 'u1']) await apiA('POST', '/v1/query', { query: 'apart' }, { 'x-user-id': user });
      await apiA('POST', '/v1/query', { query: 'no user' });
      const parentKb = (await t.api('POST', '/v1/knowledge-bases', { name: 'own' })).body.id;
      const own = await ingest(app, t.key, { knowledge_base_id: parentKb, title: 'own', content: 'parent text' });
      assert.equal((await apiA('DELETE', `/v1/documents/${d2.documentId}`)).status, 204);

      const usage = await t.api('GET', `/v1/sub-tenants/${a.id}/usage`);
      assert.deepEqual(usage.body, {
        chunks: { used: d1.job.total_chunks, limit: 1000 },
        documents: { used: 1, limit: null },
        queries_this_period: { used: 4, limit: null },
        storage_bytes: { used: Buffer.byteLength(PARAGRAPH.repeat(30)), limit: null },
        active_users: 2,
      });
      const mine = (await apiA('GET', '/v1/usage')).body;
      assert.equal(mine.chunks.used, d1.job.total_chunks);
      assert.equal(mine.chunks.limit, 1000);
      assert.equal(mine.queries_this_period.used, 4);
      assert.deepEqual(mine.knowledge_bases, { used: 1, limit: null });

      const breakdown = (await t.api('GET', '/v1/usage/breakdown')).body;
      assert.deepEqual(breakdown, {
        sub_tenants: [
          { sub_tenant_id: a.id, name: 'A', chunks: d1.job.total_chunks, queries_this_period: 4, active_users: 2 },
          { sub_tenant_id: b.id, name: 'B', chunks: 0, queries_this_period: 0, active_users: 0 },
        ],
        total_chunks: d1.job.total_chunks + own.job.total_chunks,
      });
      assert.deepEqual((await t.api('GET', '/v1/usage/users')).body, [
        { sub_tenant_id: a.id, name: 'A', active_users: 2 },
        { sub_tenant_id: b.id, name: 'B', active_users: 0 },
      ]);
      const tenantUsage = (await t.api('GET', '/v1/usage')).body;
      assert.equal(tenantUsage.queries_this_period.used, 4);
      assert.equal(tenantUsage.documents.used, 2);
    });

    it('deletes a sub-tenant with all its data and frees the parent quotas', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api);
      const key = await subKey(t.api, s.id);
      const kb = (await client(app.url, key)('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      const doc = await ingest(app, key, { knowledge_base_id: kb, title: 'gone', content: 'This will be deleted.' });
      await client(app.url, key)('POST', '/v1/query', { query: 'x' }, { 'x-user-id': 'someone' });
      assert.equal((await t.api('GET', '/v1/usage')).body.documents.used, 1);
      assert.equal((await t.api('DELETE', `/v1/sub-tenants/${s.id}`)).status, 204);
      assert.equal((await t.api('GET', `/v1/sub-tenants/${s.id}`)).status, 404);
      assert.equal((await t.api('DELETE', `/v1/sub-tenants/${s.id}`)).status, 404);
      assert.equal((await client(app.url, key)('GET', '/v1/knowledge-bases')).status, 401);
      assert.equal((await t.api('GET', `/v1/documents/${doc.documentId}`)).status, 404);
      const usage = (await t.api('GET', '/v1/usage')).body;
      assert.equal(usage.documents.used, 0);
      assert.equal(usage.chunks.used, 0);
      assert.equal(usage.knowledge_bases.used, 0);
      for (const table of ['knowledge_bases', 'documents', 'chunks', 'api_keys', 'jobs', 'document_files', 'active_users', 'end_user_preferences', 'storage_usage']) {
        const { rows } = await app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE sub_tenant_id::text = $1`, [s.id]).catch(
          async () => app.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} r WHERE r::text LIKE $1`, [`%${s.id}%`]),
        );
        assert.equal(rows[0]!.n, 0, table);
      }
    });

    it('stores per-user translation preferences (Enterprise only)', async () => {
      const t = await enterprise();
      const s = await subTenant(t.api);
      const config = { response_translation: 'always', preferred_language: 'de' };
      const res = await t.api('PATCH', `/v1/sub-tenants/${s.id}/users/user-42/preferences`, { translation_config: config });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { sub_tenant_id: s.id, user_id: 'user-42', translation_config: config });
      const preferencesOf = (userId: string) => app.services.subTenants.userPreferences({ tenantId: t.id, subTenantId: s.id, userId });
      assert.deepEqual(await preferencesOf('user-42'), config);
      const update = { query_translation: 'never' };
      await t.api('PATCH', `/v1/sub-tenants/${s.id}/users/user-42/preferences`, { translation_config: update });
      assert.deepEqual(await preferencesOf('user-42'), update);
      assert.equal((await t.api('PATCH', `/v1/sub-tenants/${s.id}/users/u/preferences`, { translation_config: { preferred_language: 'pl' } })).status, 422);
      assert.equal((await t.api('PATCH', `/v1/sub-tenants/${s.id}/users/${'u'.repeat(257)}/preferences`, { translation_config: {} })).status, 422);
      assert.equal((await t.api('PATCH', '/v1/sub-tenants/00000000-0000-4000-8000-000000000000/users/u/preferences', { translation_config: {} })).status, 404);

      const standard = await createTenant(app, 'standard');
      const denied = await client(app.url, standard.key)('PATCH', `/v1/sub-tenants/${s.id}/users/u/preferences`, { translation_config: {} });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error, 'enterprise_only');
    });
  });
}
