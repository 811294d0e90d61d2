import { COLUMN_SCAN_WASM } from './column-scan.wasm.js';

/** The closest rows of a scan: row numbers (or positions in the rows asked for) and cosine distances, closest first. */
export interface ScanMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

/** Rows per block; column-scan.wat has the same number built in. */
const BLOCK_ROWS = 4096;
const PAGE_BYTES = 65_536;

/** The part of the WebAssembly API used here (TypeScript declares it only with the DOM library). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let compiled: object | undefined;

function columnScanModule(): object {
  compiled ??= new Module(Buffer.from(COLUMN_SCAN_WASM, 'base64'));
  return compiled;
}

interface ColumnScanExports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  scan(data: number, dims: number, nz: number, q: number, nnz: number, blocks: number, count: number, out: number): void;
}

/**
 * Int8 vectors laid out for exact cosine scans whose cost follows the query's non-zero dimensions
 * (column-scan.wat): in blocks of 4,096 rows, each dimension's 4,096 values side by side, so a
 * dimension is read in order (a first layout in blocks of 64 rows jumped between cache lines and
 * took 7 ms where this takes 2). The built-in lexical embedder's query vectors have ~6% non-zero
 * dimensions (a few words' hashed features), so a scan reads ~6% of the rows' bytes: at 100k rows
 * of 1,024 dimensions ~3 ms, where usearch reading every byte row by row took ~19 ms
 * (bench/vector-scan.bench.ts). A dense query (a transformer model's) reads every dimension, at
 * about the speed of the row-by-row scan. Results are those of the int8 cosine over all
 * dimensions: the dimensions a query lacks add nothing to its dot products.
 *
 * Memory: the rows (one byte per dimension, the last block's unused rows included), a float per
 * row for its norm, and per scan four bytes per row of the scanned blocks for the dot products,
 * in one WebAssembly memory of its own.
 */
export class ColumnVectors {
  /** Rows written. */
  rows = 0;
  /** 1 / the norm of each row (0 for a zero row, whose cosine is taken as 0). */
  private inverseNorms = new Float32Array(64);
  private readonly wasm: ColumnScanExports;
  /** Where block 0 starts: the query's dimensions and values come first. */
  private readonly dataStart: number;
  private readonly blockBytes: number;
  private capacityBlocks = 0;

  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`invalid dimensions ${dimensions}`);
    this.wasm = new Instance(columnScanModule()).exports as ColumnScanExports;
    this.dataStart = Math.ceil((8 * dimensions) / BLOCK_ROWS) * BLOCK_ROWS;
    this.blockBytes = dimensions * BLOCK_ROWS;
  }

  /** Bytes of WebAssembly memory in use. */
  get bytes(): number {
    return this.wasm.memory.buffer.byteLength;
  }

  /** Writes row-major rows (`dimensions` values each) from row `at` on; rows after them are dropped. */
  write(at: number, data: Int8Array): void {
    const d = this.dimensions;
    const count = Math.floor(data.length / d);
    const end = at + count;
    if (at > this.rows) throw new Error(`rows ${this.rows}..${at} would be left unwritten`);
    this.reserve(Math.ceil(end / BLOCK_ROWS), 0);
    if (this.inverseNorms.length < end) {
      const grown = new Float32Array(Math.max(end, this.inverseNorms.length * 2));
      grown.set(this.inverseNorms.subarray(0, this.rows));
      this.inverseNorms = grown;
    }
    const memory = new Int8Array(this.wasm.memory.buffer);
    for (let i = 0; i < count; i++) {
      const row = at + i;
      let base = this.dataStart + Math.floor(row / BLOCK_ROWS) * this.blockBytes + (row % BLOCK_ROWS);
      let sum = 0;
      for (let j = 0, o = i * d; j < d; j++, o++, base += BLOCK_ROWS) {
        const x = data[o]!;
        memory[base] = x;
        sum += x * x;
      }
      this.inverseNorms[row] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    }
    this.rows = end;
  }

  /**
   * The `count` rows closest to `query` by cosine among the first `limit` rows, or among `only`
   * (row numbers; the keys are then positions in `only`). Distances are 1 − cosine, as usearch's.
   */
  scan(query: Int8Array, count: number, limit = this.rows, only: Int32Array | null = null): ScanMatches {
    const d = this.dimensions;
    if (query.length !== d) throw new Error(`query of ${query.length} dimensions, expected ${d}`);
    const rows = Math.min(limit, this.rows);
    const blockCount = Math.ceil(rows / BLOCK_ROWS);
    // Which blocks to scan: all, or those holding a row asked for (slot: its place in the output).
    const slot = only ? new Int32Array(blockCount).fill(-1) : null;
    let listed = blockCount;
    if (slot && only) {
      listed = 0;
      for (const row of only) {
        const block = Math.floor(row / BLOCK_ROWS);
        if (row < rows && slot[block] === -1) slot[block] = listed++;
      }
    }
    const blocksAt = this.dataStart + this.capacityBlocks * this.blockBytes;
    const outAt = blocksAt + Math.ceil(listed / 16) * 64; // the sums 64-byte aligned
    this.reserve(this.capacityBlocks, outAt + 4 * BLOCK_ROWS * listed - blocksAt);
    const buffer = this.wasm.memory.buffer;
    const ints = new Int32Array(buffer);
    let nnz = 0;
    let queryNorm = 0;
    for (let j = 0; j < d; j++) {
      const x = query[j]!;
      if (x === 0) continue;
      ints[nnz] = j * BLOCK_ROWS;
      ints[d + nnz] = x;
      queryNorm += x * x;
      nnz++;
    }
    const blocks = new Int32Array(buffer, blocksAt, listed);
    if (slot) slot.forEach((s, block) => s >= 0 && (blocks[s] = block));
    else for (let b = 0; b < listed; b++) blocks[b] = b;
    if (nnz && listed) this.wasm.scan(this.dataStart, d, 0, 4 * d, nnz, blocksAt, listed, outAt);
    const dots = new Int32Array(buffer, outAt, BLOCK_ROWS * listed);

    const best = new TopK(Math.min(count, only ? only.length : rows));
    const scale = queryNorm > 0 ? 1 / Math.sqrt(queryNorm) : 0;
    const inverseNorms = this.inverseNorms;
    if (only && slot) {
      for (let i = 0; i < only.length; i++) {
        const row = only[i]!;
        if (row >= rows) continue;
        best.offer(i, dots[slot[Math.floor(row / BLOCK_ROWS)]! * BLOCK_ROWS + (row % BLOCK_ROWS)]! * scale * inverseNorms[row]!);
      }
    } else {
      // Most rows fall below the k-th best score: compare first, offer only those above it.
      let floor = -Infinity;
      for (let row = 0; row < rows; row++) {
        const score = dots[row]! * scale * inverseNorms[row]!;
        if (score > floor) floor = best.offer(row, score);
      }
    }
    return best.matches();
  }

  /** Grows the memory to hold `blocks` blocks of rows, plus `scratch` bytes after them. */
  private reserve(blocks: number, scratch: number): void {
    if (blocks > this.capacityBlocks) {
      const grown = Math.max(blocks, Math.ceil(this.capacityBlocks * 1.5));
      this.ensureBytes(this.dataStart + grown * this.blockBytes + scratch);
      this.capacityBlocks = grown;
    } else {
      this.ensureBytes(this.dataStart + this.capacityBlocks * this.blockBytes + scratch);
    }
  }

  private ensureBytes(bytes: number): void {
    const have = this.wasm.memory.buffer.byteLength;
    if (bytes > have) this.wasm.memory.grow(Math.ceil((bytes - have) / PAGE_BYTES));
  }
}

/** The k highest scores seen, kept in a min-heap. */
class TopK {
  private readonly keys: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.keys = new Int32Array(k);
    this.scores = new Float64Array(k);
  }

  /** Adds an entry if it is among the k best so far; returns the score an entry must now beat. */
  offer(key: number, score: number): number {
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (this.scores[parent]! <= score) break;
        this.scores[i] = this.scores[parent]!;
        this.keys[i] = this.keys[parent]!;
        i = parent;
      }
      this.scores[i] = score;
      this.keys[i] = key;
    } else if (this.k > 0 && score > this.scores[0]!) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= this.k) break;
        const right = left + 1;
        const child = right < this.k && this.scores[right]! < this.scores[left]! ? right : left;
        if (this.scores[child]! >= score) break;
        this.scores[i] = this.scores[child]!;
        this.keys[i] = this.keys[child]!;
        i = child;
      }
      this.scores[i] = score;
      this.keys[i] = key;
    }
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  /** The entries, highest score first, as usearch reports them (distance 1 − score). */
  matches(): ScanMatches {
    const order = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) => this.scores[b]! - this.scores[a]! || this.keys[a]! - this.keys[b]!,
    );
    return {
      keys: BigUint64Array.from(order, (i) => BigInt(this.keys[i]!)),
      distances: Float32Array.from(order, (i) => 1 - this.scores[i]!),
    };
  }
}
