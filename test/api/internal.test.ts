import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

for (const database of testDatabases()) {
  describe(`internal admin API [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    it('requires the admin token', async () => {
      for (const token of [undefined, 'wrong-token', (await createTenant(app)).key]) {
        const res = await client(app.url, token)('POST', '/internal/v1/tenants', { name: 'x', plan: 'free' });
        assert.equal(res.status, 401);
        assert.equal(res.body.error, 'unauthorized');
      }
    });

    it('is disabled when no admin token is configured', async () => {
      const closed = await startTestApp(app.db, { adminToken: undefined });
      try {
        const res = await client(closed.url, TEST_ADMIN_TOKEN)('GET', '/internal/v1/tenants/00000000-0000-4000-8000-000000000000');
        assert.equal(res.status, 401);
        assert.match(res.body.message, /ADMIN_TOKEN/);
      } finally {
        await closed.close();
      }
    });

    it('lists every tenant, oldest first, to the admin token only', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const first = await createTenant(app);
      const second = await createTenant(app, 'enterprise');
      const res = await admin('GET', '/internal/v1/tenants');
      assert.equal(res.status, 200);
      const ids = res.body.tenants.map((t: { id: string }) => t.id);
      assert.ok(ids.indexOf(first.id) >= 0 && ids.indexOf(first.id) < ids.indexOf(second.id), JSON.stringify(ids));
      const listed = res.body.tenants.find((t: { id: string }) => t.id === second.id);
      assert.deepEqual(listed, (await admin('GET', `/internal/v1/tenants/${second.id}`)).body);
      assert.equal((await client(app.url, second.key)('GET', '/internal/v1/tenants')).status, 401);
    });

    it('creates a tenant with a working admin key, and reads it back', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const email = `ops-${randomUUID()}@acme.example`;
      const res = await admin('POST', '/internal/v1/tenants', { name: 'Acme', plan: 'enterprise', email });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['api_key', 'id', 'portal_invitation']);
      // The address is the tenant's first portal user; with no SMTP the invitation went to the mail folder.
      assert.equal(res.body.portal_invitation.email, email);
      assert.match(res.body.portal_invitation.delivered_to, /lore-test-mail-\d+\/.*\.eml$/);
      const tenant = await admin('GET', `/internal/v1/tenants/${res.body.id}`);
      assert.equal(tenant.status, 200);
      assert.equal(tenant.body.name, 'Acme');
      assert.equal(tenant.body.plan, 'enterprise');
      assert.equal(tenant.body.email, email);
      assert.equal(tenant.body.status, 'active');
      assert.deepEqual(tenant.body.addons, []);
      const keys = await client(app.url, res.body.api_key)('GET', '/v1/auth/keys');
      assert.equal(keys.status, 200);
      assert.equal(keys.body[0].role, 'admin');
    });

    it('validates tenant creation', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      for (const body of [{ name: 'x' }, { name: 'x', plan: 'gold' }, { plan: 'free' }, { name: 'x', plan: 'free', email: 'nope' }]) {
        const res = await admin('POST', '/internal/v1/tenants', body);
        assert.equal(res.status, 422, JSON.stringify(body));
      }
    });

    it('applies support actions: suspension, add-ons, plan, overrides', async () => {
      const t = await createTenant(app, 'free');
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      const res = await admin('PATCH', `/internal/v1/tenants/${t.id}`, {
        status: 'suspended',
        addons: ['transcription'],
        anonymize_default: true,
        limit_overrides: { max_knowledge_bases: 2 },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'suspended');
      assert.deepEqual(res.body.addons, ['transcription']);
      assert.equal(res.body.anonymize_default, true);
      const api = client(app.url, t.key);
      assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'a' })).status, 201);
      assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'b' })).status, 201);
      assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'c' })).body.error, 'knowledge_base_limit_reached');
      assert.equal((await admin('PATCH', `/internal/v1/tenants/${t.id}`, { status: 'frozen' })).status, 422);
      assert.equal((await admin('PATCH', `/internal/v1/tenants/${t.id}`, {})).status, 422);
      assert.equal((await admin('PATCH', `/internal/v1/tenants/${t.id}`, { addons: ['teleport'] })).status, 422);
    });

    it('answers 404 for unknown tenants', async () => {
      const admin = client(app.url, TEST_ADMIN_TOKEN);
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        assert.equal((await admin('GET', `/internal/v1/tenants/${id}`)).status, 404);
        assert.equal((await admin('PATCH', `/internal/v1/tenants/${id}`, { status: 'active' })).status, 404);
        assert.equal((await admin('POST', `/internal/v1/tenants/${id}/api-keys`, {})).status, 404);
      }
    });

    it('issues a recovery admin key after every key was revoked', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const [own] = (await api('GET', '/v1/auth/keys')).body;
      assert.equal((await api('DELETE', `/v1/auth/keys/${own.id}`)).status, 204);
      assert.equal((await api('GET', '/v1/knowledge-bases')).status, 401);
      const issued = await client(app.url, TEST_ADMIN_TOKEN)('POST', `/internal/v1/tenants/${t.id}/api-keys`, {});
      assert.equal(issued.status, 201);
      assert.equal((await client(app.url, issued.body.key)('GET', '/v1/auth/keys')).body[0].role, 'admin');
    });
  });
}
