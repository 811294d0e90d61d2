import assert from 'node:assert/strict';
import { fitDimensions, normalisedFloat32 } from '../../core/adapters/fit-dimensions.js';

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    aa += x * x;
    bb += y * y;
  }
  return dot / Math.sqrt(aa * bb);
}

/** Deterministic Gaussian-ish vectors, so a failure reproduces. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

describe('fitDimensions', () => {
  const sample = Float32Array.from([3, -4, 0, 12, 0, 0, 1, 2]);

  it('keeps a vector of the right size as is, normalised, without touching the input', () => {
    const before = Float32Array.from(sample);
    const fitted = fitDimensions(sample, 8);
    assert.equal(fitted.length, 8);
    assert.ok(Math.abs(norm(fitted) - 1) < 1e-6);
    assert.ok(cosine(fitted, sample) > 0.999999);
    assert.deepEqual(sample, before);
    assert.notEqual(fitted, sample);
  });

  it('zero-pads to a larger size and preserves cosine exactly', () => {
    const other = Float32Array.from([1, 1, 1, 1, -1, -1, 2, 0]);
    const a = fitDimensions(sample, 20);
    const b = fitDimensions(other, 20);
    assert.equal(a.length, 20);
    assert.deepEqual(Array.from(a.subarray(8)), new Array<number>(12).fill(0));
    assert.ok(Math.abs(norm(a) - 1) < 1e-6);
    assert.ok(Math.abs(cosine(a, b) - cosine(sample, other)) < 1e-6);
  });

  it('truncates Matryoshka-style: the first coordinates, renormalised', () => {
    const fitted = fitDimensions(sample, 4, 'truncate');
    const expected = [3, -4, 0, 12].map((x) => x / 13);
    assert.equal(fitted.length, 4);
    fitted.forEach((x, i) => assert.ok(Math.abs(x - (expected[i] as number)) < 1e-6, `coordinate ${i}`));
  });

  it('projects by default, using every coordinate rather than only the first ones', () => {
    const tailOnly = Float32Array.from([0, 0, 0, 0, 5, -2, 7, 1]);
    const projected = fitDimensions(tailOnly, 4);
    assert.equal(projected.length, 4);
    assert.ok(Math.abs(norm(projected) - 1) < 1e-6);
    assert.ok(projected.slice(1).some((x) => x !== 0), 'a truncation would have lost the whole vector');
    assert.deepEqual(Array.from(fitDimensions(tailOnly, 4, 'truncate')), [1, 0, 0, 0]);
  });

  it('projects deterministically, and pins the projection (changing it changes stored vectors)', () => {
    const a = fitDimensions(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 3);
    const b = fitDimensions(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 3);
    assert.deepEqual(a, b);
    assert.deepEqual(Array.from(a), [0.696526050567627, 0.3980148732662201, -0.597022294998169]);
  });

  it('rebuilds an evicted projection identically', () => {
    const next = randomSource(11);
    const vector = Float32Array.from({ length: 300 }, next);
    const before = fitDimensions(vector, 100);
    for (let dimensions = 101; dimensions < 160; dimensions++) fitDimensions(vector, dimensions);
    assert.deepEqual(fitDimensions(vector, 100), before);
  });

  it('gives exactly the requested number of unit-norm dimensions across sizes', () => {
    const next = randomSource(7);
    const vector = Float32Array.from({ length: 768 }, next);
    for (const dimensions of [1, 7, 384, 767, 768, 769, 1024, 4096]) {
      for (const method of ['project', 'truncate'] as const) {
        const fitted = fitDimensions(vector, dimensions, method);
        assert.equal(fitted.length, dimensions);
        assert.ok(Math.abs(norm(fitted) - 1) < 1e-5, `${method} ${dimensions}: norm ${norm(fitted)}`);
      }
    }
  });

  it('approximately preserves cosine similarity when projecting 1536 → 384', () => {
    const next = randomSource(42);
    const native = 1536;
    const errors: number[] = [];
    for (let pair = 0; pair < 200; pair++) {
      const a = Float32Array.from({ length: native }, next);
      // Mix in increasing amounts of noise so the pairs span cosines from about 1 down to 0.
      const noise = (pair % 20) / 10;
      const b = Float32Array.from(a, (x) => x + noise * next());
      errors.push(cosine(fitDimensions(a, 384), fitDimensions(b, 384)) - cosine(a, b));
    }
    const rms = Math.sqrt(errors.reduce((sum, e) => sum + e * e, 0) / errors.length);
    const worst = Math.max(...errors.map(Math.abs));
    assert.ok(rms < 0.04, `RMS cosine error ${rms}`);
    assert.ok(worst < 0.15, `worst cosine error ${worst}`);
  });

  it('keeps nearest neighbours when projecting', () => {
    const next = randomSource(3);
    const native = 1024;
    const anchors = Array.from({ length: 30 }, () => Float32Array.from({ length: native }, next));
    let kept = 0;
    for (const anchor of anchors) {
      const near = Float32Array.from(anchor, (x) => x + 0.5 * next());
      const far = Float32Array.from(anchor, (x) => x + 1.5 * next());
      const [pa, pn, pf] = [anchor, near, far].map((v) => fitDimensions(v, 256)) as [Float32Array, Float32Array, Float32Array];
      if (cosine(pa, pn) > cosine(pa, pf)) kept++;
    }
    assert.equal(kept, anchors.length);
  });

  it('turns a zero vector into a fixed unit vector instead of NaNs', () => {
    const fitted = fitDimensions(new Float32Array(6), 4);
    assert.deepEqual(Array.from(fitted), [1, 0, 0, 0]);
    assert.deepEqual(Array.from(normalisedFloat32([0, 0, 0])), [1, 0, 0]);
  });

  it('rejects dimensions outside 1..4096 and empty vectors', () => {
    for (const dimensions of [0, -1, 1.5, 4097, Number.NaN]) {
      assert.throws(() => fitDimensions(sample, dimensions), RangeError, String(dimensions));
    }
    assert.throws(() => fitDimensions(new Float32Array(0), 4), RangeError);
  });
});
