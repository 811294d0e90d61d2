import assert from 'node:assert/strict';
import { LexicalEmbedder } from '../../core/adapters/lexical.embedder.js';
import { passageText } from '../../core/ports/embedder.js';
import { type TestApp, client, createTenant, ingest, startTestApp } from '../support/app.js';
import { testDatabases } from '../support/databases.js';
import { FakeOpenAiEmbeddingsServer } from '../support/fake-openai-embeddings.server.js';
import { type TinyBertModel, buildTinyBertModel } from '../support/tiny-bert-model.js';

const [database] = testDatabases();

/** Ingests two documents and queries them through the whole stack with the configured embedder. */
async function roundTrip(app: TestApp) {
  const t = await createTenant(app);
  const api = client(app.url, t.key);
  const kb = (await api('POST', '/v1/knowledge-bases', { name: 'animals', dimensions: 48 })).body.id;
  const cat = await ingest(app, t.key, { knowledge_base_id: kb, title: 'cat', content: 'the small cat sat on the mat in the house.' });
  await ingest(app, t.key, { knowledge_base_id: kb, title: 'invoice', content: 'the refund of the invoice payment failed with an error.' });
  assert.equal(cat.job.status, 'completed');
  const res = await api('POST', '/v1/query', { query: 'invoice refund payment', top_k: 2 });
  assert.equal(res.status, 200);
  assert.equal(res.body.results[0].document_title, 'invoice');
  const { rows } = await app.db.query<{ embedder: string; dimensions: number; n: number }>(
    'SELECT embedder, dimensions, cardinality(embedding::real[]) AS n FROM chunks WHERE tenant_id = $1 GROUP BY 1, 2, 3',
    [t.id],
  );
  return rows;
}

describe('embedders through the whole stack', () => {
  it('the default lexical embedder records its id and dimension on every chunk', async () => {
    const app = await startTestApp(await database!.get());
    try {
      assert.deepEqual(await roundTrip(app), [{ embedder: 'lexical-v1', dimensions: 48, n: 48 }]);
      // A chunk's vector is of its document's title (twice, for this embedder) and its text.
      const { rows } = await app.db.query<{ title: string; content: string; embedding: number[] }>(
        `SELECT d.title, c.content, c.embedding::real[] AS embedding FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE d.title = 'cat'`,
      );
      const lexical = new LexicalEmbedder();
      assert.equal(passageText(lexical, 'cat', rows[0]!.content), `cat\ncat\n\n${rows[0]!.content}`);
      const expected = lexical.embedText(passageText(lexical, 'cat', rows[0]!.content), 48);
      const untitled = lexical.embedText(rows[0]!.content, 48);
      const distance = (v: Float32Array) => Math.max(...rows[0]!.embedding.map((x, i) => Math.abs(x - v[i]!)));
      assert.ok(distance(expected) < 1e-6, `stored vector differs from the titled passage's by ${distance(expected)}`);
      assert.ok(distance(untitled) > 0.01);
    } finally {
      await app.close();
    }
  });

  it('a local ONNX model directory (a tiny BERT the test builds) embeds offline', async () => {
    let model: TinyBertModel | undefined;
    let app: TestApp | undefined;
    try {
      model = await buildTinyBertModel({ name: 'tiny-bert-e2e' });
      app = await startTestApp(await database!.get(), { env: { EMBEDDER: 'onnx', EMBEDDER_MODEL_DIR: model.dir } });
      assert.deepEqual(await roundTrip(app), [{ embedder: 'onnx:tiny-bert-e2e', dimensions: 48, n: 48 }]);
    } finally {
      await app?.close();
      await model?.remove();
    }
  });

  it('an OpenAI-compatible endpoint (a local fake) embeds in batches', async () => {
    const fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 64 });
    const app = await startTestApp(await database!.get(), {
      env: { EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'fake-embed' },
    });
    try {
      assert.deepEqual(await roundTrip(app), [{ embedder: 'openai:fake-embed', dimensions: 48, n: 48 }]);
      assert.ok(fake.requests.length >= 3);
      assert.ok(fake.requests.every((r) => r.body.model === 'fake-embed'));
      // Chunks are sent as their document's title, a blank line and their text; queries as they are.
      const inputs = fake.requests.flatMap((r) => r.body.input as string[]);
      assert.ok(inputs.includes('cat\n\nthe small cat sat on the mat in the house.'), JSON.stringify(inputs));
      assert.ok(inputs.includes('invoice refund payment'));
    } finally {
      await app.close();
      await fake.close();
    }
  });

  it("a query's vector asked for while the corpora are read: an unknown corpus answers 404 and the embedder's failure is not left unhandled", async () => {
    const fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 64 });
    const app = await startTestApp(await database!.get(), {
      env: { EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'fake-embed' },
    });
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      await api('POST', '/v1/knowledge-bases', { name: 'k', dimensions: 48 });
      fake.delayMs = 50;
      fake.failNext(1, { status: 400, body: { error: { message: 'no' } } });
      const before = fake.requests.length;
      const res = await api('POST', '/v1/query', { query: 'anything at all', corpora: ['no-such-corpus'] });
      assert.equal(res.status, 404);
      assert.equal(res.body.error, 'not_found');
      // The vector was asked for before the corpora were read, and its failure arrives after the answer.
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(fake.requests.length, before + 1);
      assert.deepEqual(unhandled, []);
      // The next query embeds (the fake answers again) and is answered.
      assert.equal((await api('POST', '/v1/query', { query: 'anything at all' })).status, 200);
    } finally {
      process.off('unhandledRejection', record);
      await app.close();
      await fake.close();
    }
  });

  it('sends the vector search before the keyword ranking starts, so the two run at once when the vector comes late', async () => {
    const fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 64 });
    const app = await startTestApp(await database!.get(), {
      env: { EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'fake-embed' },
    });
    const { vectorIndex, keywordIndex } = app.services.adapters;
    const started: string[] = [];
    // Both indexes are the real ones; each call is only noted.
    const vectorSearch = vectorIndex.search.bind(vectorIndex);
    const keywordSearch = keywordIndex.search.bind(keywordIndex);
    vectorIndex.search = (params) => (started.push('vector'), vectorSearch(params));
    keywordIndex.search = (params) => (started.push('keyword'), keywordSearch(params));
    try {
      const t = await createTenant(app);
      const api = client(app.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k', dimensions: 48 })).body.id;
      await ingest(app, t.key, { knowledge_base_id: kb, title: 'invoice', content: 'the refund of the invoice payment failed.' });
      // The query's words are ready long before its vector.
      fake.delayMs = 60;
      const res = await api('POST', '/v1/query', { query: 'invoice refund' });
      assert.equal(res.status, 200);
      assert.equal(res.body.results[0].document_title, 'invoice');
      assert.deepEqual(started, ['vector', 'keyword']);
      // A vector that never comes (the embedder fails) fails the query; the keyword side does not wait forever.
      fake.failNext(1, { status: 400, body: { error: { message: 'no' } } });
      const failed = await api('POST', '/v1/query', { query: 'invoice refund' });
      assert.ok(failed.status >= 400, `status ${failed.status}`);
    } finally {
      await app.close();
      await fake.close();
    }
  });

  it('after a change of model, vector search skips chunks of the old one and the change is reported', async () => {
    const lexical = await startTestApp(await database!.get());
    const fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 64 });
    let other: TestApp | undefined;
    try {
      const t = await createTenant(lexical);
      const api = client(lexical.url, t.key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'k', dimensions: 48 })).body.id;
      await ingest(lexical, t.key, { knowledge_base_id: kb, title: 'old', content: 'zebra crossing rules' });
      other = await startTestApp(lexical.db, { env: { EMBEDDER: 'openai', EMBEDDER_URL: fake.baseUrl, EMBEDDER_MODEL: 'new-model' } });
      const stale = await other.services.health.chunksFromOtherEmbedders('openai:new-model');
      assert.ok(stale.some((s) => s.embedder === 'lexical-v1' && s.chunks > 0));
      // A word with no keyword match: only the vector retriever could find it, and it must not.
      const res = await client(other.url, t.key)('POST', '/v1/query', { query: 'qwxz', top_k: 5 });
      assert.deepEqual(res.body.results, []);
      const keyword = await client(other.url, t.key)('POST', '/v1/query', { query: 'zebra', top_k: 5 });
      assert.equal(keyword.body.results[0].document_title, 'old');
    } finally {
      await other?.close();
      await lexical.close();
      await fake.close();
    }
  });
});
