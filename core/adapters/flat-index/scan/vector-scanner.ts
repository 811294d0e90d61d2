import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { siblingModule, typescriptWorkerSource } from '../../../shared/typescript-worker.js';
import type { ScanMatches } from './column-scan.js';
import { usearch } from './usearch.js';
import type { ScanReply, ScannerMessage } from './vector-scan.worker.js';

export type { ScanMatches } from './column-scan.js';

/** The exact int8 cosine scan for the `count` nearest rows, on this thread (usearch: SIMD over row-major rows). */
export function scanNow(dataset: Int8Array, query: Int8Array, dimensions: number, count: number, threads: number): ScanMatches {
  return usearch.exactSearch(dataset, query, dimensions, count, usearch.MetricKind.Cos, threads);
}

/** The worker's entry: vector-scan.worker.ts, with tsx's hooks (see typescriptWorkerSource). */
const WORKER_SOURCE = typescriptWorkerSource(siblingModule(import.meta.url, 'vector-scan.worker'));

/**
 * Runs the exact scans of large segments on a worker thread, so a scan leaves the event loop free:
 * in a hybrid query the keyword search runs in PGlite on the main thread meanwhile, on the other core.
 *
 * The worker holds its own copy of the rows of every segment of at least `minBytes` (a mirror),
 * kept by the segment as it changes: the whole segment when it first reaches that size or is
 * compacted, the new rows when rows are added. Sparse rows (the built-in embedder's) are laid out
 * by column (ColumnVectors), so a scan reads only the query's non-zero dimensions: 100k chunks
 * scan in ~3 ms instead of ~19 ms (bench/vector-scan.bench.ts); dense rows (a neural embedder's)
 * row by row (RowVectors), scanned by usearch, ~2.5× faster than by column when every dimension
 * is read anyway. This costs a second copy of those vectors in memory. Smaller segments are scanned on
 * the calling thread with usearch (a round trip to the worker costs more than their scan), as is
 * everything once the worker failed.
 */
export class VectorScanner {
  /** Threads a scan on the calling thread uses (the worker's scans use its one). */
  readonly threads: number;
  private worker: Worker | undefined;
  private failed = false;
  private nextScan = 0;
  private nextSegment = 0;
  private readonly pending = new Map<number, { resolve: (m: ScanMatches) => void; reject: (e: Error) => void }>();

  constructor(
    /**
     * Threads a scan on the calling thread (usearch) may use; 0: every core but one, which the
     * main thread (PGlite, running the same query's keyword search) keeps.
     */
    threads: number,
    /** Segments at least this large (bytes of vectors) are mirrored and scanned on the worker. */
    readonly minBytes: number,
  ) {
    this.threads = threads || Math.max(1, availableParallelism() - 1);
  }

  /** A number naming a segment in the worker. */
  segmentId(): number {
    return this.nextSegment++;
  }

  /** Whether rows of this size belong on the worker (and the worker is usable). */
  offloads(bytes: number): boolean {
    return !this.failed && bytes >= this.minBytes;
  }

  /** Sets a mirror's rows (a copy is sent). */
  replace(segment: number, dimensions: number, data: Int8Array): void {
    this.post({ op: 'replace', segment, dimensions, data: data.slice() });
  }

  /** Writes rows into a mirror at element offset `at` (a copy is sent). */
  append(segment: number, at: number, data: Int8Array): void {
    this.post({ op: 'append', segment, at, data: data.slice() });
  }

  drop(segment: number): void {
    if (this.worker) this.post({ op: 'drop', segment });
  }

  /**
   * Scans the first `length` elements of a mirror, or only the rows `rows` of it (then the keys
   * are positions in `rows`).
   */
  scan(segment: number, length: number, query: Int8Array, count: number, rows: Int32Array | null = null): Promise<ScanMatches> {
    const worker = this.started();
    if (!worker) return Promise.reject(new Error('the vector scan worker is not available'));
    return new Promise((resolve, reject) => {
      const id = this.nextScan++;
      this.pending.set(id, { resolve, reject });
      // While a scan is out the worker keeps the process alive; idle, it does not.
      if (this.pending.size === 1) worker.ref();
      this.post({ op: 'scan', id, segment, length, rows, query, count });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failed = true;
    await worker?.terminate();
  }

  private post(message: ScannerMessage): void {
    this.started()?.postMessage(message);
  }

  private started(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: ScanReply) => {
      const call = this.pending.get(reply.id);
      if (!call) return;
      this.pending.delete(reply.id);
      if (!this.pending.size) worker.unref();
      if ('error' in reply) call.reject(new Error(`vector scan failed: ${reply.error}`));
      else call.resolve({ keys: reply.keys, distances: reply.distances });
    });
    const fail = (err: Error) => {
      // Mirrors are gone with the worker: scans from now on run on the calling thread.
      this.failed = true;
      this.worker = undefined;
      for (const call of this.pending.values()) call.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`the vector scan worker exited (${code})`));
    });
    this.worker = worker;
    return worker;
  }
}
