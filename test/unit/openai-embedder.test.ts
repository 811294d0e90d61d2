import assert from 'node:assert/strict';
import { fitDimensions, normalisedFloat32 } from '../../core/adapters/fit-dimensions.js';
import { OpenAiEmbedder } from '../../core/adapters/openai.embedder.js';
import type { OpenAiEmbedderOptions } from '../../core/adapters/openai.embedder.js';
import { EmbedderError } from '../../core/ports/embedder.js';
import { FakeOpenAiEmbeddingsServer } from '../support/fake-openai-embeddings.server.js';

const API_KEY = 'sk-test-0123456789abcdefSECRET';

describe('OpenAiEmbedder', () => {
  let fake: FakeOpenAiEmbeddingsServer;

  beforeEach(async () => {
    fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 24, apiKey: API_KEY });
  });

  afterEach(async () => {
    await fake.close();
  });

  const embedder = (options: Partial<OpenAiEmbedderOptions> = {}): OpenAiEmbedder =>
    new OpenAiEmbedder({ baseUrl: fake.baseUrl, model: 'fake-embed', apiKey: API_KEY, retryBaseDelayMs: 1, ...options });

  const expected = (text: string, native: number, dimensions: number): Float32Array =>
    fitDimensions(Float32Array.from(FakeOpenAiEmbeddingsServer.vectorFor(text, native)), dimensions);

  const rejection = async (promise: Promise<unknown>): Promise<EmbedderError> => {
    try {
      await promise;
    } catch (error) {
      assert.ok(error instanceof EmbedderError, `expected an EmbedderError, got ${String(error)}`);
      return error;
    }
    assert.fail('expected the promise to reject');
  };

  it("is identified as 'openai:<model>'", () => {
    assert.equal(embedder().id, 'openai:fake-embed');
  });

  it('speaks the wire format: model, input, float encoding and a bearer key', async () => {
    const vectors = await embedder().embed(['hello', 'world'], { dimensions: 24, kind: 'document' });
    assert.equal(fake.requests.length, 1);
    const [request] = fake.requests;
    assert.equal(request?.path, '/v1/embeddings');
    assert.deepEqual(request?.body, { model: 'fake-embed', input: ['hello', 'world'], encoding_format: 'float' });
    assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.deepEqual(vectors, [expected('hello', 24, 24), expected('world', 24, 24)]);
  });

  it('sends no Authorization header without a key, and tolerates a base URL ending in /v1', async () => {
    await fake.close();
    fake = await FakeOpenAiEmbeddingsServer.start({ dimensions: 8 });
    await embedder({ apiKey: undefined, baseUrl: `${fake.baseUrl}/v1/` }).embed(['x'], { dimensions: 8, kind: 'query' });
    assert.equal(fake.requests[0]?.path, '/v1/embeddings');
    assert.equal(fake.requests[0]?.headers.authorization, undefined);
  });

  it('fits the native size to the requested dimensions: projected, truncated or zero-padded, always normalised', async () => {
    const [projected] = await embedder().embed(['text'], { dimensions: 10, kind: 'document' });
    assert.deepEqual(projected, expected('text', 24, 10));
    const [truncated] = await embedder({ fit: 'truncate' }).embed(['text'], { dimensions: 10, kind: 'document' });
    assert.deepEqual(truncated, normalisedFloat32(Float32Array.from(FakeOpenAiEmbeddingsServer.vectorFor('text', 24)).subarray(0, 10)));
    const [padded] = await embedder().embed(['text'], { dimensions: 1024, kind: 'document' });
    assert.equal(padded?.length, 1024);
    assert.ok(padded?.subarray(24).every((x) => x === 0));
    for (const vector of [projected, truncated, padded]) {
      assert.ok(vector && Math.abs(Math.hypot(...vector) - 1) < 1e-6);
    }
  });

  it('asks the server for the dimensions when told to, never above the native size', async () => {
    const [small] = await embedder({ sendDimensions: true }).embed(['text'], { dimensions: 12, kind: 'document' });
    assert.equal(fake.requests[0]?.body.dimensions, 12);
    assert.deepEqual(small, normalisedFloat32(FakeOpenAiEmbeddingsServer.vectorFor('text', 12)));
    const [large] = await embedder({ sendDimensions: true, nativeDimensions: 24 }).embed(['text'], { dimensions: 100, kind: 'document' });
    assert.equal(fake.requests[1]?.body.dimensions, 24);
    assert.equal(large?.length, 100);
  });

  it('refuses vectors of another size than the declared native one', async () => {
    const error = await rejection(embedder({ nativeDimensions: 32 }).embed(['text'], { dimensions: 32, kind: 'document' }));
    assert.equal(error.code, 'invalid_response');
    assert.match(error.message, /24 dimensions, expected 32/);
  });

  it('batches: one request per batchSize texts, results in input order', async () => {
    const texts = Array.from({ length: 150 }, (_, i) => `text number ${i}`);
    const vectors = await embedder({ batchSize: 64 }).embed(texts, { dimensions: 24, kind: 'document' });
    assert.deepEqual(
      fake.requests.map((r) => (r.body.input as string[]).length),
      [64, 64, 22],
    );
    assert.equal(vectors.length, 150);
    vectors.forEach((vector, i) => assert.deepEqual(vector, expected(texts[i] as string, 24, 24)));
    assert.deepEqual(await embedder().embed([], { dimensions: 24, kind: 'query' }), []);
    assert.equal(fake.requests.length, 3);
  });

  it('orders the answer by index, not by position', async () => {
    fake.reverseOrder = true;
    const vectors = await embedder().embed(['first', 'second', 'third'], { dimensions: 24, kind: 'document' });
    assert.deepEqual(vectors, ['first', 'second', 'third'].map((t) => expected(t, 24, 24)));
  });

  it('decodes base64 answers from servers that ignore encoding_format', async () => {
    fake.base64 = true;
    const [vector] = await embedder().embed(['text'], { dimensions: 24, kind: 'document' });
    assert.deepEqual(vector, expected('text', 24, 24));
  });

  it('applies the query and document prefixes', async () => {
    const e5 = embedder({ queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    const [query] = await e5.embed(['how to reset'], { dimensions: 24, kind: 'query' });
    await e5.embed(['reset it like this'], { dimensions: 24, kind: 'document' });
    assert.deepEqual(fake.requests.map((r) => r.body.input), [['query: how to reset'], ['passage: reset it like this']]);
    assert.deepEqual(query, expected('query: how to reset', 24, 24));
  });

  for (const status of [429, 500, 503]) {
    it(`retries after ${status} and then succeeds`, async () => {
      fake.failNext(2, { status });
      const vectors = await embedder({ maxRetries: 3 }).embed(['a', 'b'], { dimensions: 24, kind: 'document' });
      assert.equal(fake.requests.length, 3);
      assert.deepEqual(vectors, [expected('a', 24, 24), expected('b', 24, 24)]);
    });
  }

  /** Records each wait the embedder asks for instead of spending it, so delays are checked exactly, not timed. */
  const recordingSleep = (): { waits: number[]; sleep: (milliseconds: number) => Promise<void> } => {
    const waits: number[] = [];
    return { waits, sleep: (milliseconds) => Promise.resolve(void waits.push(milliseconds)) };
  };

  it('honours Retry-After (seconds) and retry-after-ms', async () => {
    fake.failNext(1, { status: 429, headers: { 'retry-after': '1' } });
    fake.failNext(1, { status: 503, headers: { 'retry-after-ms': '300' } });
    const { waits, sleep } = recordingSleep();
    await embedder({ sleep }).embed(['a'], { dimensions: 24, kind: 'document' });
    assert.equal(fake.requests.length, 3);
    assert.deepEqual(waits, [1000, 300]);
  });

  it('honours Retry-After given as an HTTP date', async () => {
    const when = new Date(Date.now() + 120_000).toUTCString();
    fake.failNext(1, { status: 429, headers: { 'retry-after': when } });
    const { waits, sleep } = recordingSleep();
    await embedder({ sleep, maxRetryDelayMs: 600_000 }).embed(['a'], { dimensions: 24, kind: 'document' });
    assert.equal(waits.length, 1);
    // An HTTP date has whole seconds: the wait is up to two minutes, less the part of a second lost.
    assert.ok(waits[0]! > 115_000 && waits[0]! <= 120_000, `waited ${waits[0]} ms`);
  });

  it('caps a long Retry-After at maxRetryDelayMs', async () => {
    fake.failNext(1, { status: 429, headers: { 'retry-after': '3600' } });
    const { waits, sleep } = recordingSleep();
    await embedder({ maxRetryDelayMs: 20, sleep }).embed(['a'], { dimensions: 24, kind: 'document' });
    assert.equal(fake.requests.length, 2);
    assert.deepEqual(waits, [20]);
  });

  it('backs off exponentially with jitter when no Retry-After is given', async () => {
    fake.failNext(3, { status: 502 });
    const { waits, sleep } = recordingSleep();
    await embedder({ sleep, retryBaseDelayMs: 100, maxRetries: 3 }).embed(['a'], { dimensions: 24, kind: 'document' });
    assert.equal(waits.length, 3);
    waits.forEach((wait, attempt) => {
      const exponential = 100 * 2 ** attempt;
      assert.ok(wait >= exponential / 2 && wait <= exponential, `attempt ${attempt} waited ${wait} ms`);
    });
  });

  it('gives up after maxRetries with an unavailable error carrying the status', async () => {
    fake.failNext(10, { status: 502 });
    const error = await rejection(embedder({ maxRetries: 2 }).embed(['a'], { dimensions: 24, kind: 'document' }));
    assert.equal(fake.requests.length, 3);
    assert.equal(error.code, 'unavailable');
    assert.equal(error.status, 502);
    assert.match(error.message, /HTTP 502.*after 3 attempt/);
  });

  it('does not retry other 4xx answers', async () => {
    fake.failNext(1, { status: 400, body: { error: { message: 'This model does not support dimensions' } } });
    const error = await rejection(embedder().embed(['a'], { dimensions: 24, kind: 'document' }));
    assert.equal(fake.requests.length, 1);
    assert.equal(error.code, 'rejected');
    assert.equal(error.status, 400);
    assert.match(error.message, /HTTP 400: This model does not support dimensions/);
  });

  it('times out a stalled request, retries it, then fails', async () => {
    fake.delayMs = 1000;
    const error = await rejection(embedder({ timeoutMs: 50, maxRetries: 1 }).embed(['a'], { dimensions: 24, kind: 'document' }));
    assert.equal(error.code, 'unavailable');
    assert.match(error.message, /timed out after 50 ms, after 2 attempt/);
    assert.equal(fake.requests.length, 2);
  });

  it('reports an unreachable server as unavailable', async () => {
    const unreachable = embedder({ maxRetries: 1 });
    await fake.close();
    try {
      const error = await rejection(unreachable.embed(['a'], { dimensions: 24, kind: 'document' }));
      assert.equal(error.code, 'unavailable');
      assert.match(error.message, /network error, after 2 attempt/);
    } finally {
      fake = await FakeOpenAiEmbeddingsServer.start();
    }
  });

  it('never puts the API key in an error, even when the server echoes it', async () => {
    const wrongKey = 'sk-proj-WRONGkey9876543210zyx';
    const error = await rejection(embedder({ apiKey: wrongKey }).embed(['a'], { dimensions: 24, kind: 'document' }));
    assert.equal(error.code, 'rejected');
    assert.equal(error.status, 401);
    assert.match(error.message, /HTTP 401: Incorrect API key provided/);
    for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify(error)]) {
      assert.ok(!text.includes(wrongKey), text);
      assert.ok(!text.includes('9876543210'), text);
    }
  });

  it('rejects answers that do not match the inputs', async () => {
    fake.failNext(1, { status: 200, body: { data: [{ index: 0, embedding: [1, 2] }] } });
    const tooFew = await rejection(embedder().embed(['a', 'b'], { dimensions: 24, kind: 'document' }));
    assert.equal(tooFew.code, 'invalid_response');
    fake.failNext(1, { status: 200, body: { data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] } });
    const duplicate = await rejection(embedder().embed(['a', 'b'], { dimensions: 24, kind: 'document' }));
    assert.match(duplicate.message, /duplicate indexes/);
    fake.failNext(1, { status: 200, body: { data: [{ index: 0, embedding: ['x'] }] } });
    const notNumbers = await rejection(embedder().embed(['a'], { dimensions: 24, kind: 'document' }));
    assert.equal(notNumbers.code, 'invalid_response');
  });

  it('rejects dimensions outside 1..4096 without calling the server', async () => {
    await assert.rejects(embedder().embed(['a'], { dimensions: 5000, kind: 'document' }), RangeError);
    assert.equal(fake.requests.length, 0);
  });
});
