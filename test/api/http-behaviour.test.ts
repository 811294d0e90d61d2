import assert from 'node:assert/strict';
import { openPgDatabase } from '../../core/db/pg.database.js';
import { type TestApp, client, createTenant, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';

for (const database of testDatabases()) {
  describe(`HTTP behaviour [${database.name}]`, () => {
    let app: TestApp;
    before(async () => {
      // No job engine runs here: the backlog test's job must wait until it has been counted.
      app = await startTestApp(await database.get(), { jobs: false });
    });
    after(() => app.close());

    it('answers unknown routes with 404 not_found in the error shape', async () => {
      const res = await client(app.url)('GET', '/v1/nothing-here');
      assert.equal(res.status, 404);
      assert.equal(res.body.error, 'not_found');
      assert.equal(typeof res.body.message, 'string');
      assert.equal(res.body.request_id, res.headers.get('x-request-id'));
    });

    it('sends a browser at / to the portal and at /docs to the API reference, and gives API clients a JSON index', async () => {
      const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
      for (const [path, to] of [['/', '/portal'], ['/docs', '/docs/api'], ['/docs/', '/docs/api']]) {
        const res = await fetch(`${app.url}${path}`, { headers: { accept: browser }, redirect: 'manual' });
        assert.equal(res.status, 303, path);
        assert.equal(res.headers.get('location'), to, path);
        assert.match(res.headers.get('vary') ?? '', /accept/i, path);
      }
      const index = { name: 'Lore', portal: '/portal', api_reference: '/docs/api', openapi: '/v1/openapi.json' };
      for (const path of ['/', '/docs']) {
        for (const accept of ['application/json', '*/*', undefined]) {
          const res = await fetch(`${app.url}${path}`, { headers: accept ? { accept } : {}, redirect: 'manual' });
          assert.equal(res.status, 200, `${path} with ${accept}`);
          assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
          assert.deepEqual(await res.json(), index, `${path} with ${accept}`);
        }
      }
      assert.equal((await fetch(`${app.url}/portal`, { redirect: 'manual' })).headers.get('location'), '/portal/sign-in');
      assert.equal((await fetch(`${app.url}/docs/api`)).status, 200);
      assert.equal((await fetch(`${app.url}/v1/openapi.json`)).status, 200);
      // Only GET (and HEAD) are answered there.
      assert.equal((await client(app.url)('POST', '/', {})).status, 404);
    });

    it('answers malformed JSON with 400 invalid_json', async () => {
      const t = await createTenant(app);
      const res = await client(app.url, t.key)('POST', '/v1/knowledge-bases', '{"name":', { 'content-type': 'application/json' });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_json');
    });

    it('answers a non-JSON body with 415', async () => {
      const t = await createTenant(app);
      const res = await client(app.url, t.key)('POST', '/v1/knowledge-bases', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(res.status, 415);
      assert.equal(res.body.error, 'unsupported_media_type');
    });

    it('answers an oversized JSON body with 413', async () => {
      const t = await createTenant(app);
      const res = await client(app.url, t.key)('POST', '/v1/knowledge-bases', { name: 'x'.repeat(2 * 1024 * 1024) });
      assert.equal(res.status, 413);
      assert.equal(res.body.error, 'payload_too_large');
    });

    it('echoes a safe X-Request-Id and makes one otherwise', async () => {
      const echoed = await client(app.url)('GET', '/health/live', undefined, { 'x-request-id': 'abc-123' });
      assert.equal(echoed.headers.get('x-request-id'), 'abc-123');
      const made = await client(app.url)('GET', '/health/live', undefined, { 'x-request-id': 'bad id\u00e9<script>' });
      assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      const err = await client(app.url)('GET', '/v1/knowledge-bases', undefined, { 'x-request-id': 'req-42' });
      assert.equal(err.body.request_id, 'req-42');
    });

    it('serves liveness, readiness and index health without authentication', async () => {
      assert.deepEqual((await client(app.url)('GET', '/health/live')).body, { status: 'ok' });
      assert.deepEqual((await client(app.url)('GET', '/health/ready')).body, { status: 'ok' });
      const index = await client(app.url)('GET', '/health/index');
      // A PostgreSQL without pgvector has no HNSW index to build: exact scans serve, and the probe passes.
      assert.equal(index.status, 200);
      assert.deepEqual(index.body, { idx_chunks_embedding: 'ok', idx_platform_chunks_embedding: 'ok' });
    });

    it('exposes Prometheus metrics labelled by route template', async () => {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const { id } = (await api('POST', '/v1/knowledge-bases', { name: 'm' })).body;
      await api('PATCH', `/v1/knowledge-bases/${id}`, { name: 'n' });
      const metrics = await client(app.url)('GET', '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.headers.get('content-type') ?? '', /text\/plain/);
      const text = metrics.body as string;
      assert.match(text, /lore_http_requests_total\{method="PATCH",route="\/v1\/knowledge-bases\/\{kb_id\}",status="204"\} 1/);
      assert.match(text, /lore_http_request_duration_seconds_bucket\{le="[^"]+",method="POST",route="\/v1\/knowledge-bases",status="201"\}/);
      assert.ok(!text.includes(id), 'raw ids never become labels');
    });

    it('exports the job backlog from the shared queue: due jobs waiting by type, and the age of the oldest', async () => {
      // An app whose engine does not run: what it enqueues waits.
      const idle = await startTestApp(await database.get(), { jobs: false });
      try {
        const t = await createTenant(idle);
        const api = client(idle.url, t.key);
        const kb = (await api('POST', '/v1/knowledge-bases', { name: 'backlog' })).body.id as string;
        const { job_id } = (await api('POST', '/v1/documents', { knowledge_base_id: kb, title: 'Waiting', content: 'Nobody runs me yet.' })).body;
        await idle.db.query("UPDATE jobs SET run_at = now() - interval '90 seconds' WHERE id = $1", [job_id]);
        const text = (await client(idle.url)('GET', '/metrics')).body as string;
        const waiting = /lore_jobs_waiting\{type="ingestion"\} (\d+)/.exec(text);
        assert.ok(waiting && Number(waiting[1]) >= 1, text.slice(0, 2000));
        const oldest = /lore_jobs_oldest_waiting_seconds\{type="ingestion"\} ([\d.e+]+)/.exec(text);
        assert.ok(oldest && Number(oldest[1]) >= 89, oldest?.[0]);
        // The job is run here, so the shared queue is left empty.
        await idle.db.query('UPDATE jobs SET run_at = now() WHERE id = $1', [job_id]);
        await idle.runtime.engine.drain();
        assert.equal((await api('GET', `/v1/jobs/${job_id as string}`)).body.status, 'completed');
      } finally {
        await idle.close();
      }
    });
  });
}

describe('HTTP behaviour with an unreachable database', () => {
  let app: TestApp;
  before(async () => {
    // A real pg adapter pointed at a port where no server listens.
    app = await startTestApp(openPgDatabase('postgres://lore@127.0.0.1:1/nowhere', 1));
  });
  after(async () => {
    await app.close();
    await app.db.close();
  });

  it('reports not ready with 503', async () => {
    const res = await client(app.url)('GET', '/health/ready');
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { status: 'unavailable' });
    assert.equal((await client(app.url)('GET', '/health/live')).status, 200);
  });

  it('answers 500 without internal detail', async () => {
    const res = await client(app.url, `lore_${'a'.repeat(43)}`)('GET', '/v1/knowledge-bases');
    assert.equal(res.status, 500);
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message', 'request_id']);
    assert.equal(res.body.error, 'internal_error');
    assert.ok(!/ECONNREFUSED|127\.0\.0\.1|at /.test(res.body.message));
  });
});
