/**
 * The vector scan worker (see VectorScanner): keeps a copy of each mirrored segment's rows and
 * answers scans over a prefix of them. The copy is laid out by column (ColumnVectors) for sparse
 * vectors, whose queries read few dimensions, and row by row (RowVectors) for dense ones, as the
 * rows first sent show them. Messages are handled in the order sent, so a scan
 * sees the rows as they were when it was asked for.
 */
import { parentPort } from 'node:worker_threads';
import { ColumnVectors } from './column-scan.js';
import { RowVectors, isDense } from './row-scan.js';

export type ScannerMessage =
  | { op: 'replace'; segment: number; dimensions: number; data: Int8Array }
  /** Rows from element offset `at` (a multiple of the dimensions) on. */
  | { op: 'append'; segment: number; at: number; data: Int8Array }
  | { op: 'drop'; segment: number }
  /** Over the first `length` elements; only the rows `rows` when set (keys are then positions in it). */
  | { op: 'scan'; id: number; segment: number; length: number; rows: Int32Array | null; query: Int8Array; count: number };

export type ScanReply = { id: number; keys: BigUint64Array; distances: Float32Array } | { id: number; error: string };

const segments = new Map<number, ColumnVectors | RowVectors>();

function handle(m: ScannerMessage): ScanReply | undefined {
  if (m.op === 'replace') {
    const vectors = isDense(m.data) ? new RowVectors(m.dimensions) : new ColumnVectors(m.dimensions);
    vectors.write(0, m.data);
    segments.set(m.segment, vectors);
  } else if (m.op === 'append') {
    const vectors = segments.get(m.segment);
    vectors?.write(m.at / vectors.dimensions, m.data);
  } else if (m.op === 'drop') {
    segments.delete(m.segment);
  } else {
    const vectors = segments.get(m.segment);
    if (!vectors) return { id: m.id, error: `segment ${m.segment} is not mirrored` };
    const { keys, distances } = vectors.scan(m.query, m.count, m.length / vectors.dimensions, m.rows);
    return { id: m.id, keys, distances };
  }
  return undefined;
}

parentPort?.on('message', (m: ScannerMessage) => {
  let reply: ScanReply | undefined;
  try {
    reply = handle(m);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    if (m.op === 'scan') reply = { id: m.id, error };
    // A mirror that missed rows (its memory could not grow, say) would answer from stale rows:
    // it is dropped, so its scans fail and the segment scans on its own thread instead.
    else segments.delete(m.segment);
  }
  if (reply && 'keys' in reply) parentPort?.postMessage(reply, [reply.keys.buffer as ArrayBuffer, reply.distances.buffer as ArrayBuffer]);
  else if (reply) parentPort?.postMessage(reply);
});
