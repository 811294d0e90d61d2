import assert from 'node:assert/strict';
import { type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

/**
 * Spec §8 "Request and field bounds", each at its edge on every engine: the longest value is taken
 * and stored (a column narrower than the bound fails on one engine only), one more is refused with
 * 422. Values are Cyrillic, two bytes a character in UTF-8, so a bound counted in bytes shows too.
 */
const text = (chars: number) => 'ж'.repeat(chars);

for (const database of testDatabases()) {
  describe(`field bounds of spec §8 at their edges [${database.name}]`, () => {
    let app: TestApp;
    let api: ReturnType<typeof client>;
    let kb: string;
    before(async () => {
      app = await startTestApp(await database.get());
      api = client(app.url, (await createTenant(app, 'enterprise')).key);
      const res = await api('POST', '/v1/knowledge-bases', { name: text(200), dimensions: 4096 });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      kb = res.body.id as string;
    });
    after(() => app.close());

    it('knowledge base name 1-200 characters, dimensions 1-4096', async () => {
      const listed = (await api('GET', '/v1/knowledge-bases')).body as Array<{ id: string; name: string; dimensions: number }>;
      const stored = listed.find((k) => k.id === kb)!;
      assert.deepEqual([stored.name, stored.dimensions], [text(200), 4096]);
      for (const body of [{ name: text(201) }, { name: '' }, { name: 'x', dimensions: 4097 }, { name: 'x', dimensions: 0 }]) {
        assert.equal((await api('POST', '/v1/knowledge-bases', body)).status, 422, JSON.stringify(body).slice(0, 60));
      }
    });

    it('sub-tenant name 1-200 characters', async () => {
      const created = await api('POST', '/v1/sub-tenants', { name: text(200) });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await api('GET', `/v1/sub-tenants/${created.body.id}`)).body.name, text(200));
      assert.equal((await api('POST', '/v1/sub-tenants', { name: text(201) })).status, 422);
    });

    it('document title 1-500 characters', async () => {
      const accepted = await api('POST', '/v1/documents', { knowledge_base_id: kb, title: text(500), content: 'A document with the longest title.' });
      assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
      assert.equal((await api('GET', `/v1/documents/${accepted.body.document_id}`)).body.title, text(500));
      assert.equal((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: text(501), content: 'x' })).status, 422);
    });

    it('query text 1-4096 characters, top_k 1-100', async () => {
      assert.equal((await api('POST', '/v1/query', { query: text(4096), top_k: 100 })).status, 200);
      for (const body of [{ query: text(4097) }, { query: '' }, { query: 'x', top_k: 101 }, { query: 'x', top_k: 0 }]) {
        assert.equal((await api('POST', '/v1/query', body)).status, 422, JSON.stringify(body).slice(0, 60));
      }
    });

    it('X-User-Id up to 256 characters: counted, limited and given preferences, on a sub-tenant key too', async () => {
      // A header holds Latin-1 only: the longest id in ASCII.
      const user = 'u'.repeat(256);
      assert.equal((await api('POST', '/v1/query', { query: 'x' }, { 'x-user-id': user })).status, 200);
      assert.equal((await api('POST', '/v1/query', { query: 'x' }, { 'x-user-id': `${user}u` })).status, 422);
      const sub = await api('POST', '/v1/sub-tenants', { name: 'Customer' });
      const subKey = await api('POST', `/v1/sub-tenants/${sub.body.id}/api-keys`, { name: 'k', role: 'read' });
      assert.equal(subKey.status, 201, JSON.stringify(subKey.body));
      const preferences = { translation_config: { query_translation: 'never' } };
      const stored = await api('PATCH', `/v1/sub-tenants/${sub.body.id}/users/${encodeURIComponent(user)}/preferences`, preferences);
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      assert.equal(stored.body.user_id, user);
      const tooLong = await api('PATCH', `/v1/sub-tenants/${sub.body.id}/users/${`${user}u`}/preferences`, preferences);
      assert.equal(tooLong.status, 422);
      const asUser = client(app.url, subKey.body.key as string);
      assert.equal((await asUser('POST', '/v1/query', { query: 'x' }, { 'x-user-id': user })).status, 200);
      const usage = await api('GET', `/v1/sub-tenants/${sub.body.id}/usage`);
      assert.equal(usage.body.active_users, 1, JSON.stringify(usage.body));
    });
  });
}
