import { type GraphPolicy, type GraphState, VectorGraph } from './vector-graph.js';

/**
 * A large dense segment's HNSW graph (VectorGraph) with what a search through it needs besides:
 * the rows not yet in the graph and which rows are dead. It runs on the scan worker
 * (vector-scan.worker.ts), so building the graph and searching it leave the main thread's event
 * loop free (a hybrid query's keyword leg runs there meanwhile); without a worker, on the
 * segment's thread. Either way the graph grows a batch of rows per turn of the event loop.
 *
 * It keeps the rows not yet in the graph (the tail: rows `covered`..`rows` − 1), given in order
 * as the segment writes them (`append`), and drops each once the graph has it (the graph keeps
 * its own quantization of them), so the segment's rows are not copied whole. Its searches propose
 * candidates, which the segment ranks exactly on its rows. It is told of every change in the
 * order the segment makes them: rows written (`append`), rows removed (`remove`), a compaction
 * (`renumber`).
 */
export class GraphedRows {
  private readonly graph: VectorGraph;
  /** Rows written. */
  private rows: number;
  /** Rows `tailStart`.. are in `tail`, one after the other (those before `covered` no longer needed). */
  private tail: Int8Array = new Int8Array(0);
  private tailStart: number;
  private dead: Uint8Array;
  private deadRows = 0;
  /** Whether a batch of rows is queued for the graph. */
  private building = false;
  private disposed = false;

  constructor(
    readonly dimensions: number,
    private readonly policy: GraphPolicy,
    /** A saved graph to start from (its file and state, which say how many rows it covers), instead of an empty one. */
    saved?: { file: string; state: GraphState; rows: number },
    /** Told after each batch added to the graph (how far it covers the rows). */
    private readonly progress: (covered: number) => void = () => undefined,
  ) {
    this.graph = saved ? VectorGraph.load(saved.file, dimensions, policy, saved.state, saved.rows) : new VectorGraph(dimensions, policy);
    this.rows = this.graph.covered;
    this.tailStart = this.graph.covered;
    this.dead = new Uint8Array(1024);
  }

  /** How far the graph covers the rows (rows before it were added to it, or skipped as dead). */
  get covered(): number {
    return this.graph.covered;
  }

  /** Rows not yet in the graph (searches scan them exactly). */
  get pending(): number {
    return this.rows - this.graph.covered;
  }

  /**
   * Rows `at`.. are `data` (row-major; `at` is at most the rows written so far, rows past the new
   * ones are dropped). `owned`: the caller hands `data` over (a message's copy), so it is kept as
   * it is when the graph has every row before it, not copied.
   */
  append(at: number, data: Int8Array, owned = false): void {
    const d = this.dimensions;
    if (at < this.graph.covered || at > this.rows) throw new Error(`rows from ${at} cannot be written: the graph covers ${this.graph.covered}, ${this.rows} are written`);
    const end = at + data.length / d;
    this.reserve(end);
    if (owned && at === this.graph.covered) {
      this.tail = data;
      this.tailStart = at;
      this.rows = end;
      this.grow();
      return;
    }
    const needed = (end - this.tailStart) * d;
    if (needed > this.tail.length) {
      // Rows the graph has are dropped from the front when the buffer moves.
      const keep = this.tail.subarray((this.graph.covered - this.tailStart) * d, (at - this.tailStart) * d);
      const grown = new Int8Array(Math.max((end - this.graph.covered) * d, Math.ceil(keep.length * 1.5)));
      grown.set(keep);
      this.tail = grown;
      this.tailStart = this.graph.covered;
    }
    this.tail.set(data, (at - this.tailStart) * d);
    this.rows = end;
    this.grow();
  }

  /** These rows' owner was removed. */
  remove(rows: readonly number[]): void {
    for (const row of rows) {
      if (row >= this.rows || this.dead[row] === 1) continue;
      this.dead[row] = 1;
      this.deadRows++;
    }
    this.graph.remove(rows);
  }

  /**
   * Follows a compaction: `moved[row]` is each old row's new number (−1: gone; dead rows are
   * gone), `rows` the rows left. Compaction keeps the rows' order, so the tail stays a tail.
   */
  renumber(moved: Int32Array, rows: number): void {
    const d = this.dimensions;
    const from = this.graph.covered;
    this.graph.renumber(moved, rows);
    const tail = new Int8Array(Math.max(0, rows - this.graph.covered) * d);
    let n = 0;
    for (let row = from; row < this.rows; row++) {
      if (moved[row]! < 0) continue;
      tail.set(this.tail.subarray((row - this.tailStart) * d, (row - this.tailStart + 1) * d), n++ * d);
    }
    this.tail = tail;
    this.tailStart = this.graph.covered;
    this.rows = rows;
    this.dead = new Uint8Array(Math.max(1024, rows));
    this.deadRows = 0;
    this.progress(this.graph.covered);
    this.grow();
  }

  /** Writes the graph to `file` (usearch's format) and returns the rest of its state. */
  save(file: string): GraphState {
    return this.graph.save(file);
  }

  dispose(): void {
    this.disposed = true;
  }

  /**
   * Candidates for the `wanted` rows nearest `query` among the live rows (or only those listed in
   * `only`, when set), for the caller to rank exactly on its rows; undefined when the graph does not
   * serve this search and an exact scan should answer it: too many rows not in the graph yet, or
   * too few candidates found.
   *
   * usearch keeps the graph's vectors in its own int8 quantization (of each row scaled to unit
   * length), coarser than the segment's (each row scaled to its largest component): alone, they
   * found ~0.90 of the exact top 10 on clustered vectors whatever the ef. So the graph proposes
   * candidates (four times as many as wanted, at least 40; filtered, as many as should hold that
   * many passing ones), which with the rows not yet in it are ranked exactly (0.99). Filtered, it
   * goes deeper while too few pass, up to a quarter of the graph; past that an exact scan is
   * cheaper. It never answers short: `wanted` rows pass (the caller counted them), so fewer
   * candidates mean the graph missed some.
   */
  candidates(query: Int8Array, wanted: number, only: Int32Array | null): Int32Array | undefined {
    const { graph, dimensions: d } = this;
    if (this.pending * d > Math.max(this.policy.exactBytes, (graph.size * d) / 8)) return undefined;
    let allowed: Uint8Array | undefined;
    if (only) {
      allowed = new Uint8Array(this.rows);
      for (const row of only) if (row < this.rows) allowed[row] = 1;
    }
    const passes = (row: number) => row < this.rows && this.dead[row] === 0 && (!allowed || allowed[row] === 1);
    const tail: number[] = [];
    for (let row = graph.covered; row < this.rows; row++) if (passes(row)) tail.push(row);
    const live = this.rows - this.deadRows;
    let k = Math.max(40, 4 * (only ? Math.ceil((wanted * live) / Math.max(1, only.length)) : wanted));
    for (;;) {
      const found = graph.search(query, k);
      const candidates: number[] = [];
      for (const key of found.keys) if (passes(Number(key))) candidates.push(Number(key));
      if (candidates.length + tail.length >= wanted) return Int32Array.from([...candidates, ...tail]);
      // Too few even from the whole graph (a search need not reach every node: equal vectors
      // leave some unreachable), or so deep that the exact scan is cheaper: the caller scans.
      if (k * 4 > graph.size) return undefined;
      k *= 4;
    }
  }

  private reserve(rows: number): void {
    if (rows <= this.dead.length) return;
    const grown = new Uint8Array(Math.max(rows, this.dead.length * 2));
    grown.set(this.dead);
    this.dead = grown;
  }

  /**
   * Adds the rows not yet in the graph, a batch per turn of the event loop: as many as fit in about
   * `policy.batchMs` (on every core: the loop waits for the batch either way), so a backlog (a large
   * load) goes as fast as the machine allows while a search waits at most that long.
   */
  private grow(): void {
    if (this.building || this.disposed || this.graph.covered >= this.rows) return;
    this.building = true;
    let batch = 16;
    const step = () => {
      if (this.disposed) return;
      const { graph } = this;
      const started = performance.now();
      graph.add(this.tail, this.tailStart, graph.covered, Math.min(this.rows, graph.covered + batch), (row) => this.dead[row] === 0, 0);
      const elapsed = performance.now() - started;
      batch = Math.max(16, Math.min(4096, Math.round((batch * this.policy.batchMs) / Math.max(elapsed, 0.1))));
      // Rows the graph has leave the tail once they are half of it (so the copying stays in
      // proportion to the rows added).
      const d = this.dimensions;
      if ((graph.covered - this.tailStart) * d * 2 > this.tail.length) {
        this.tail = this.tail.slice((graph.covered - this.tailStart) * d, (this.rows - this.tailStart) * d);
        this.tailStart = graph.covered;
      }
      this.progress(graph.covered);
      if (graph.covered < this.rows) setImmediate(step);
      else this.building = false;
    };
    setImmediate(step);
  }
}
