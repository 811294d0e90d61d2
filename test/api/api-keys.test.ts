import assert from 'node:assert/strict';
import { type TestApp, client, createKey, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

for (const database of testDatabases()) {
  describe(`API keys [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get());
    });
    after(() => app.close());

    it('creates a key of the form <prefix>_<random> with at least 256 bits, shown once', async () => {
      const t = await createTenant(app);
      const res = await client(app.url, t.key)('POST', '/v1/auth/keys', { name: 'CI', role: 'read' });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), ['id', 'key']);
      assert.match(res.body.key, /^lore_[A-Za-z0-9_-]{43}$/);
      assert.match(t.key, /^lore_[A-Za-z0-9_-]{43}$/);
      assert.notEqual(res.body.key, t.key);
      const listed = await client(app.url, t.key)('GET', '/v1/auth/keys');
      assert.equal(listed.status, 200);
      const mine = listed.body.find((k: { id: string }) => k.id === res.body.id);
      assert.deepEqual(Object.keys(mine).sort(), ['created_at', 'id', 'key_hint', 'last_used_at', 'name', 'role', 'sub_tenant_id']);
      assert.equal(mine.role, 'read');
      assert.equal(mine.key_hint, res.body.key.slice(-4));
      assert.ok(!JSON.stringify(listed.body).includes(res.body.key));
    });

    it('stores only a hash of each key', async () => {
      const t = await createTenant(app);
      const key = await createKey(app, t.key, 'write');
      const { rows } = await app.db.query('SELECT * FROM api_keys WHERE tenant_id = $1', [t.id]);
      assert.equal(rows.length, 2);
      const dump = JSON.stringify(rows);
      assert.ok(!dump.includes(key) && !dump.includes(t.key));
      assert.ok(!dump.includes(key.slice(5, 20)));
    });

    it('records last_used_at when a key is used', async () => {
      const t = await createTenant(app);
      const key = await createKey(app, t.key, 'read');
      const before = (await client(app.url, t.key)('GET', '/v1/auth/keys')).body.find((k: { role: string }) => k.role === 'read');
      assert.equal(before.last_used_at, null);
      await client(app.url, key)('GET', '/v1/knowledge-bases');
      const after = (await client(app.url, t.key)('GET', '/v1/auth/keys')).body.find((k: { role: string }) => k.role === 'read');
      assert.ok(Date.parse(after.last_used_at) > 0);
    });

    it('writes last_used_at at most once a minute, and again once the stored time is a minute old', async () => {
      const t = await createTenant(app);
      const key = await createKey(app, t.key, 'read');
      const lastUsed = async () => {
        const { rows } = await app.db.query<{ last_used_at: Date }>(`SELECT last_used_at FROM api_keys WHERE tenant_id = $1 AND role = 'read'`, [t.id]);
        return rows[0]!.last_used_at.getTime();
      };
      await client(app.url, key)('GET', '/v1/knowledge-bases');
      const first = await lastUsed();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await client(app.url, key)('GET', '/v1/knowledge-bases');
      assert.equal(await lastUsed(), first, 'a second use within the minute is not written');
      await app.db.query(`UPDATE api_keys SET last_used_at = last_used_at - interval '61 seconds' WHERE tenant_id = $1 AND role = 'read'`, [t.id]);
      const aged = await lastUsed();
      assert.equal((await client(app.url, key)('GET', '/v1/knowledge-bases')).status, 200);
      assert.ok((await lastUsed()) > aged + 60_000, 'a use after the minute is written');
    });

    it('revokes a key with 204; it stops working at once', async () => {
      const t = await createTenant(app);
      const key = await createKey(app, t.key, 'write');
      assert.equal((await client(app.url, key)('GET', '/v1/knowledge-bases')).status, 200);
      const id = (await client(app.url, t.key)('GET', '/v1/auth/keys')).body.find((k: { role: string }) => k.role === 'write').id;
      const del = await client(app.url, t.key)('DELETE', `/v1/auth/keys/${id}`);
      assert.equal(del.status, 204);
      const after = await client(app.url, key)('GET', '/v1/knowledge-bases');
      assert.equal(after.status, 401);
      assert.equal(after.body.error, 'unauthorized');
      assert.equal((await client(app.url, t.key)('DELETE', `/v1/auth/keys/${id}`)).status, 404);
      assert.ok(!(await client(app.url, t.key)('GET', '/v1/auth/keys')).body.some((k: { id: string }) => k.id === id));
    });

    it('answers 401 for missing, malformed, unknown and wrong-scheme credentials', async () => {
      const t = await createTenant(app);
      const cases: Array<Record<string, string>> = [
        {},
        { authorization: '' },
        { authorization: 'Bearer' },
        { authorization: `Basic ${t.key}` },
        { authorization: `Bearer ${t.key}x` },
        { authorization: `Bearer lore_${'A'.repeat(43)}` },
        { authorization: `Bearer other_${t.key.slice(5)}` },
      ];
      for (const headers of cases) {
        const res = await client(app.url)('GET', '/v1/knowledge-bases', undefined, headers);
        assert.equal(res.status, 401, JSON.stringify(headers));
        assert.equal(res.body.error, 'unauthorized');
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      }
      assert.equal((await client(app.url)('GET', '/v1/knowledge-bases', undefined, { authorization: `bearer  ${t.key}` })).status, 200);
    });

    it('requires the admin role for creating, listing and revoking keys', async () => {
      const t = await createTenant(app);
      for (const role of ['read', 'write'] as const) {
        const api = client(app.url, await createKey(app, t.key, role));
        for (const [method, path, body] of [
          ['POST', '/v1/auth/keys', { name: 'x', role: 'read' }],
          ['GET', '/v1/auth/keys', undefined],
          ['DELETE', '/v1/auth/keys/00000000-0000-4000-8000-000000000000', undefined],
        ] as const) {
          const res = await api(method, path, body);
          assert.equal(res.status, 403, `${role} ${method} ${path}`);
          assert.equal(res.body.error, 'insufficient_role');
        }
      }
      const admin = client(app.url, await createKey(app, t.key, 'admin'));
      assert.equal((await admin('POST', '/v1/auth/keys', { name: 'x', role: 'admin' })).status, 201);
    });

    it('validates the body with 422', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      for (const body of [{ name: 'x' }, { role: 'read' }, { name: 'x', role: 'owner' }, { name: '', role: 'read' }, { name: 'x', role: 'read', extra: 1 }]) {
        const res = await api('POST', '/v1/auth/keys', body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.error, 'validation_failed');
      }
    });

    it("isolates tenants: B cannot list or revoke A's keys", async () => {
      const a = await createTenant(app);
      const b = await createTenant(app);
      const aKeys = (await client(app.url, a.key)('GET', '/v1/auth/keys')).body;
      const bKeys = (await client(app.url, b.key)('GET', '/v1/auth/keys')).body;
      assert.equal(bKeys.length, 1);
      assert.ok(!bKeys.some((k: { id: string }) => k.id === aKeys[0].id));
      const res = await client(app.url, b.key)('DELETE', `/v1/auth/keys/${aKeys[0].id}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error, 'not_found');
      assert.equal((await client(app.url, a.key)('GET', '/v1/knowledge-bases')).status, 200);
    });
  });
}
