import type { Index as UsearchIndex } from 'usearch';
import type { ScanMatches } from './scan/column-scan.js';
import { usearch } from './scan/usearch.js';

/** When a segment's vectors get a graph, and how it is built and searched. */
export interface GraphPolicy {
  /** Segments of at least this many bytes of int8 vectors get a graph (smaller ones are scanned exactly, cheaply). */
  minBytes: number;
  /**
   * Only segments whose vectors are at least this dense (share of non-zero components) get one: the
   * built-in lexical embedder's sparse vectors are scanned by column faster than a graph answers,
   * and a graph over them finds ~0.83 of the exact top 10 (docs/api.md); neural embedders' vectors
   * are dense.
   */
  minDensity: number;
  /**
   * A filtered search over a segment with a graph scans the passing rows exactly when they hold at
   * most this many bytes of vectors (16 MiB: ~22,000 rows of 768 dimensions, a few milliseconds),
   * and asks the graph otherwise.
   */
  exactBytes: number;
  /** Neighbours per node (HNSW M). */
  connectivity: number;
  /** Candidates kept while inserting (efConstruction). */
  expansionAdd: number;
  /** Candidates kept while searching (ef; a search asking for more keeps that many). */
  expansionSearch: number;
  /** About how long one turn of the event loop may spend adding rows to the graph, in ms. */
  batchMs: number;
}

/**
 * Chosen by bench/vector-peers.bench.ts (docs/performance.md): at 100,000 chunks of 384
 * dimensions (37 MiB) the exact scan (2.2 ms, recall 0.99) beat the graph (2.8 ms, 0.95); the scan
 * grows with the bytes it reads (~45 ms at 1,000,000 × 768), the graph hardly, so the graph starts
 * where the scan would pass ~10 ms (160 MiB); M 16 and efConstruction 128 are the usual HNSW defaults (M 32
 * doubles the build for a few points of recall); ef 800 found 0.95 of the exact top 10 at 100,000
 * chunks of 384 dimensions and 0.81 at 1,000,000 of 768 (a graph's reach, not its candidates'
 * order: more candidates at the same ef found no more). usearch's f16 instead of int8 added ~0.01
 * for 40 % more build time and 0.8 GB more memory at 1M × 768.
 */
export const DEFAULT_GRAPH_POLICY: GraphPolicy = {
  minBytes: 160 * 2 ** 20,
  minDensity: 0.5,
  exactBytes: 16 * 1024 * 1024,
  connectivity: 16,
  expansionAdd: 128,
  expansionSearch: 800,
  batchMs: 20,
};

/** The graph policy the `VECTOR_GRAPH_*` settings give: null when graphs are off (a minimum of 0 MiB). */
export function graphPolicyOf(settings: { graphMinMb: number; graphEfSearch: number; graphEfConstruction: number }): GraphPolicy | null {
  if (settings.graphMinMb <= 0) return null;
  return {
    ...DEFAULT_GRAPH_POLICY,
    minBytes: settings.graphMinMb * 2 ** 20,
    expansionSearch: settings.graphEfSearch,
    expansionAdd: settings.graphEfConstruction,
  };
}

/** What a snapshot keeps of a graph besides usearch's own file. */
export interface GraphState {
  labels: number;
  covered: number;
  labelRow: Int32Array;
}

/**
 * An HNSW graph over a segment's rows (usearch, cosine over int8), for segments too large to scan
 * exactly on every query. Nodes are keyed by labels handed out in order, not by row numbers, so a
 * segment's compaction renumbers rows without touching the graph (`renumber`). The graph holds a
 * prefix of the segment's rows (`covered`): the segment adds rows to it in order, a batch at a
 * time, and scans the rows past the prefix exactly, so a search is never missing a row.
 */
export class VectorGraph {
  private readonly index: UsearchIndex;
  /** Each label's current row (−1: removed). */
  private labelRow = new Int32Array(1024);
  /** Each row's label (−1: not in the graph). */
  private rowLabel = new Int32Array(1024).fill(-1);
  private labels = 0;
  /** Rows before this one were handed to the graph (the dead among them were skipped). */
  covered = 0;

  constructor(readonly dimensions: number, policy: GraphPolicy) {
    this.index = new usearch.Index({
      dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.I8,
      connectivity: policy.connectivity,
      expansion_add: policy.expansionAdd,
      expansion_search: policy.expansionSearch,
      multi: false,
    });
  }

  /** Writes the graph to `file` (usearch's format) and returns the rest of its state. */
  save(file: string): GraphState {
    this.index.save(file);
    return { labels: this.labels, covered: this.covered, labelRow: this.labelRow.slice(0, this.labels) };
  }

  /** A graph read back from `save`'s file and state, for a segment of `rows` rows. */
  static load(file: string, dimensions: number, policy: GraphPolicy, state: GraphState, rows: number): VectorGraph {
    const graph = new VectorGraph(dimensions, policy);
    graph.index.load(file);
    graph.reserve(rows, state.labels);
    graph.labels = state.labels;
    graph.covered = state.covered;
    graph.labelRow.set(state.labelRow);
    state.labelRow.forEach((row, label) => {
      if (row >= 0) graph.rowLabel[row] = label;
    });
    return graph;
  }

  /** Live nodes in the graph. */
  get size(): number {
    return this.index.size();
  }

  /**
   * Adds rows `from`..`to` − 1 (those `live` passes) on `threads` threads (0: every core) and moves
   * `covered` to `to`; `data` holds rows from `base` on.
   */
  add(data: Int8Array, base: number, from: number, to: number, live: (row: number) => boolean, threads = 1): void {
    const d = this.dimensions;
    const rows: number[] = [];
    for (let row = from; row < to; row++) if (live(row)) rows.push(row);
    this.reserve(to, this.labels + rows.length);
    if (rows.length) {
      const keys = new BigUint64Array(rows.length);
      const vectors = new Int8Array(rows.length * d);
      rows.forEach((row, i) => {
        const label = this.labels++;
        this.labelRow[label] = row;
        this.rowLabel[row] = label;
        keys[i] = BigInt(label);
        vectors.set(data.subarray((row - base) * d, (row - base + 1) * d), i * d);
      });
      this.index.add(keys, vectors, threads);
    }
    this.covered = to;
  }

  /** Takes these rows out of the graph (their owner was removed). */
  remove(rows: readonly number[]): void {
    const keys: bigint[] = [];
    for (const row of rows) {
      const label = row < this.rowLabel.length ? this.rowLabel[row]! : -1;
      if (label < 0) continue;
      this.rowLabel[row] = -1;
      this.labelRow[label] = -1;
      keys.push(BigInt(label));
    }
    if (keys.length) this.index.remove(keys);
  }

  /**
   * Follows a compaction: `moved[row]` is each old row's new number (−1: gone). Compaction keeps
   * the rows' order, so the covered prefix stays a prefix.
   */
  renumber(moved: Int32Array, rows: number): void {
    const rowLabel = new Int32Array(Math.max(1024, rows)).fill(-1);
    for (let label = 0; label < this.labels; label++) {
      const row = this.labelRow[label]!;
      if (row < 0) continue;
      const to = moved[row]!;
      this.labelRow[label] = to;
      if (to >= 0) rowLabel[to] = label;
    }
    let covered = 0;
    for (let row = 0; row < Math.min(this.covered, moved.length); row++) if (moved[row]! >= 0) covered = moved[row]! + 1;
    this.rowLabel = rowLabel;
    this.covered = covered;
  }

  /** The `count` nearest rows in the graph: keys are row numbers, distances 1 − cosine. */
  search(query: Int8Array, count: number): ScanMatches {
    const k = Math.min(count, this.size);
    if (k < 1) return { keys: new BigUint64Array(0), distances: new Float32Array(0) };
    const found = this.index.search(query, k, 1);
    const keys: bigint[] = [];
    const distances: number[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      const label = Number(found.keys[i]);
      const row = label < this.labels ? this.labelRow[label]! : -1;
      if (row < 0) continue;
      keys.push(BigInt(row));
      distances.push(found.distances[i]!);
    }
    return { keys: BigUint64Array.from(keys), distances: Float32Array.from(distances) };
  }

  private reserve(rows: number, labels: number): void {
    if (rows > this.rowLabel.length) {
      const grown = new Int32Array(Math.max(rows, this.rowLabel.length * 2)).fill(-1);
      grown.set(this.rowLabel);
      this.rowLabel = grown;
    }
    if (labels > this.labelRow.length) {
      const grown = new Int32Array(Math.max(labels, this.labelRow.length * 2));
      grown.set(this.labelRow);
      this.labelRow = grown;
    }
  }
}
