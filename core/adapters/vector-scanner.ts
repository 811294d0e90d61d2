import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type * as UsearchModule from 'usearch';

const require = createRequire(import.meta.url);
// usearch's ES module build cannot find its native binary (it walks up from an empty directory
// name forever); its CommonJS build can.
const usearch = require('usearch') as typeof UsearchModule;

/** The closest rows of a scan: row numbers and cosine distances, closest first. */
export interface ScanMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

/** The exact int8 cosine scan for the `count` nearest rows, on this thread. */
export function scanNow(dataset: Int8Array, query: Int8Array, dimensions: number, count: number, threads: number): ScanMatches {
  return usearch.exactSearch(dataset, query, dimensions, count, usearch.MetricKind.Cos, threads);
}

type WorkerMessage =
  | { op: 'replace'; segment: number; data: Int8Array }
  | { op: 'append'; segment: number; at: number; data: Int8Array }
  | { op: 'drop'; segment: number }
  | { op: 'scan'; id: number; segment: number; length: number; rows: Int32Array | null; query: Int8Array; dimensions: number; count: number; threads: number };

type ScanReply = { id: number; keys: BigUint64Array; distances: Float32Array } | { id: number; error: string };

/**
 * The worker: plain CommonJS (it needs no TypeScript, so no loader), with usearch from the path
 * this module resolved. It keeps a copy of each mirrored segment's rows (usearch does not accept
 * shared memory, so the rows cannot simply be shared) and answers scans over a prefix of them.
 * Messages are handled in the order sent, so a scan sees the rows as they were when it was asked for.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const usearch = require(${JSON.stringify(require.resolve('usearch'))});
const segments = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'replace') {
    segments.set(m.segment, { data: m.data, length: m.data.length });
  } else if (m.op === 'append') {
    const s = segments.get(m.segment);
    if (!s) return;
    const end = m.at + m.data.length;
    if (s.data.length < end) {
      const grown = new Int8Array(Math.max(end, s.data.length * 2));
      grown.set(s.data.subarray(0, s.length));
      s.data = grown;
    }
    s.data.set(m.data, m.at);
    s.length = end;
  } else if (m.op === 'drop') {
    segments.delete(m.segment);
  } else {
    try {
      const s = segments.get(m.segment);
      let dataset = s.data.subarray(0, m.length);
      if (m.rows) {
        // Only these rows: gathered first (keys are then positions in m.rows).
        const d = m.dimensions;
        const rows = m.rows;
        const gathered = new Int8Array(rows.length * d);
        let start = 0;
        for (let i = 1; i <= rows.length; i++) {
          if (i < rows.length && rows[i] === rows[i - 1] + 1) continue;
          gathered.set(s.data.subarray(rows[start] * d, (rows[i - 1] + 1) * d), start * d);
          start = i;
        }
        dataset = gathered;
      }
      const r = usearch.exactSearch(dataset, m.query, m.dimensions, m.count, usearch.MetricKind.Cos, m.threads);
      parentPort.postMessage({ id: m.id, keys: r.keys, distances: r.distances }, [r.keys.buffer, r.distances.buffer]);
    } catch (err) {
      parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
    }
  }
});
`;

/**
 * Runs the exact scans of large segments on a worker thread, so a scan (several milliseconds at
 * 100k chunks) leaves the event loop free: in a hybrid query the keyword search runs in PGlite
 * on the main thread meanwhile, on the other core.
 *
 * The worker holds its own copy of the rows of every segment of at least `minBytes` (a mirror),
 * kept by the segment as it changes: the whole segment when it first reaches that size or is
 * compacted, the new rows when rows are added. This costs a second copy of those vectors in
 * memory. Smaller segments are scanned on the calling thread (a round trip to the worker costs
 * more than their scan), as is everything once the worker failed.
 */
export class VectorScanner {
  /** Threads one scan uses. */
  readonly threads: number;
  private worker: Worker | undefined;
  private failed = false;
  private nextScan = 0;
  private nextSegment = 0;
  private readonly pending = new Map<number, { resolve: (m: ScanMatches) => void; reject: (e: Error) => void }>();

  constructor(
    /**
     * Threads one scan may use; 0: every core but one, which the main thread (PGlite, running the
     * same query's keyword search) keeps.
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
  replace(segment: number, data: Int8Array): void {
    this.post({ op: 'replace', segment, data: data.slice() });
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
  scan(segment: number, length: number, query: Int8Array, dimensions: number, count: number, rows: Int32Array | null = null): Promise<ScanMatches> {
    const worker = this.started();
    if (!worker) return Promise.reject(new Error('the vector scan worker is not available'));
    return new Promise((resolve, reject) => {
      const id = this.nextScan++;
      this.pending.set(id, { resolve, reject });
      // While a scan is out the worker keeps the process alive; idle, it does not.
      if (this.pending.size === 1) worker.ref();
      this.post({ op: 'scan', id, segment, length, rows, query, dimensions, count, threads: this.threads });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failed = true;
    await worker?.terminate();
  }

  private post(message: WorkerMessage): void {
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
