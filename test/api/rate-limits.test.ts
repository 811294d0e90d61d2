import assert from 'node:assert/strict';
import { loadConfig } from '../../core/config.js';
import { TEST_ADMIN_TOKEN, type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { startServerProcess, stopServerProcess } from '../support/process.js';

/**
 * Sends `size` requests at once and returns their answers, once the burst ended within one second
 * of its start. A per-second window opens at a key's first request, so only such a burst shows
 * the limit exactly; on a busy machine a burst can take longer and spill into the next window.
 * Then it waits for that window to close and sends the burst again, at most five times.
 */
async function burstWithinOneSecond<T>(size: number, send: (i: number) => Promise<T>): Promise<T[]> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: size }, (_, i) => send(i)));
    if (performance.now() - started < 1000) return results;
    await new Promise((r) => setTimeout(r, 1100));
  }
  throw new Error(`no burst of ${size} requests ended within one second in five attempts: the machine is too busy to test a per-second limit`);
}

for (const database of testDatabases()) {
  describe(`rate limits [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(await database.get(), { env: { TRUSTED_PROXIES: 'loopback' } });
    });
    after(() => app.close());

    it('lets the 10th query of a minute through on Free and refuses the 11th with 429 and Retry-After', async () => {
      const t = await createTenant(app, 'free');
      const api = client(app.url, t.key, { strict: true });
      for (let i = 1; i <= 10; i++) {
        const res = await api('POST', '/v1/query', { query: `question ${i}` });
        assert.equal(res.status, 200, `query ${i}`);
        assert.equal(res.headers.get('x-ratelimit-limit'), '10');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(10 - i));
        const reset = Number(res.headers.get('x-ratelimit-reset'));
        assert.ok(reset >= 1 && reset <= 60, `reset ${reset}`);
      }
      const refused = await api('POST', '/v1/query', { query: 'one too many' });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, 'rate_limit_exceeded');
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(refused.body.retry_after, retryAfter);
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
      // Another tenant has its own minute.
      const other = await createTenant(app, 'free');
      assert.equal((await client(app.url, other.key, { strict: true })('POST', '/v1/query', { query: 'x' })).status, 200);
      // The refused query was not counted as a query.
      assert.equal((await client(app.url, t.key)('GET', '/v1/usage')).body.queries_this_period.used, 10);
    });

    it('uses the plan limit per minute, or support override', async () => {
      const t = await createTenant(app, 'enterprise');
      const res = await client(app.url, t.key, { strict: true })('POST', '/v1/query', { query: 'x' });
      assert.equal(res.headers.get('x-ratelimit-limit'), '500');
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { limit_overrides: { query_rate_limit_per_min: 3 } });
      const api = client(app.url, t.key, { strict: true });
      assert.equal((await api('POST', '/v1/query', { query: 'x' })).headers.get('x-ratelimit-limit'), '3');
    });

    it('keeps the count of the current minute when support changes the limit', async () => {
      const t = await createTenant(app, 'free');
      const api = client(app.url, t.key, { strict: true });
      for (let i = 0; i < 5; i++) assert.equal((await api('POST', '/v1/query', { query: `q${i}` })).status, 200);
      await client(app.url, TEST_ADMIN_TOKEN)('PATCH', `/internal/v1/tenants/${t.id}`, { limit_overrides: { query_rate_limit_per_min: 6 } });
      const sixth = await api('POST', '/v1/query', { query: 'q5' });
      assert.equal(sixth.status, 200);
      assert.equal(sixth.headers.get('x-ratelimit-remaining'), '0');
      assert.equal((await api('POST', '/v1/query', { query: 'q6' })).status, 429);
    });

    it('allows 20 queries per second per key and refuses the 21st', async () => {
      const t = await createTenant(app, 'enterprise');
      const api = client(app.url, t.key, { strict: true });
      const results = await burstWithinOneSecond(21, (i) => api('POST', '/v1/query', { query: `burst ${i}` }));
      assert.equal(results.filter((r) => r.status === 200).length, 20);
      const refused = results.filter((r) => r.status === 429);
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.body.error, 'rate_limit_exceeded');
      assert.ok(Number(refused[0]!.headers.get('retry-after')) >= 1);
    });

    it('allows 10 document requests per second per key, ingest and upload together', async () => {
      const t = await createTenant(app, 'enterprise');
      const api = client(app.url, t.key, { strict: true });
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k' })).body.id;
      const upload = () => {
        const form = new FormData();
        form.append('metadata', JSON.stringify({ knowledge_base_id: kb }));
        form.append('file', new Blob(['uploaded'], { type: 'text/plain' }), 'u.txt');
        return api('POST', '/v1/documents/upload', form);
      };
      const results = await burstWithinOneSecond(11, (i) =>
        i === 0 ? upload() : api('POST', '/v1/documents', { knowledge_base_id: kb, title: `d${i}`, content: 'text' }),
      );
      assert.equal(results.filter((r) => r.status === 202).length, 10);
      assert.equal(results.filter((r) => r.status === 429).length, 1);
    });

    it('allows 100 requests per second per client IP across all endpoints', async () => {
      const raw = client(app.url, undefined, { strict: true });
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const results = await burstWithinOneSecond(101, (i) => raw(i % 2 ? 'GET' : 'POST', '/v1/nothing', undefined, from('203.0.113.5')));
      const refused = results.filter((r) => r.status === 429);
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.body.error, 'rate_limit_exceeded');
      // Another client behind the trusted proxy has its own budget.
      assert.equal((await raw('GET', '/v1/nothing', undefined, from('203.0.113.6'))).status, 404);
    });

    it('ignores X-Forwarded-For from proxies that are not trusted', async () => {
      const untrusting = await startTestApp(app.db, { jobs: false });
      try {
        const raw = client(untrusting.url, undefined, { strict: true });
        // A client cannot escape the limit by inventing addresses.
        const results = await burstWithinOneSecond(101, (i) => raw('GET', '/v1/nothing', undefined, { 'x-forwarded-for': `198.51.100.${i}` }));
        assert.equal(results.filter((r) => r.status === 429).length, 1);
      } finally {
        await untrusting.close();
      }
    });

    it('shares one limit between two API instances using the PostgreSQL store', async () => {
      const env = { RATE_LIMIT_STORE: 'postgres' };
      const a = await startTestApp(app.db, { env, jobs: false });
      const b = await startTestApp(app.db, { env, jobs: false });
      try {
        const t = await createTenant(a, 'free');
        const results = [];
        for (let i = 0; i < 11; i++) {
          const target = i % 2 ? b : a;
          results.push((await client(target.url, t.key, { strict: true })('POST', '/v1/query', { query: `q${i}` })).status);
        }
        assert.deepEqual(results, [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429]);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}

const postgres = testDatabases().find((d) => d.name === 'postgres');
if (postgres) {
  describe('rate limits across two API processes on one PostgreSQL', function () {
    this.timeout(120_000);
    it('enforce one shared per-tenant limit', async () => {
      await postgres.get(); // migrated
      const env = {
        DATABASE_URL: (loadConfig().database as { url: string }).url,
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        LOG_LEVEL: 'info',
        JOBS_ENABLED: 'false',
      };
      const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
      try {
        const tenant = (await client(a.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/tenants', { name: 'shared', plan: 'free' })).body;
        const statuses = [];
        for (let i = 0; i < 11; i++) {
          const target = i % 2 ? b : a;
          statuses.push((await client(target.url, tenant.api_key, { strict: true })('POST', '/v1/query', { query: `q${i}` })).status);
        }
        assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429]);
      } finally {
        await Promise.all([stopServerProcess(a), stopServerProcess(b)]);
      }
    });
  });
}
