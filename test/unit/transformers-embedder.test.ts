import assert from 'node:assert/strict';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransformersEmbedder, modelFamilyDefaults } from '../../core/adapters/transformers.embedder.js';
import { EmbedderError } from '../../core/ports/embedder.js';
import type { TinyBertModel } from '../support/tiny-bert-model.js';
import { TINY_BERT_HIDDEN_SIZE, buildTinyBertModel } from '../support/tiny-bert-model.js';

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function bytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function maxDifference(a: Float32Array, b: Float32Array): number {
  return Math.max(...Array.from(a, (x, i) => Math.abs(x - (b[i] as number))));
}

describe('TransformersEmbedder', () => {
  let model: TinyBertModel;
  let embedder: TransformersEmbedder;
  const scratch: string[] = [];

  before(async () => {
    model = await buildTinyBertModel();
    embedder = new TransformersEmbedder({ modelDir: model.dir });
  });

  after(async () => {
    await model.remove();
    await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it("is identified as 'onnx:<directory name>'", () => {
    assert.equal(embedder.id, 'onnx:tiny-bert');
  });

  it('loads the model strictly offline', async () => {
    await embedder.load();
    // Imported the way the adapter imports it: under mocha a static import gets the CommonJS build, another instance.
    const { env } = await import('@huggingface/transformers');
    assert.equal(env.allowRemoteModels, false);
    assert.equal(env.allowLocalModels, true);
  });

  it('returns the requested dimensions, L2-normalised, below, at and above the native size', async () => {
    for (const dimensions of [1, 7, TINY_BERT_HIDDEN_SIZE, 384, 1024, 4096]) {
      const vectors = await embedder.embed(['the cat sat on the mat', 'payment refund error'], { dimensions, kind: 'document' });
      assert.equal(vectors.length, 2);
      for (const vector of vectors) {
        assert.equal(vector.length, dimensions);
        assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `norm ${norm(vector)} at ${dimensions}`);
      }
    }
  });

  it('is deterministic: the same text gives the same vector, in a batch, across calls and instances', async () => {
    const options = { dimensions: TINY_BERT_HIDDEN_SIZE, kind: 'document' } as const;
    const [a, b, again] = await embedder.embed(['the dog ran in the garden', 'the bird sang', 'the dog ran in the garden'], options);
    assert.ok(a && b && again);
    assert.ok(maxDifference(a, again) < 1e-6);
    const [later] = await embedder.embed(['the dog ran in the garden'], options);
    const [fresh] = await new TransformersEmbedder({ modelDir: model.dir }).embed(['the dog ran in the garden'], options);
    assert.ok(later && bytes(later).equals(bytes(a)));
    assert.ok(fresh && bytes(fresh).equals(bytes(a)));
  });

  it('gives different texts different vectors', async () => {
    const texts = ['the cat sat on the mat', 'invoice payment refund', 'rain and snow and wind', 'the cats sat'];
    const vectors = await embedder.embed(texts, { dimensions: TINY_BERT_HIDDEN_SIZE, kind: 'document' });
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) {
        assert.ok(maxDifference(vectors[i] as Float32Array, vectors[j] as Float32Array) > 1e-3, `${texts[i]} vs ${texts[j]}`);
      }
    }
  });

  it('gives the same vectors whatever the batch size', async () => {
    const texts = ['the cat', 'a big old horse jumped over the red chair', 'server error', 'the quiet river', 'snow'];
    const options = { dimensions: TINY_BERT_HIDDEN_SIZE, kind: 'document' } as const;
    const whole = await embedder.embed(texts, options);
    const inPairs = await new TransformersEmbedder({ modelDir: model.dir, batchSize: 2 }).embed(texts, options);
    assert.equal(inPairs.length, texts.length);
    whole.forEach((vector, i) => assert.ok(maxDifference(vector, inPairs[i] as Float32Array) < 1e-5, texts[i]));
  });

  it('applies the query and document prefixes, and only then tells the kinds apart', async () => {
    const text = 'search the knowledge base';
    const plain = (await embedder.embed([text], { dimensions: 16, kind: 'query' }))[0] as Float32Array;
    const plainDocument = (await embedder.embed([text], { dimensions: 16, kind: 'document' }))[0] as Float32Array;
    assert.ok(bytes(plain).equals(bytes(plainDocument)));

    const e5Style = new TransformersEmbedder({ modelDir: model.dir, queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    const [query] = await e5Style.embed([text], { dimensions: 16, kind: 'query' });
    const [document] = await e5Style.embed([text], { dimensions: 16, kind: 'document' });
    const [manual] = await embedder.embed([`query: ${text}`], { dimensions: 16, kind: 'document' });
    assert.ok(query && document && manual);
    assert.ok(maxDifference(query, document) > 1e-3);
    assert.ok(maxDifference(query, manual) < 1e-6);
  });

  it('pools by mean or CLS as configured', async () => {
    const text = 'the happy dog barked';
    const [mean] = await embedder.embed([text], { dimensions: 16, kind: 'document' });
    const [cls] = await new TransformersEmbedder({ modelDir: model.dir, pooling: 'cls' }).embed([text], { dimensions: 16, kind: 'document' });
    const [clsOther] = await new TransformersEmbedder({ modelDir: model.dir, pooling: 'cls' }).embed(['rain'], { dimensions: 16, kind: 'document' });
    assert.ok(mean && cls && clsOther);
    assert.ok(maxDifference(mean, cls) > 1e-3);
    // Every text starts with [CLS] and this graph has no attention, so CLS pooling is the same vector for all texts.
    assert.ok(maxDifference(cls, clsOther) < 1e-6);
  });

  it('truncates instead of projecting when told to', async () => {
    const [full] = await embedder.embed(['the old tree'], { dimensions: 16, kind: 'document' });
    const [truncated] = await new TransformersEmbedder({ modelDir: model.dir, fit: 'truncate' }).embed(['the old tree'], { dimensions: 4, kind: 'document' });
    const [projected] = await embedder.embed(['the old tree'], { dimensions: 4, kind: 'document' });
    assert.ok(full && truncated && projected);
    const head = full.subarray(0, 4);
    const scale = 1 / norm(head);
    truncated.forEach((x, i) => assert.ok(Math.abs(x - (head[i] as number) * scale) < 1e-5));
    assert.ok(maxDifference(truncated, projected) > 1e-3);
  });

  it('uses onnx/model_quantized.onnx when it is the only model file', async () => {
    const quantized = await buildTinyBertModel({ name: 'tiny-bert-q', quantizedName: true });
    scratch.push(join(quantized.dir, '..'));
    const [vector] = await new TransformersEmbedder({ modelDir: quantized.dir }).embed(['the cat'], { dimensions: 16, kind: 'document' });
    const [reference] = await embedder.embed(['the cat'], { dimensions: 16, kind: 'document' });
    assert.ok(vector && reference && maxDifference(vector, reference) < 1e-6);
    assert.throws(
      () => new TransformersEmbedder({ modelDir: quantized.dir, quantized: false }),
      (error: unknown) => error instanceof EmbedderError && /missing onnx\/model\.onnx/.test(error.message),
    );
  });

  it('fails at once, naming the directory, when the directory does not exist', () => {
    const missing = join(tmpdir(), 'lore-no-such-model-dir');
    assert.throws(
      () => new TransformersEmbedder({ modelDir: missing }),
      (error: unknown) =>
        error instanceof EmbedderError &&
        error.code === 'model_unavailable' &&
        error.message.includes(missing) &&
        error.message.includes('config.json'),
    );
  });

  it('never treats a model name as a hub id to download', () => {
    assert.throws(
      () => new TransformersEmbedder({ modelDir: 'Xenova/multilingual-e5-small' }),
      (error: unknown) =>
        error instanceof EmbedderError && error.message.includes(join(process.cwd(), 'Xenova', 'multilingual-e5-small')),
    );
  });

  it('fails at once, naming the file, when one file is missing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'lore-broken-model-'));
    scratch.push(root);
    const broken = join(root, 'broken');
    await cp(model.dir, broken, { recursive: true });
    await rm(join(broken, 'tokenizer.json'));
    assert.throws(
      () => new TransformersEmbedder({ modelDir: broken }),
      (error: unknown) =>
        error instanceof EmbedderError && error.message.includes(broken) && /missing tokenizer\.json/.test(error.message),
    );
  });

  it('reports a corrupt model file as unavailable, naming the directory', async () => {
    const root = await mkdtemp(join(tmpdir(), 'lore-corrupt-model-'));
    scratch.push(root);
    const corrupt = join(root, 'corrupt');
    await cp(model.dir, corrupt, { recursive: true });
    await cp(join(corrupt, 'config.json'), join(corrupt, 'onnx', 'model.onnx'));
    const error = await new TransformersEmbedder({ modelDir: corrupt }).embed(['x'], { dimensions: 8, kind: 'query' }).then(
      () => assert.fail('expected a load failure'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof EmbedderError, String(error));
    assert.equal(error.code, 'model_unavailable');
    assert.ok(error.message.includes(corrupt));
  });

  it('knows the defaults of the e5 and bge families', () => {
    assert.deepEqual(modelFamilyDefaults('multilingual-e5-small'), {
      pooling: 'mean',
      queryPrefix: 'query: ',
      documentPrefix: 'passage: ',
      fit: 'project',
    });
    assert.equal(modelFamilyDefaults('bge-small-en-v1.5').pooling, 'cls');
    assert.match(modelFamilyDefaults('bge-small-en-v1.5').queryPrefix, /^Represent this sentence/);
    assert.equal(modelFamilyDefaults('bge-small-en-v1.5').documentPrefix, '');
    assert.deepEqual(modelFamilyDefaults('bge-m3'), { pooling: 'cls', queryPrefix: '', documentPrefix: '', fit: 'project' });
    assert.deepEqual(modelFamilyDefaults('all-MiniLM-L6-v2'), { pooling: 'mean', queryPrefix: '', documentPrefix: '', fit: 'project' });
    assert.equal(new TransformersEmbedder({ modelDir: model.dir }).id, 'onnx:tiny-bert');
  });
});
