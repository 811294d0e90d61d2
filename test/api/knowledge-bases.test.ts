import assert from 'node:assert/strict';
import { z } from 'zod';
import { knowledgeBaseCreatedSchema } from '../../api/routes/knowledge-base.routes.js';
import { documentSummarySchema } from '../../core/documents/document.schema.js';
import { knowledgeBaseSchema } from '../../core/knowledge-bases/knowledge-base.schema.js';
import { type ApiClient, type TestApp, client, createKey, createTenant, errorBody, startTestApp, typed } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const knowledgeBaseListSchema = z.array(knowledgeBaseSchema);

/** Lists the knowledge bases a key can see (asserting the 200). */
async function list(api: ApiClient) {
  const res = await api('GET', '/v1/knowledge-bases');
  assert.equal(res.status, 200);
  return typed(res, knowledgeBaseListSchema).body;
}

/** Creates a knowledge base (asserting the 201) and returns its id. */
async function create(api: ApiClient, body: object): Promise<string> {
  const res = await api('POST', '/v1/knowledge-bases', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return typed(res, knowledgeBaseCreatedSchema).body.id;
}

for (const database of testDatabases()) {
  describe(`knowledge bases [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    it('creates with default dimensions 1024 and lists them', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const created = await api('POST', '/v1/knowledge-bases', { name: 'Handbook' });
      assert.equal(created.status, 201);
      const { id } = typed(created, knowledgeBaseCreatedSchema).body;
      assert.deepEqual(Object.keys(created.body), ['id']);
      const listed = await api('GET', '/v1/knowledge-bases');
      assert.equal(listed.status, 200);
      const kbs = typed(listed, knowledgeBaseListSchema).body;
      assert.equal(kbs.length, 1);
      const [kb] = kbs;
      assert.ok(kb);
      assert.deepEqual({ id: kb.id, name: kb.name, dimensions: kb.dimensions }, { id, name: 'Handbook', dimensions: 1024 });
      assert.deepEqual(kb.translation_config, {});
      assert.equal(kb.sub_tenant_id, null);
    });

    it('accepts dimensions 1 and 4096 and names of 1 and 200 characters', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      for (const body of [
        { name: 'x', dimensions: 1 },
        { name: 'y'.repeat(200), dimensions: 4096 },
      ]) {
        assert.equal((await api('POST', '/v1/knowledge-bases', body)).status, 201);
      }
      const dims = (await list(api)).map((kb) => kb.dimensions);
      assert.deepEqual(dims, [1, 4096]);
    });

    it('refuses invalid bodies with 422 naming the fields', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const cases: Array<[unknown, string]> = [
        [{}, 'body.name'],
        [{ name: '' }, 'body.name'],
        [{ name: '   ' }, 'body.name'],
        [{ name: 'z'.repeat(201) }, 'body.name'],
        [{ name: 'a', dimensions: 0 }, 'body.dimensions'],
        [{ name: 'a', dimensions: 4097 }, 'body.dimensions'],
        [{ name: 'a', dimensions: 1.5 }, 'body.dimensions'],
        [{ name: 'a', dimensions: '1024' }, 'body.dimensions'],
        [{ name: 'a', colour: 'red' }, 'body.colour'],
        [{ name: 'a', translation_config: { query_translation: 'sometimes' } }, 'body.translation_config.query_translation'],
        [[1, 2], 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await api('POST', '/v1/knowledge-bases', body);
        assert.equal(res.status, 422, JSON.stringify(body));
        const refused = errorBody(res);
        assert.equal(refused.error, 'validation_failed');
        assert.ok(
          refused.fields?.some((f) => f.field.startsWith(field)),
          `${JSON.stringify(body)} → ${JSON.stringify(refused.fields)}`,
        );
      }
      assert.equal((await list(api)).length, 0);
    });

    it('updates name and translation_config with 204; dimensions are immutable', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const id = await create(api, { name: 'Old', dimensions: 384 });
      assert.equal((await api('PATCH', `/v1/knowledge-bases/${id}`, { name: 'New' })).status, 204);
      const config = { query_translation: 'never', response_translation: 'on_request', preferred_language: 'bg', fallback_behaviour: 'error' };
      const patched = await api('PATCH', `/v1/knowledge-bases/${id}`, { translation_config: config });
      assert.equal(patched.status, 204);
      assert.equal(patched.body, '');

      const dims = await api('PATCH', `/v1/knowledge-bases/${id}`, { name: 'Again', dimensions: 1024 });
      assert.equal(dims.status, 422);
      assert.equal(errorBody(dims).fields?.[0]?.field, 'body.dimensions');
      assert.equal((await api('PATCH', `/v1/knowledge-bases/${id}`, {})).status, 422);
      assert.equal((await api('PATCH', `/v1/knowledge-bases/${id}`, { translation_config: { preferred_language: 'pl' } })).status, 422);

      const [kb] = await list(api);
      assert.ok(kb);
      assert.equal(kb.name, 'New');
      assert.equal(kb.dimensions, 384);
      assert.deepEqual(kb.translation_config, config);
    });

    it('enforces the plan knowledge-base limit with 403 knowledge_base_limit_reached', async () => {
      const free = await createTenant(app, 'free');
      const api = client(app.url, free.key);
      assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'one' })).status, 201);
      const second = await api('POST', '/v1/knowledge-bases', { name: 'two' });
      assert.equal(second.status, 403);
      assert.equal(errorBody(second).error, 'knowledge_base_limit_reached');

      const payg = await createTenant(app, 'payg');
      const paygApi = client(app.url, payg.key);
      for (let i = 0; i < 5; i++) assert.equal((await paygApi('POST', '/v1/knowledge-bases', { name: `kb${i}` })).status, 201);
      assert.equal(errorBody(await paygApi('POST', '/v1/knowledge-bases', { name: 'kb5' })).error, 'knowledge_base_limit_reached');
    });

    it('has no knowledge-base limit on Enterprise', async () => {
      const t = await createTenant(app, 'enterprise');
      const api = client(app.url, t.key);
      for (let i = 0; i < 25; i++) assert.equal((await api('POST', '/v1/knowledge-bases', { name: `kb${i}` })).status, 201);
    });

    it('lets exactly one of several concurrent creates through at the limit', async () => {
      const t = await createTenant(app, 'free');
      const api = client(app.url, t.key);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => api('POST', '/v1/knowledge-bases', { name: `race ${i}` })));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 403, 403, 403, 403, 403, 403, 403]);
      assert.equal((await list(api)).length, 1);
    });

    it('checks roles: read lists only, write creates and updates', async () => {
      const t = await createTenant(app);
      const read = client(app.url, await createKey(app, t.key, 'read'));
      const write = client(app.url, await createKey(app, t.key, 'write'));
      const denied = await read('POST', '/v1/knowledge-bases', { name: 'nope' });
      assert.equal(denied.status, 403);
      assert.equal(errorBody(denied).error, 'insufficient_role');
      const id = await create(write, { name: 'ok' });
      assert.equal((await read('PATCH', `/v1/knowledge-bases/${id}`, { name: 'x' })).status, 403);
      assert.equal((await write('PATCH', `/v1/knowledge-bases/${id}`, { name: 'x' })).status, 204);
      assert.equal((await read('GET', '/v1/knowledge-bases')).status, 200);
      assert.equal((await read('GET', `/v1/knowledge-bases/${id}/documents`)).status, 200);
    });

    it('lists documents of a knowledge base (empty at first) and 404s for unknown ids', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const id = await create(api, { name: 'docs' });
      const docs = await api('GET', `/v1/knowledge-bases/${id}/documents`);
      assert.equal(docs.status, 200);
      assert.deepEqual(typed(docs, z.array(documentSummarySchema)).body, []);
      for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await api('GET', `/v1/knowledge-bases/${bad}/documents`);
        assert.equal(res.status, 404);
        assert.equal(errorBody(res).error, 'not_found');
        assert.equal((await api('PATCH', `/v1/knowledge-bases/${bad}`, { name: 'x' })).status, 404);
      }
    });

    it("isolates tenants: B cannot see, list, patch or list documents of A's knowledge bases", async () => {
      const a = await createTenant(app);
      const b = await createTenant(app);
      const apiA = client(app.url, a.key);
      const apiB = client(app.url, b.key);
      const id = await create(apiA, { name: 'secret' });
      assert.deepEqual(await list(apiB), []);
      const patch = await apiB('PATCH', `/v1/knowledge-bases/${id}`, { name: 'stolen' });
      assert.equal(patch.status, 404);
      assert.equal(errorBody(patch).error, 'not_found');
      assert.equal((await apiB('GET', `/v1/knowledge-bases/${id}/documents`)).status, 404);
      assert.equal((await list(apiA))[0]?.name, 'secret');
    });
  });
}
