import assert from 'node:assert/strict';
import { FakeOpenAiEmbeddingsServer } from '../support/fake-openai-embeddings.server.js';
import { type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { pollUntil } from '../support/poll.js';

for (const database of testDatabases()) {
  describe(`query admission: QUERY_CONCURRENCY [${database.name}]`, () => {
    let fake: FakeOpenAiEmbeddingsServer;
    let app: TestApp;

    before(async () => {
      // The embeddings endpoint is an outside service: a local fake that answers slowly on demand
      // and counts the requests it is answering at once (each query embeds its text once).
      fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 32 });
      app = await startTestApp(await database.get(), {
        env: { EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'fake-embed', QUERY_CONCURRENCY: '2' },
      });
    });
    after(async () => {
      await app.close();
      await fake.close();
    });

    it('answers at most QUERY_CONCURRENCY queries at once: the others wait their turn and are all answered, while other requests are served', async () => {
      const tenant = await createTenant(app, 'enterprise');
      const api = client(app.url, tenant.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'admission', dimensions: 32 })).body.id as string;
      await ingest(app, tenant.key, { knowledge_base_id: kb, title: 'Lichens', content: 'Lichens grow on bare rock and old roofs.' });
      // Each admitted query holds its turn for 1.5 s, time enough for all six to arrive even on a
      // busy machine (a fixed wait before reading the gauges once missed some).
      fake.delayMs = 1500;
      fake.maxInFlight = 0;
      const queries = Array.from({ length: 6 }, (_, i) => api('POST', '/v1/query', { query: `lichens on rock ${i}`, knowledge_base_ids: [kb] }));
      let metrics = '';
      await pollUntil(
        'two queries answered and four waiting',
        async () => {
          metrics = (await client(app.url)('GET', '/metrics')).body as string;
          return /^lore_queries_active 2$/m.test(metrics) && /^lore_queries_waiting 4$/m.test(metrics);
        },
        { timeoutMs: 1200, intervalMs: 20, lastSeen: () => metrics.split('\n').filter((l) => l.startsWith('lore_queries_')).join('; ') },
      );
      // Requests that are not queries do not wait for them.
      assert.equal((await client(app.url)('GET', '/health/live')).status, 200);
      assert.equal((await api('GET', '/v1/knowledge-bases')).status, 200);
      const answers = await Promise.all(queries);
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200, 200]);
      assert.ok(answers.every((a) => a.body.results.length === 1));
      assert.equal(fake.maxInFlight, 2, 'two queries embedded at once, never more');
      const after = (await client(app.url)('GET', '/metrics')).body as string;
      assert.match(after, /^lore_queries_active 0$/m);
      assert.match(after, /^lore_queries_waiting 0$/m);
    });
  });
}
