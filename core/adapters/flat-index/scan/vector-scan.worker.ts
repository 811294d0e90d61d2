/**
 * The vector scan worker (see VectorScanner). It keeps a copy of each mirrored segment's rows and
 * answers scans over a prefix of them: laid out by column (ColumnVectors) for sparse vectors,
 * whose queries read few dimensions, and row by row (RowVectors) for dense ones, as the rows first
 * sent show them. A large dense segment's graph (GraphedRows) lives here instead: it is built here
 * and searched here, so neither holds up the main thread. Messages are handled in the order sent,
 * so a scan or a search sees the rows as they were when it was asked for.
 */
import { parentPort } from 'node:worker_threads';
import { GraphedRows } from '../graphed-rows.js';
import type { GraphPolicy, GraphState } from '../vector-graph.js';
import { ColumnVectors } from './column-scan.js';
import { RowVectors, isDense } from './row-scan.js';

export type ScannerMessage =
  | { op: 'replace'; segment: number; dimensions: number; data: Int8Array }
  /** Rows from element offset `at` (a multiple of the dimensions) on, to a mirror or a graph. */
  | { op: 'append'; segment: number; at: number; data: Int8Array }
  | { op: 'drop'; segment: number }
  /** Over the first `length` elements; only the rows `rows` when set (keys are then positions in it). */
  | { op: 'scan'; id: number; segment: number; length: number; rows: Int32Array | null; query: Int8Array; count: number }
  /**
   * Starts a segment's graph (from a saved one when `saved` is set), with the rows from element
   * offset `at` on that it does not hold, and the dead rows among those written.
   */
  | {
      op: 'graph';
      segment: number;
      dimensions: number;
      policy: GraphPolicy;
      saved: { file: string; state: GraphState; rows: number } | undefined;
      at: number;
      data: Int8Array;
      dead: Int32Array;
    }
  | { op: 'remove'; segment: number; rows: number[] }
  /** A compaction (see GraphedRows.renumber); progress from then on is of the next epoch. */
  | { op: 'renumber'; segment: number; moved: Int32Array; rows: number }
  | { op: 'search'; id: number; segment: number; query: Int8Array; wanted: number; only: Int32Array | null }
  | { op: 'save'; id: number; segment: number; file: string };

export type ScanReply =
  | { id: number; keys: BigUint64Array; distances: Float32Array }
  /** A graph's candidates (rows), for the segment to rank exactly. */
  | { id: number; candidates: Int32Array }
  /** The graph does not serve this search: an exact scan should answer it. */
  | { id: number; unserved: true }
  | { id: number; graph: GraphState }
  | { id: number; error: string };

/** How far a segment's graph covers its rows, after each batch added (epochs count compactions). */
export interface GraphProgress {
  progress: number;
  epoch: number;
  covered: number;
}

const segments = new Map<number, ColumnVectors | RowVectors>();
interface GraphEntry {
  graph: GraphedRows;
  epoch: number;
}
const graphs = new Map<number, GraphEntry>();

function graphOf(segment: number): GraphEntry {
  const entry = graphs.get(segment);
  if (!entry) throw new Error(`segment ${segment} has no graph here`);
  return entry;
}

function handle(m: ScannerMessage): ScanReply | undefined {
  switch (m.op) {
    case 'replace': {
      const vectors = isDense(m.data) ? new RowVectors(m.dimensions) : new ColumnVectors(m.dimensions);
      vectors.write(0, m.data);
      segments.set(m.segment, vectors);
      return undefined;
    }
    case 'append': {
      const graph = graphs.get(m.segment)?.graph;
      if (graph) graph.append(m.at / graph.dimensions, m.data, true);
      const vectors = segments.get(m.segment);
      vectors?.write(m.at / vectors.dimensions, m.data);
      return undefined;
    }
    case 'drop':
      segments.delete(m.segment);
      graphs.get(m.segment)?.graph.dispose();
      graphs.delete(m.segment);
      return undefined;
    case 'scan': {
      const vectors = segments.get(m.segment);
      if (!vectors) return { id: m.id, error: `segment ${m.segment} is not mirrored` };
      const { keys, distances } = vectors.scan(m.query, m.count, m.length / vectors.dimensions, m.rows);
      return { id: m.id, keys, distances };
    }
    case 'graph': {
      // A saved graph that does not load throws: the segment is not here, its searches fail, and
      // the segment starts the graph anew.
      const entry = { epoch: 0 } as GraphEntry;
      const progress = (covered: number) => parentPort?.postMessage({ progress: m.segment, epoch: entry.epoch, covered } satisfies GraphProgress);
      entry.graph = new GraphedRows(m.dimensions, m.policy, m.saved, progress);
      entry.graph.append(m.at / m.dimensions, m.data, true);
      entry.graph.remove(Array.from(m.dead));
      graphs.set(m.segment, entry);
      return undefined;
    }
    case 'remove':
      graphOf(m.segment).graph.remove(m.rows);
      return undefined;
    case 'renumber': {
      const entry = graphOf(m.segment);
      entry.epoch++;
      entry.graph.renumber(m.moved, m.rows);
      return undefined;
    }
    case 'search': {
      const candidates = graphOf(m.segment).graph.candidates(m.query, m.wanted, m.only);
      return candidates ? { id: m.id, candidates } : { id: m.id, unserved: true };
    }
    case 'save':
      return { id: m.id, graph: graphOf(m.segment).graph.save(m.file) };
  }
}

parentPort?.on('message', (m: ScannerMessage) => {
  let reply: ScanReply | undefined;
  try {
    reply = handle(m);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    if ('id' in m) reply = { id: m.id, error };
    else {
      // A mirror or a graph that missed rows (its memory could not grow, say) would answer from
      // stale rows: it is dropped, so its scans and searches fail and the segment answers on its
      // own thread instead.
      segments.delete(m.segment);
      graphs.get(m.segment)?.graph.dispose();
      graphs.delete(m.segment);
    }
  }
  if (reply && 'keys' in reply) parentPort?.postMessage(reply, [reply.keys.buffer as ArrayBuffer, reply.distances.buffer as ArrayBuffer]);
  else if (reply && 'candidates' in reply) parentPort?.postMessage(reply, [reply.candidates.buffer as ArrayBuffer]);
  else if (reply) parentPort?.postMessage(reply);
});
