import type { ScanMatches } from './column-scan.js';
import { usearch } from './usearch.js';

/** The exact int8 cosine scan for the `count` nearest rows, on this thread (usearch: SIMD over row-major rows). */
export function scanNow(dataset: Int8Array, query: Int8Array, dimensions: number, count: number, threads: number): ScanMatches {
  return usearch.exactSearch(dataset, query, dimensions, count, usearch.MetricKind.Cos, threads);
}

/**
 * Int8 vectors as written, row after row, scanned by usearch (SIMD over each row): the layout for
 * dense vectors (a neural embedder's), whose queries read every dimension, so the column layout's
 * gain (reading only the query's non-zero dimensions) is nil and its per-dimension passes cost
 * ~2.5× usearch's row scan (100k × 384: ~8 ms against ~3). The worker keeps a segment's mirror in
 * this layout when most of its components are non-zero (see `isDense`).
 */
export class RowVectors {
  /** Rows written. */
  rows = 0;
  private data = new Int8Array(0);

  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`invalid dimensions ${dimensions}`);
  }

  /** Writes row-major rows (`dimensions` values each) from row `at` on; rows after them are dropped. */
  write(at: number, data: Int8Array): void {
    const d = this.dimensions;
    if (at > this.rows) throw new Error(`rows ${this.rows}..${at} would be left unwritten`);
    const end = at + Math.floor(data.length / d);
    if (this.data.length < end * d) {
      const grown = new Int8Array(Math.max(end * d, Math.ceil(this.data.length * 1.5)));
      grown.set(this.data.subarray(0, at * d));
      this.data = grown;
    }
    this.data.set(data.subarray(0, (end - at) * d), at * d);
    this.rows = end;
  }

  /**
   * The `count` rows closest to `query` by cosine among the first `limit` rows, or among `only`
   * (row numbers; the keys are then positions in `only`). Distances are 1 − cosine.
   */
  scan(query: Int8Array, count: number, limit = this.rows, only: Int32Array | null = null): ScanMatches {
    const d = this.dimensions;
    if (query.length !== d) throw new Error(`query of ${query.length} dimensions, expected ${d}`);
    const rows = Math.min(limit, this.rows);
    // From the start of the buffer: usearch reads a typed array from its buffer's start.
    let dataset = this.data.subarray(0, rows * d);
    let positions: number[] | undefined;
    if (only) {
      // The rows asked for that exist, gathered; each answer is mapped back to its place in `only`.
      positions = [];
      for (let i = 0; i < only.length; i++) if (only[i]! < rows) positions.push(i);
      dataset = new Int8Array(positions.length * d);
      positions.forEach((p, i) => dataset.set(this.data.subarray(only[p]! * d, (only[p]! + 1) * d), i * d));
    }
    const k = Math.min(count, dataset.length / d);
    if (!k) return { keys: new BigUint64Array(0), distances: new Float32Array(0) };
    const found = scanNow(dataset, query, d, k, 1);
    const keys = positions ? BigUint64Array.from(found.keys, (key) => BigInt(positions[Number(key)]!)) : found.keys;
    return { keys, distances: found.distances };
  }
}

/** Whether most of the components of these rows are non-zero: a dense embedder's vectors. */
export function isDense(data: Int8Array): boolean {
  let nonZero = 0;
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) nonZero++;
  return data.length > 0 && nonZero * 2 >= data.length;
}
