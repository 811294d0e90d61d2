import type { KeywordHit } from '../../ports/keyword-index.js';
import type { Bm25Query, Occurrences } from '../../search/bm25.js';
import type { VectorHit } from '../../ports/vector-index.js';
import { KeywordPostings, type PostingsState, runsOf } from './keyword-postings.js';
import { GraphedRows } from './graphed-rows.js';
import { type ScanMatches, type VectorScanner, scanNow } from './scan/vector-scanner.js';
import type { GraphPolicy, GraphState } from './vector-graph.js';

/** A chunk as a segment takes it: its vector (unless the segment keeps none) and its tsvector's lexemes with their occurrences. */
export interface SegmentChunk {
  id: string;
  vector?: Float32Array | undefined;
  terms?: ReadonlyMap<string, Occurrences> | undefined;
}

/** A document (tenant chunks) or a corpus record (corpus chunks): what filters look at, and its rows. */
export interface Owner {
  key: string;
  rows: number[];
}

export interface IndexedDocument extends Owner {
  subTenantId: string | null;
  tags: Record<string, string>;
  createdAt: Date;
  title: string;
  /** Which state of the owner the index holds (see ChunkLoader): a restored snapshot reads it again when the tables' differs. */
  version: string;
}

export interface IndexedRecord extends Owner {
  metadata: Record<string, unknown>;
  /** As IndexedDocument's. */
  version: string;
}

/** A segment as a snapshot keeps it (see Segment.exportState); owners without their rows. */
export interface SegmentState<O extends Owner> {
  dimensions: number;
  tenantId: string | null;
  subTenantId: string | null;
  rows: number;
  dead: number;
  nonZero: number;
  data: Int8Array;
  chunkIds: string[];
  /** Each row's owner: its position in `owners`, or −1 for a dead row. */
  rowOwner: Int32Array;
  owners: Array<Omit<O, 'rows'>>;
  postings?: PostingsState | undefined;
  /** Present when the graph was written to the file the caller named. */
  graph?: GraphState | undefined;
}

/** What restoring a segment needs besides its state: what the constructor takes. */
export interface SegmentSetup<O extends Owner> {
  scanner?: VectorScanner | undefined;
  labels: (owner: O) => string[];
  keywords: boolean;
  graphPolicy: GraphPolicy | null;
}

/**
 * Quantizes a vector to int8 with its own scale (largest magnitude → 127). Cosine similarity
 * ignores each vector's scale, so the scale is not kept; the rounding costs ~0.5% of precision
 * per component, which moves near-ties only (measured recall@10 against float32: 0.99 at 100k chunks).
 */
export function quantize(vector: Float32Array, out: Int8Array = new Int8Array(vector.length), offset = 0): Int8Array {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < vector.length; i++) out[offset + i] = Math.round(vector[i]! * scale);
  return out;
}

/**
 * The vectors of one knowledge base (or one corpus), quantized, one row per chunk in the order
 * they were added, and, when it keeps keywords, the rows' lexemes (KeywordPostings). Removing an
 * owner leaves its rows dead until enough are dead to compact. A segment of 0 dimensions keeps
 * lexemes only (chunks of another embedder than the one in use, which keyword search still finds).
 *
 * A large segment of dense vectors also gets an HNSW graph (GraphedRows, given a GraphPolicy),
 * built in the background a batch of rows at a time, on the scanner's worker (or here, without
 * one); its searches then go through the graph (plus an exact scan of the rows not yet in it),
 * except filtered searches whose passing rows are few enough to scan exactly (here).
 */
export class Segment<O extends Owner> {
  private data: Int8Array;
  /** Rows written, live or dead. */
  rows = 0;
  dead = 0;
  private chunkIds: string[] = [];
  private rowOwners: Array<O | undefined> = [];
  readonly owners = new Map<string, O>();
  /** The owners by label (see documentLabels): a filter's labels narrow the owners it tests. */
  private readonly labelled = new Map<string, Set<O>>();
  /** The segment's number in the scanner's worker, once it is mirrored there. */
  private mirror: number | undefined;
  private postings: KeywordPostings | undefined;
  /** Non-zero components written (for the density a graph needs). */
  private nonZero = 0;
  /** The graph, when it is here (no worker, or the worker failed). */
  private graph: GraphedRows | undefined;
  /** The graph, when it is on the scanner's worker: its number there, and how far it covers the rows as last heard. */
  private remoteGraph: { id: number; covered: number } | undefined;
  private disposed = false;

  constructor(
    readonly dimensions: number,
    readonly tenantId: string | null,
    readonly subTenantId: string | null,
    /** Scans the segment off the event loop once it is large enough; without one, scans run here. */
    private readonly scanner?: VectorScanner,
    /** An owner's labels (none by default). */
    private readonly labels: (owner: O) => string[] = () => [],
    /** Whether to keep the chunks' lexemes for keyword search. */
    keywords = false,
    /** When the segment's vectors get a graph (none: always scanned exactly). */
    private readonly graphPolicy: GraphPolicy | null = null,
  ) {
    this.data = new Int8Array(64 * dimensions);
    this.postings = keywords ? new KeywordPostings() : undefined;
  }

  get live(): number {
    return this.rows - this.dead;
  }

  /** Threads a scan on this thread may use (the scanner's; else every core). */
  private get threads(): number {
    return this.scanner?.threads ?? 0;
  }

  /** Adds (or replaces) an owner with its chunks (a chunk whose vector is not of the segment's dimensions is left out). */
  put(owner: O, chunks: readonly SegmentChunk[]): void {
    this.remove(owner.key);
    const d = this.dimensions;
    if ((this.rows + chunks.length) * d > this.data.length) {
      const grown = new Int8Array(Math.max((this.rows + chunks.length) * d, this.data.length * 2));
      grown.set(this.data.subarray(0, this.rows * d));
      this.data = grown;
    }
    owner.rows = [];
    const first = this.rows;
    for (const chunk of chunks) {
      if (d > 0) {
        if (chunk.vector?.length !== d) continue;
        quantize(chunk.vector, this.data, this.rows * d);
        for (let i = this.rows * d; i < (this.rows + 1) * d; i++) if (this.data[i] !== 0) this.nonZero++;
      }
      if (chunk.terms) this.postings?.add(this.rows, chunk.terms);
      this.chunkIds.push(chunk.id);
      this.rowOwners.push(owner);
      owner.rows.push(this.rows++);
    }
    this.owners.set(owner.key, owner);
    for (const label of this.labels(owner)) {
      let owners = this.labelled.get(label);
      if (!owners) this.labelled.set(label, (owners = new Set()));
      owners.add(owner);
    }
    const written = this.data.subarray(first * d, this.rows * d);
    this.graph?.append(first, written);
    if (this.remoteGraph) this.scanner!.append(this.remoteGraph.id, first * d, written);
    this.startGraph();
    if (this.hasGraph) return;
    if (this.mirror !== undefined) this.scanner!.append(this.mirror, first * d, this.data.subarray(first * d, this.rows * d));
    else if (this.scanner?.offloads(this.rows * d)) {
      this.mirror = this.scanner.segmentId();
      this.scanner.replace(this.mirror, d, this.data.subarray(0, this.rows * d));
    }
  }

  /**
   * Starts the graph once the segment qualifies (or from a saved one, which it then always gets),
   * on the scanner's worker (its mirror there is dropped: searches go through the graph, and the
   * few exact scans left run here), or here when there is no worker or `here` asks for it.
   */
  private startGraph(saved?: { file: string; state: GraphState }, here = false): void {
    const policy = this.graphPolicy;
    const d = this.dimensions;
    if (!policy || this.disposed || d === 0 || this.hasGraph) return;
    if (!saved && (this.live * d < policy.minBytes || this.nonZero < policy.minDensity * this.rows * d)) return;
    this.dropMirror();
    const dead: number[] = [];
    for (let row = 0; row < this.rows; row++) if (!this.rowOwners[row]) dead.push(row);
    const loaded = saved && { ...saved, rows: this.rows };
    const at = saved?.state.covered ?? 0;
    const rows = this.data.subarray(at * d, this.rows * d);
    if (this.scanner?.available && !here) {
      const remote = { id: this.scanner.segmentId(), covered: at };
      this.remoteGraph = remote;
      this.scanner.startGraph(remote.id, d, policy, loaded, at * d, rows, Int32Array.from(dead), (covered) => {
        remote.covered = covered;
      });
      return;
    }
    let graph: GraphedRows;
    try {
      graph = new GraphedRows(d, policy, loaded);
      graph.append(at, rows);
    } catch {
      // A saved graph that does not load is built anew.
      graph = new GraphedRows(d, policy);
      graph.append(0, this.data.subarray(0, this.rows * d));
    }
    graph.remove(dead);
    this.graph = graph;
  }

  /** Rows not yet in the graph (0 without one): searches scan them exactly. */
  get graphPending(): number {
    if (this.remoteGraph) return Math.max(0, this.rows - this.remoteGraph.covered);
    return this.graph?.pending ?? 0;
  }

  /** Whether the segment has a graph. */
  get hasGraph(): boolean {
    return this.graph !== undefined || this.remoteGraph !== undefined;
  }

  /**
   * The segment's state as of now, for a snapshot: the rows' vectors as they are (rows added later
   * are past `rows`, and a compaction writes new memory, so the caller may write them out while
   * the segment changes), everything else copied; the graph, if any, is written to `graphFile`
   * (on the worker, in the order of the segment's changes: as of now), and `graph` is absent when it
   * could not be.
   */
  async exportState(graphFile: string | undefined): Promise<SegmentState<O>> {
    const owners: Array<Omit<O, 'rows'>> = [];
    const position = new Map<O, number>();
    for (const owner of this.owners.values()) {
      position.set(owner, owners.length);
      const { rows: _rows, ...rest } = owner;
      owners.push(rest);
    }
    const rowOwner = new Int32Array(this.rows);
    for (let row = 0; row < this.rows; row++) {
      const owner = this.rowOwners[row];
      rowOwner[row] = owner ? position.get(owner)! : -1;
    }
    const remote = this.remoteGraph;
    const savedGraph =
      !graphFile ? undefined
      : remote ? this.scanner!.saveGraph(remote.id, graphFile).catch(() => undefined)
      : this.graph?.save(graphFile);
    return {
      dimensions: this.dimensions,
      tenantId: this.tenantId,
      subTenantId: this.subTenantId,
      rows: this.rows,
      dead: this.dead,
      nonZero: this.nonZero,
      data: this.data.subarray(0, this.rows * this.dimensions),
      chunkIds: this.chunkIds.slice(0, this.rows),
      rowOwner,
      owners,
      postings: this.postings?.exportState(),
      graph: await savedGraph,
    };
  }

  /** A segment restored from `exportState` (the graph from `graphFile`, else built anew when the policy asks for one). */
  static restore<O extends Owner>(state: SegmentState<O>, graphFile: string | undefined, setup: SegmentSetup<O>): Segment<O> {
    const segment = new Segment<O>(state.dimensions, state.tenantId, state.subTenantId, setup.scanner, setup.labels, false, setup.graphPolicy);
    const d = state.dimensions;
    // The state's own rows (a snapshot's are read into memory of their own); put grows them when needed.
    segment.data = state.data.length ? state.data : new Int8Array(64 * d);
    segment.rows = state.rows;
    segment.dead = state.dead;
    segment.nonZero = state.nonZero;
    segment.chunkIds = state.chunkIds;
    // Object.assign, not a spread: on Node.js 20 (V8 11) objects made by spreading the parsed
    // snapshot's read 10–20× slower than literals, which a filter testing every owner under a tag
    // pays on every query (docs/performance.md, "Owners read back from a snapshot").
    const owners = state.owners.map((o) => Object.assign({}, o, { rows: [] as number[] }) as unknown as O);
    segment.rowOwners = Array.from(state.rowOwner, (i) => (i >= 0 ? owners[i] : undefined));
    state.rowOwner.forEach((i, row) => {
      if (i >= 0) owners[i]!.rows.push(row);
    });
    for (const owner of owners) {
      segment.owners.set(owner.key, owner);
      for (const label of setup.labels(owner)) {
        let labelled = segment.labelled.get(label);
        if (!labelled) segment.labelled.set(label, (labelled = new Set()));
        labelled.add(owner);
      }
    }
    if (setup.keywords) segment.postings = state.postings ? KeywordPostings.fromState(state.postings) : new KeywordPostings();
    segment.startGraph(state.graph && graphFile ? { file: graphFile, state: state.graph } : undefined);
    if (!segment.hasGraph && setup.scanner?.offloads(segment.rows * d)) {
      segment.mirror = setup.scanner.segmentId();
      setup.scanner.replace(segment.mirror, d, segment.data.subarray(0, segment.rows * d));
    }
    return segment;
  }

  /** Frees the segment's mirror and graph (the segment is no longer used). */
  dispose(): void {
    this.disposed = true;
    this.dropGraph();
    this.dropMirror();
  }

  private dropGraph(): void {
    this.graph?.dispose();
    this.graph = undefined;
    if (this.remoteGraph) this.scanner!.drop(this.remoteGraph.id);
    this.remoteGraph = undefined;
  }

  private dropMirror(): void {
    if (this.mirror !== undefined) this.scanner!.drop(this.mirror);
    this.mirror = undefined;
  }

  remove(key: string): void {
    const owner = this.owners.get(key);
    if (!owner) return;
    for (const row of owner.rows) this.rowOwners[row] = undefined;
    this.graph?.remove(owner.rows);
    if (this.remoteGraph) this.scanner!.removeRows(this.remoteGraph.id, owner.rows);
    this.dead += owner.rows.length;
    this.owners.delete(key);
    for (const label of this.labels(owner)) {
      const owners = this.labelled.get(label);
      owners?.delete(owner);
      if (owners?.size === 0) this.labelled.delete(label);
    }
    if (this.dead > 1024 && this.dead * 8 > this.rows) this.compact();
  }

  /**
   * Rewrites the live rows contiguously into new memory (a copy of the segment's; rare). The old
   * rows stay as they were for a scan still reading them.
   */
  private compact(): void {
    const d = this.dimensions;
    const data = new Int8Array(Math.max(64, this.live) * d);
    const chunkIds: string[] = [];
    const rowOwners: O[] = [];
    const moved = new Int32Array(this.rows).fill(-1);
    for (const owner of this.owners.values()) {
      const rows: number[] = [];
      for (const row of owner.rows) {
        data.set(this.data.subarray(row * d, (row + 1) * d), chunkIds.length * d);
        moved[row] = chunkIds.length;
        rows.push(chunkIds.length);
        chunkIds.push(this.chunkIds[row]!);
        rowOwners.push(owner);
      }
      owner.rows = rows;
    }
    this.data = data;
    this.chunkIds = chunkIds;
    this.rowOwners = rowOwners;
    this.rows = chunkIds.length;
    this.dead = 0;
    this.postings?.renumber(moved);
    this.graph?.renumber(moved, this.rows);
    const remote = this.remoteGraph;
    if (remote) {
      this.scanner!.renumber(remote.id, moved, this.rows);
      // As the graph renumbers it (what was last heard, so at most how far it covers the rows).
      let covered = 0;
      for (let row = 0; row < Math.min(remote.covered, moved.length); row++) if (moved[row]! >= 0) covered = moved[row]! + 1;
      remote.covered = covered;
    }
    if (this.mirror !== undefined) this.scanner!.replace(this.mirror, d, this.data.subarray(0, this.rows * d));
  }

  /**
   * The `limit` rows closest to `query` among those whose owner `accept`s (null: every live row),
   * exactly (over int8). `labels` are labels every accepted owner carries: only the owners under
   * the rarest of them are tested (a tag filter tests a tenth of a knowledge base's documents, not
   * all). When most rows pass, the whole segment is scanned (on the scanner's worker once the
   * segment is mirrored there) and the answer filtered, scanning deeper until `limit` rows pass;
   * when under a quarter pass, only they are scanned (listed to the worker, gathered here). Either
   * way the filter holds inside the scan, so a filtered search returns `limit` rows whenever that
   * many match.
   *
   * A scan reads the rows as they were when it started (rows added meanwhile are past its end,
   * and compaction writes new memory), its row numbers are resolved against that same state, and
   * a hit whose owner was removed meanwhile is dropped.
   */
  async nearest(query: Int8Array, limit: number, accept: ((owner: O) => boolean) | null, labels: readonly string[] = []): Promise<VectorHit[]> {
    const d = this.dimensions;
    if (!this.live || limit < 1) return [];
    let allowed = this.live;
    const accepted = this.accepted(accept, labels);
    if (accepted) {
      allowed = accepted.reduce((n, o) => n + o.rows.length, 0);
      if (!allowed) return [];
    }
    const wanted = Math.min(limit, allowed);
    const graphHits = await this.graphNearest(query, wanted, accepted, allowed);
    if (graphHits) return graphHits;
    const state = { chunkIds: this.chunkIds, rowOwners: this.rowOwners };
    const rows = this.rows;
    const data = this.data;
    const dataset = data.subarray(0, rows * d);
    const mirror = this.mirror;
    const scan = async (k: number, only: Int32Array | null): Promise<ScanMatches> => {
      if (mirror !== undefined && this.scanner!.offloads(dataset.length)) {
        try {
          return await this.scanner!.scan(mirror, dataset.length, query, k, only);
        } catch {
          // The worker failed: this thread still has the rows.
        }
      }
      return scanNow(only ? this.gather(data, only) : dataset, query, d, k, this.threads);
    };
    // Here, gathering costs a copy of every passing row; a full scan reads every row and, filtered,
    // must go deep (k of ~20× the limit at a 10% filter, which usearch's top-k selection pays for).
    // Under a quarter of the rows, gathering is cheaper (100k chunks, 10% filter: 12 → 6 ms). The
    // worker's column scan reads the same columns either way and selects among the listed rows only.
    if (accepted && allowed * 4 < this.live) {
      const only = rowsOf(accepted, allowed);
      return this.hits(state, await scan(wanted, only), (i) => only[i]!);
    }
    // Deep enough that, at the share of rows that pass, twice `limit` of them are expected among the first k.
    let k = Math.min(rows, Math.ceil((2 * wanted * this.live) / allowed) + this.dead + 16);
    for (;;) {
      const hits = this.hits(state, await scan(k, null), (i) => i, accept);
      if (hits.length >= wanted || k >= rows) return hits.slice(0, wanted);
      k = Math.min(rows, k * 4);
    }
  }

  /**
   * The search through the graph, when it serves this one: its candidates (GraphedRows.candidates)
   * ranked exactly on the segment's rows. Undefined when it does not (no graph, too many rows not
   * in it yet, too few candidates found, or few enough passing rows to scan them exactly). When the
   * worker fails to answer, the graph is started anew here.
   */
  private async graphNearest(query: Int8Array, wanted: number, accepted: O[] | undefined, allowed: number): Promise<VectorHit[] | undefined> {
    const policy = this.graphPolicy;
    if (!this.hasGraph || !policy) return undefined;
    if (accepted && allowed * this.dimensions <= policy.exactBytes) return undefined;
    // The rows as they are now: the worker answers in their numbering, and a compaction meanwhile writes new memory.
    const state = { chunkIds: this.chunkIds, rowOwners: this.rowOwners };
    const data = this.data;
    const only = accepted ? rowsOf(accepted, allowed) : null;
    const remote = this.remoteGraph;
    let candidates: Int32Array | undefined;
    if (remote) {
      try {
        candidates = await this.scanner!.graphCandidates(remote.id, query, wanted, only);
      } catch {
        if (this.remoteGraph === remote) {
          this.dropGraph();
          this.startGraph(undefined, true);
        }
        return undefined;
      }
    } else {
      candidates = this.graph!.candidates(query, wanted, only);
    }
    if (!candidates) return undefined;
    const ranked = scanNow(this.gather(data, candidates), query, this.dimensions, wanted, this.threads);
    return this.hits(state, ranked, (i) => candidates[i]!);
  }

  /**
   * The owners `accept` passes (undefined: no filter, every owner), tested only among those under
   * the rarest of `labels`, which every accepted owner carries.
   */
  private accepted(accept: ((owner: O) => boolean) | null, labels: readonly string[]): O[] | undefined {
    if (!accept) return undefined;
    let candidates: Iterable<O> = this.owners.values();
    let fewest = Infinity;
    for (const label of labels) {
      const owners = this.labelled.get(label) ?? new Set<O>();
      if (owners.size < fewest) [candidates, fewest] = [owners, owners.size];
    }
    return [...candidates].filter(accept);
  }

  /**
   * The `limit` live rows holding any of the query's lexemes, ranked by BM25F as the database's
   * search ranks them (see KeywordPostings), among those whose owner `accept`s; equal ranks by
   * chunk id, as the database search orders them. Nothing when the segment keeps no lexemes.
   */
  keywordHits(
    query: Bm25Query,
    limit: number,
    accept: ((owner: O) => boolean) | null,
    labels: readonly string[] = [],
  ): KeywordHit[] {
    if (!this.postings || !this.live) return [];
    const accepted = this.accepted(accept, labels);
    if (accepted?.length === 0) return [];
    const { chunkIds, rowOwners } = this;
    const tieBreak = (row: number) => chunkIds[row]!;
    let ranked;
    const passing = accepted && runsOf(accepted.map((owner) => owner.rows));
    if (passing && this.postings.prefersRuns(query, passing.runs, passing.rows, this.rows)) {
      // A filter passing a small share of the rows (a tag on 10 % or 0.1 % of documents): the
      // postings walked within its rows only (an owner's rows are a run), not whole.
      ranked = this.postings.rankRuns(query, passing.runs, limit, tieBreak);
    } else {
      const allowed = accepted && new Set(accepted);
      const passes = (row: number) => {
        const owner = rowOwners[row];
        return owner !== undefined && (!allowed || allowed.has(owner));
      };
      ranked = this.postings.rank(query, this.rows, limit, passes, tieBreak);
    }
    return ranked.map((r) => ({ chunkId: chunkIds[r.row]!, rank: r.rank }));
  }

  /** Copies these rows of `data` together (an owner's rows were added together: mostly one copy per run). */
  private gather(data: Int8Array, rows: Int32Array): Int8Array {
    const d = this.dimensions;
    const out = new Int8Array(rows.length * d);
    let start = 0;
    for (let i = 1; i <= rows.length; i++) {
      if (i < rows.length && rows[i] === rows[i - 1]! + 1) continue;
      out.set(data.subarray(rows[start]! * d, (rows[i - 1]! + 1) * d), start * d);
      start = i;
    }
    return out;
  }

  private hits(
    state: { chunkIds: string[]; rowOwners: Array<O | undefined> },
    matches: ScanMatches,
    row: (i: number) => number,
    accept?: ((owner: O) => boolean) | null,
  ): VectorHit[] {
    const out: VectorHit[] = [];
    for (let i = 0; i < matches.keys.length; i++) {
      const r = row(Number(matches.keys[i]));
      const owner = state.rowOwners[r];
      if (!owner || this.owners.get(owner.key) !== owner || (accept && !accept(owner))) continue;
      out.push({ chunkId: state.chunkIds[r]!, similarity: 1 - matches.distances[i]! });
    }
    return out;
  }
}

/** The rows of these owners (`count` of them), one after the other. */
function rowsOf(owners: readonly Owner[], count: number): Int32Array {
  const rows = new Int32Array(count);
  let n = 0;
  for (const owner of owners) for (const row of owner.rows) rows[n++] = row;
  return rows;
}
