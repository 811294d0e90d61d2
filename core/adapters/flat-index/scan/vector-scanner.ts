import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { siblingModule, typescriptWorkerSource } from '../../../shared/typescript-worker.js';
import type { GraphPolicy, GraphState } from '../vector-graph.js';
import type { ScanMatches } from './column-scan.js';
import type { GraphProgress, ScanReply, ScannerMessage } from './vector-scan.worker.js';

export type { ScanMatches } from './column-scan.js';
export { scanNow } from './row-scan.js';

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
 *
 * A large dense segment's HNSW graph lives on the worker too (GraphedRows): it is built there, a
 * batch at a time between the worker's other messages, and searched there, so a query's graph
 * search and the graph's building leave the main thread free. The segment sends the rows as it
 * writes them, and the graph keeps those not yet added; the worker tells how far the graph covers
 * the rows after each batch (`startGraph`'s `progress`).
 */
export class VectorScanner {
  /** Threads a scan on the calling thread uses (the worker's scans use its one). */
  readonly threads: number;
  private worker: Worker | undefined;
  private failed = false;
  private nextScan = 0;
  private nextSegment = 0;
  private readonly pending = new Map<number, { resolve: (reply: ScanReply) => void; reject: (e: Error) => void }>();
  /** Each graph's listener, and the epoch (compactions) it is at. */
  private readonly progress = new Map<number, { epoch: number; listener: (covered: number) => void }>();

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
    return this.available && bytes >= this.minBytes;
  }

  /** Whether the worker is usable (it has not failed, and the scanner is not closed). */
  get available(): boolean {
    return !this.failed;
  }

  /** Sets a mirror's rows (a copy is sent). */
  replace(segment: number, dimensions: number, data: Int8Array): void {
    const copy = data.slice();
    this.post({ op: 'replace', segment, dimensions, data: copy }, [copy.buffer]);
  }

  /** Writes rows into a mirror at element offset `at` (a copy is sent). */
  append(segment: number, at: number, data: Int8Array): void {
    const copy = data.slice();
    this.post({ op: 'append', segment, at, data: copy }, [copy.buffer]);
  }

  drop(segment: number): void {
    this.progress.delete(segment);
    if (this.worker) this.post({ op: 'drop', segment });
  }

  /**
   * Scans the first `length` elements of a mirror, or only the rows `rows` of it (then the keys
   * are positions in `rows`).
   */
  async scan(segment: number, length: number, query: Int8Array, count: number, rows: Int32Array | null = null): Promise<ScanMatches> {
    return matchesOf(await this.request((id) => ({ op: 'scan', id, segment, length, rows, query, count })));
  }

  /**
   * Starts a segment's graph on the worker: from a saved one (which covers the rows before element
   * offset `at`) or anew (`at` 0), with the rows from `at` on (a copy is sent) and the dead rows.
   * `progress` hears how far the graph covers the rows as it grows.
   */
  startGraph(
    segment: number,
    dimensions: number,
    policy: GraphPolicy,
    saved: { file: string; state: GraphState; rows: number } | undefined,
    at: number,
    data: Int8Array,
    dead: Int32Array,
    progress: (covered: number) => void,
  ): void {
    this.progress.set(segment, { epoch: 0, listener: progress });
    const copy = data.slice();
    this.post({ op: 'graph', segment, dimensions, policy, saved, at, data: copy, dead }, [copy.buffer]);
  }

  /** Takes these rows out of a segment's graph (their owner was removed). */
  removeRows(segment: number, rows: number[]): void {
    this.post({ op: 'remove', segment, rows });
  }

  /** Follows a compaction in a segment's graph (see GraphedRows.renumber). */
  renumber(segment: number, moved: Int32Array, rows: number): void {
    const progress = this.progress.get(segment);
    if (progress) progress.epoch++;
    this.post({ op: 'renumber', segment, moved, rows });
  }

  /** A segment's graph's candidates (see GraphedRows.candidates); undefined when an exact scan should answer. */
  async graphCandidates(segment: number, query: Int8Array, wanted: number, only: Int32Array | null): Promise<Int32Array | undefined> {
    const reply = await this.request((id) => ({ op: 'search', id, segment, query, wanted, only }));
    if ('unserved' in reply) return undefined;
    if (!('candidates' in reply)) throw new Error('the vector scan worker answered with no candidates');
    return reply.candidates;
  }

  /** Writes a segment's graph to `file` and returns the rest of its state. */
  async saveGraph(segment: number, file: string): Promise<GraphState> {
    const reply = await this.request((id) => ({ op: 'save', id, segment, file }));
    if (!('graph' in reply)) throw new Error('the vector scan worker did not save the graph');
    return reply.graph;
  }

  /** Posts a message that is answered, and waits for its answer (an error answer rejects). */
  private request(message: (id: number) => ScannerMessage): Promise<ScanReply> {
    const worker = this.started();
    if (!worker) return Promise.reject(new Error('the vector scan worker is not available'));
    return new Promise<ScanReply>((resolve, reject) => {
      const id = this.nextScan++;
      this.pending.set(id, { resolve, reject });
      // While a request is out the worker keeps the process alive; idle, it does not.
      if (this.pending.size === 1) worker.ref();
      this.post(message(id));
    }).then((reply) => {
      if ('error' in reply) throw new Error(`vector scan failed: ${reply.error}`);
      return reply;
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failed = true;
    await worker?.terminate();
  }

  /** Posts a message; the buffers in `transfer` (copies made for it) move to the worker instead of being copied again. */
  private post(message: ScannerMessage, transfer: ArrayBuffer[] = []): void {
    this.started()?.postMessage(message, transfer);
  }

  private started(): Worker | undefined {
    if (this.worker || this.failed) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: ScanReply | GraphProgress) => {
      if ('progress' in reply) {
        const progress = this.progress.get(reply.progress);
        // Progress of an epoch before the last compaction counts rows by their old numbers.
        if (progress?.epoch === reply.epoch) progress.listener(reply.covered);
        return;
      }
      const call = this.pending.get(reply.id);
      if (!call) return;
      this.pending.delete(reply.id);
      if (!this.pending.size) worker.unref();
      call.resolve(reply);
    });
    const fail = (err: Error) => {
      // Mirrors are gone with the worker: scans from now on run on the calling thread.
      this.failed = true;
      this.worker = undefined;
      for (const call of this.pending.values()) call.reject(err);
      this.pending.clear();
      this.progress.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`the vector scan worker exited (${code})`));
    });
    this.worker = worker;
    return worker;
  }
}

function matchesOf(reply: ScanReply): ScanMatches {
  if (!('keys' in reply)) throw new Error('the vector scan worker answered with no matches');
  return { keys: reply.keys, distances: reply.distances };
}
