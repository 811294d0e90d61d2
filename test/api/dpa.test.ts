import assert from 'node:assert/strict';
import { type TestApp, client, createKey, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

const HEADER = 'x-dpa-action-required';

for (const database of testDatabases()) {
  describe(`data-processing agreement [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    it('asks for acceptance on every response until the current version is accepted', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const status = await api('GET', '/v1/dpa/status');
      assert.deepEqual(status.body, { compliant: false, current_version: 1, accepted_version: null });
      assert.equal(status.headers.get(HEADER), 'DPA re-acceptance required');
      assert.equal((await api('GET', '/v1/knowledge-bases')).headers.get(HEADER), 'DPA re-acceptance required');
      assert.equal((await api('POST', '/v1/knowledge-bases', { name: '' })).headers.get(HEADER), 'DPA re-acceptance required');

      const wrong = await api('POST', '/v1/dpa/accept', { version: 2 });
      assert.equal(wrong.status, 422);
      assert.equal(wrong.body.error, 'dpa_version_mismatch');
      assert.equal((await api('POST', '/v1/dpa/accept', { version: 'one' })).status, 422);

      const accepted = await api('POST', '/v1/dpa/accept', { version: 1 }, { 'x-accepted-by': 'Jane Doe, DPO' });
      assert.equal(accepted.status, 200);
      assert.deepEqual(accepted.body, { status: 'accepted', dpa_version: 1 });
      assert.equal(accepted.headers.get(HEADER), null);
      assert.equal((await api('GET', '/v1/knowledge-bases')).headers.get(HEADER), null);
      assert.deepEqual((await api('GET', '/v1/dpa/status')).body, { compliant: true, current_version: 1, accepted_version: 1 });

      const { rows } = await app.db.query<{ version: number; accepted_by: string; api_key_id: string }>(
        'SELECT version, accepted_by, api_key_id FROM dpa_acceptances WHERE tenant_id = $1',
        [t.id],
      );
      const [ownKey] = (await api('GET', '/v1/auth/keys')).body;
      assert.deepEqual(rows, [{ version: 1, accepted_by: 'Jane Doe, DPO', api_key_id: ownKey.id }]);
    });

    it('asks again when the instance moves to a new version', async () => {
      const t = await createTenant(app);
      await client(app.url, t.key)('POST', '/v1/dpa/accept', { version: 1 });
      const v2 = await startTestApp(app.db, { env: { DPA_CURRENT_VERSION: '2' }, jobs: false });
      try {
        const api = client(v2.url, t.key);
        const status = await api('GET', '/v1/dpa/status');
        assert.deepEqual(status.body, { compliant: false, current_version: 2, accepted_version: 1 });
        assert.equal(status.headers.get(HEADER), 'DPA re-acceptance required');
        assert.equal((await api('POST', '/v1/dpa/accept', { version: 1 })).status, 422);
        assert.equal((await api('POST', '/v1/dpa/accept', { version: 2 })).status, 200);
        assert.equal((await api('GET', '/v1/dpa/status')).headers.get(HEADER), null);
      } finally {
        await v2.close();
      }
    });

    it('lets any key read the status, and only admin keys accept', async () => {
      const t = await createTenant(app);
      const write = client(app.url, await createKey(app, t.key, 'write'));
      const read = client(app.url, await createKey(app, t.key, 'read'));
      assert.equal((await read('GET', '/v1/dpa/status')).status, 200);
      assert.equal((await write('POST', '/v1/dpa/accept', { version: 1 })).status, 403);
      assert.equal((await client(app.url, t.key)('POST', '/v1/dpa/accept', { version: 1 }, { 'x-accepted-by': 'x'.repeat(201) })).status, 422);
    });

    it("keeps tenants apart: one tenant's acceptance says nothing about another's", async () => {
      const a = await createTenant(app);
      const b = await createTenant(app);
      await client(app.url, a.key)('POST', '/v1/dpa/accept', { version: 1 });
      assert.equal((await client(app.url, b.key)('GET', '/v1/dpa/status')).body.compliant, false);
    });
  });
}
