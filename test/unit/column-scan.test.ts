import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ColumnVectors, type ScanMatches } from '../../core/adapters/flat-index/scan/column-scan.js';
import { RowVectors, isDense } from '../../core/adapters/flat-index/scan/row-scan.js';
import { scanNow } from '../../core/adapters/flat-index/scan/vector-scanner.js';
import { quantize } from '../../core/adapters/flat-index/segment.js';
import { seededRandom } from '../../core/shared/seeded-random.js';
import { WASM_SOURCES, compileWat, wasmModuleText } from '../../scripts/build-wasm.js';

const D = 96;

/** int8 rows of random unit vectors; `sparsity` of the dimensions are zero, as in the lexical embedder's vectors. */
function rows(random: () => number, count: number, sparsity = 0): Int8Array {
  const out = new Int8Array(count * D);
  for (let r = 0; r < count; r++) {
    const v = Float32Array.from({ length: D }, () => (random() < sparsity ? 0 : random() - 0.5));
    quantize(v, out, r * D);
  }
  return out;
}

const keys = (m: ScanMatches) => Array.from(m.keys, Number);

/** The same answer as usearch's int8 cosine: the same rows, each at the same distance (up to float rounding). */
function assertSameMatches(got: ScanMatches, want: ScanMatches, label: string): void {
  const distances = (m: ScanMatches) => new Map(keys(m).map((k, i) => [k, m.distances[i]!]));
  const [g, w] = [distances(got), distances(want)];
  assert.deepEqual([...g.keys()].sort((a, b) => a - b), [...w.keys()].sort((a, b) => a - b), `${label}: rows`);
  for (const [key, d] of w) assert.ok(Math.abs(g.get(key)! - d) < 1e-5, `${label}: distance of row ${key}`);
  for (let i = 1; i < got.distances.length; i++) assert.ok(got.distances[i - 1]! <= got.distances[i]!, `${label}: closest first`);
}

const LAYOUTS = [
  ['by column (ColumnVectors)', (d: number) => new ColumnVectors(d)],
  ['by row (RowVectors)', (d: number) => new RowVectors(d)],
] as const;

for (const [layout, make] of LAYOUTS) {
  describe(`the scan worker's copy of a segment, ${layout}`, () => {
    it('finds what usearch finds over rows spanning several blocks, for sparse and dense queries', () => {
      const random = seededRandom(3);
      const data = rows(random, 9000, 0.4);
      const vectors = make(D);
      // Written in uneven pieces, as a segment's mirror is appended to.
      for (let at = 0; at < 9000; ) {
        const n = Math.min(9000 - at, 1 + Math.floor(random() * 3000));
        vectors.write(at, data.subarray(at * D, (at + n) * D));
        at += n;
      }
      assert.equal(vectors.rows, 9000);
      for (const sparsity of [0.95, 0.5, 0]) {
        for (let n = 0; n < 5; n++) {
          const query = rows(random, 1, sparsity);
          assertSameMatches(vectors.scan(query, 25), scanNow(data, query, D, 25, 1), `sparsity ${sparsity}`);
        }
      }
    });

    it('scans only the first rows asked for, or only the listed rows (keys are then their positions)', () => {
      const random = seededRandom(5);
      const data = rows(random, 5000);
      const vectors = make(D);
      vectors.write(0, data);
      const query = rows(random, 1, 0.8);
      assertSameMatches(vectors.scan(query, 10, 4200), scanNow(data.subarray(0, 4200 * D), query, D, 10, 1), 'prefix');
      const only = Int32Array.from([4999, 17, 4096, 4095, 3, 2500, 4200]);
      const gathered = new Int8Array(only.length * D);
      only.forEach((row, i) => gathered.set(data.subarray(row * D, (row + 1) * D), i * D));
      assertSameMatches(vectors.scan(query, 4, 5000, only), scanNow(gathered, query, D, 4, 1), 'listed rows');
      // Listed rows past the limit are not scanned.
      assert.deepEqual(keys(vectors.scan(query, 10, 4096, only)).sort(), [1, 3, 4, 5]);
    });
  });
}

describe('column scan (ColumnVectors)', () => {
  it('rewriting from a row drops the rows after it; zero rows and zero queries score 0', () => {
    const vectors = new ColumnVectors(D);
    const random = seededRandom(9);
    vectors.write(0, rows(random, 100));
    const replacement = rows(random, 10);
    vectors.write(0, replacement);
    assert.equal(vectors.rows, 10);
    assert.ok(keys(vectors.scan(replacement.subarray(3 * D, 4 * D), 20)).length === 10);
    assert.equal(keys(vectors.scan(replacement.subarray(3 * D, 4 * D), 1))[0], 3);
    vectors.write(10, new Int8Array(D));
    const zero = vectors.scan(new Int8Array(D), 11);
    assert.ok(Array.from(zero.distances).every((d) => d === 1), 'a zero query is at distance 1 from everything');
    assert.throws(() => vectors.write(20, new Int8Array(D)), /unwritten/);
    assert.throws(() => vectors.scan(new Int8Array(D + 1), 1), /dimensions/);
  });

  it('isDense: the worker keeps sparse rows by column, dense ones row by row', () => {
    const random = seededRandom(2);
    assert.equal(isDense(rows(random, 50, 0.9)), false, "the lexical embedder's vectors");
    assert.equal(isDense(rows(random, 50, 0)), true, "a neural embedder's");
    assert.equal(isDense(new Int8Array(0)), false);
  });

  it('runs the binary built from its WebAssembly source (npm run build:wasm)', async () => {
    for (const { source, module, name } of WASM_SOURCES) {
      const committed = await fs.readFile(path.resolve(import.meta.dirname, '../..', module), 'utf8');
      assert.equal(committed, wasmModuleText(source, name, await compileWat(source)), `${module} is stale: run npm run build:wasm`);
    }
  });
});
