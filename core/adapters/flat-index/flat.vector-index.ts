import type { Logger } from 'pino';
import type { Database, SqlParam } from '../../db/database.js';
import { EmbeddingReader } from '../../db/embeddings.js';
import { turnEventLoop } from '../../shared/event-loop.js';
import { type DocumentIndexed, type KnownVectors, type VectorHit, type VectorIndex, type VectorIndexStatus, compareHits } from '../../ports/vector-index.js';
import {
  type ChunkFilter,
  type CorpusChunkFilter,
  documentFilterLabels,
  documentLabels,
  documentMatcher,
  metadataMatcher,
  recordFilterLabels,
  recordLabels,
} from '../../search/chunk-filter.js';
import { tsvectorCounts } from '../../db/tsvector.js';
import { type KeywordHit, compareKeywordHits } from '../../ports/keyword-index.js';
import { KeywordPostings } from './keyword-postings.js';
import { withFrequencies, wordSelections } from '../../search/search.repository.js';
import { PgVectorIndex } from '../pgvector.vector-index.js';
import { type ScanMatches, VectorScanner, scanNow } from './scan/vector-scanner.js';

export interface FlatVectorIndexOptions {
  /** Threads one exact scan may use (0: every core but one; see VectorScanner). */
  threads: number;
  /** Rows read back from the database per round trip while loading. */
  loadPageSize: number;
  /**
   * Segments of at least this many bytes of vectors are scanned on a worker thread (see
   * VectorScanner); smaller ones, whose scan costs less than the round trip, on the caller's.
   * 4 MiB is ~4,000 chunks of 1,024 dimensions, a scan of ~0.2 ms.
   */
  workerMinBytes: number;
  /**
   * Whether segments also keep their chunks' lexemes, for the in-memory keyword search
   * (FlatKeywordIndex; KEYWORD_INDEX=flat).
   */
  keywords: boolean;
}

export const DEFAULT_FLAT_OPTIONS: FlatVectorIndexOptions = { threads: 0, loadPageSize: 1000, workerMinBytes: 4 * 1024 * 1024, keywords: true };

/** A chunk as a segment takes it: its vector (unless the segment keeps none) and its tsvector's lexeme counts. */
export interface SegmentChunk {
  id: string;
  vector?: Float32Array | undefined;
  terms?: ReadonlyMap<string, number> | undefined;
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
}

export interface IndexedRecord extends Owner {
  metadata: Record<string, unknown>;
}

/** What one search reads: segments, the test of their owners (null: every owner passes), and labels every passing owner carries. */
interface SearchTarget<O extends Owner> {
  segments: Array<Segment<O>>;
  accept: ((owner: O) => boolean) | null;
  labels: readonly string[];
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
  private readonly postings: KeywordPostings | undefined;

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
    if (this.mirror !== undefined) this.scanner!.append(this.mirror, first * d, this.data.subarray(first * d, this.rows * d));
    else if (this.scanner?.offloads(this.rows * d)) {
      this.mirror = this.scanner.segmentId();
      this.scanner.replace(this.mirror, d, this.data.subarray(0, this.rows * d));
    }
  }

  /** Frees the segment's mirror (the segment is no longer used). */
  dispose(): void {
    if (this.mirror !== undefined) this.scanner!.drop(this.mirror);
    this.mirror = undefined;
  }

  remove(key: string): void {
    const owner = this.owners.get(key);
    if (!owner) return;
    for (const row of owner.rows) this.rowOwners[row] = undefined;
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
      const only = new Int32Array(allowed);
      let n = 0;
      for (const owner of accepted) for (const row of owner.rows) only[n++] = row;
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

  /** How many of the segment's rows hold `lexeme` (rows removed since the last compaction included). */
  rowsHolding(lexeme: string): number {
    return this.postings?.rowsHolding(lexeme) ?? 0;
  }

  /**
   * The `limit` live rows holding any of `lexemes`, ranked as PostgreSQL's ts_rank ranks them
   * (see KeywordPostings), among those whose owner `accept`s and, when `groups` are given, that
   * hold every word of one of them (a word: any of its lexemes); equal ranks by chunk id, as the
   * database search orders them. Nothing when the segment keeps no lexemes.
   */
  keywordHits(
    lexemes: readonly string[],
    limit: number,
    accept: ((owner: O) => boolean) | null,
    labels: readonly string[] = [],
    groups?: ReadonlyArray<ReadonlyArray<readonly string[]>>,
  ): KeywordHit[] {
    if (!this.postings || !this.live) return [];
    const accepted = this.accepted(accept, labels);
    const allowed = accepted && new Set(accepted);
    if (allowed?.size === 0) return [];
    const { chunkIds, rowOwners } = this;
    const ranked = this.postings.rank(
      lexemes,
      this.rows,
      limit,
      (row) => {
        const owner = rowOwners[row];
        return owner !== undefined && (!allowed || allowed.has(owner));
      },
      (row) => chunkIds[row]!,
      groups,
    );
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

/** The segment of a knowledge base or corpus, made on first use. */
function segmentOf<O extends Owner>(segments: Map<string, Segment<O>>, id: string, make: () => Segment<O>): Segment<O> {
  let segment = segments.get(id);
  if (!segment) segments.set(id, (segment = make()));
  return segment;
}

interface ChunkRow {
  id: string;
  owner: string;
  chunk_index: number;
  /** The vector as the database sends it (see EmbeddingReader), or null when the notifier passed it in or none is read. */
  e: unknown;
  /** The tsvector as text, when the index keeps keywords. */
  t: string | null;
}

/**
 * The embedded topology's vector index: every searchable chunk's vector, quantized to int8, in this
 * process's memory (one segment per knowledge base and per corpus), searched by an exact SIMD scan
 * (usearch's `exactSearch`). Exact, so recall is that of int8 against float32 (~0.99 at 10), with
 * filters evaluated per document inside the scan; adding a chunk costs a copy, not a graph insert.
 * A scan reads every candidate row: ~5 ms per 100,000 chunks of 1,024 dimensions on this
 * project's 2-core machine, growing linearly — past a few hundred thousand chunks per knowledge
 * base a graph index (pgvector HNSW on a server, or Qdrant) is the better trade.
 *
 * The database stays the source of truth: at start-up the index is read from the chunk tables in
 * the background (searches go to the database meanwhile, exactly), and the change notifications
 * keep it current. Notifications are applied one at a time, in the order they arrive, and a
 * removal applies once more after every earlier notification, so a late one never resurrects a
 * deleted document. Meant for one process per database (the embedded topology): a second process
 * writing to the same database would not notify this one.
 */
export class FlatVectorIndex implements VectorIndex {
  readonly kind = 'flat';
  private readonly options: FlatVectorIndexOptions;
  /** Searches while the index is loading: the database, exactly (no HNSW indexes to keep up). */
  private readonly fallback: PgVectorIndex;
  private readonly knowledgeBases = new Map<string, Segment<IndexedDocument>>();
  /**
   * Per knowledge base, the lexemes of chunks embedded by another embedder than the one in use
   * (after a change of model): vector search skips them, keyword search still finds them.
   */
  private readonly otherEmbedders = new Map<string, Segment<IndexedDocument>>();
  private readonly corpora = new Map<string, Segment<IndexedRecord>>();
  /** Loading, then each notification, in order. */
  private queue: Promise<void> = Promise.resolve();
  private loadedFlag = false;
  private closed = false;
  /** Resolves when the start-up load finished (searches are served from memory from then on). */
  loaded: Promise<void> = Promise.resolve();
  private readonly scanner: VectorScanner;

  constructor(
    private readonly db: Database,
    private readonly embedderId: string,
    private readonly log: Pick<Logger, 'info' | 'error'>,
    options: Partial<FlatVectorIndexOptions> = {},
  ) {
    this.options = { ...DEFAULT_FLAT_OPTIONS, ...options };
    this.fallback = new PgVectorIndex(db, { graphs: false });
    this.scanner = new VectorScanner(this.options.threads, this.options.workerMinBytes);
  }

  /**
   * Drops the database's HNSW indexes (every insert would otherwise pay for a graph nobody
   * searches; the pgvector adapter builds them again when it is chosen), then loads in the background.
   */
  start(): Promise<void> {
    const started = Date.now();
    this.loaded = this.enqueue(async () => {
      const { rows } = await this.db.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()
           AND tablename IN ('chunks', 'platform_chunks') AND indexdef ILIKE '%USING hnsw%'`,
      );
      for (const r of rows) await this.db.exec(`DROP INDEX IF EXISTS "${r.indexname.replace(/"/g, '""')}"`);
      const chunks = (await this.loadDocuments(null)) + (await this.loadRecords(null, null));
      this.loadedFlag = true;
      this.log.info({ chunks, ms: Date.now() - started }, 'vector index loaded');
    });
    this.loaded.catch((err: unknown) => this.log.error({ err }, 'loading the vector index failed; searches stay on the database'));
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => undefined);
    await this.scanner.close();
  }

  status(): Promise<VectorIndexStatus> {
    const state = this.loadedFlag ? 'ok' : 'missing';
    return Promise.resolve({ tenant: state, corpus: state });
  }

  async ensureDimensions(): Promise<void> {
    // Segments take any dimension.
  }

  /** Whether keyword searches can be served from memory now (the index keeps lexemes and has loaded). */
  get servesKeywords(): boolean {
    return this.options.keywords && this.loadedFlag;
  }

  /**
   * The in-memory keyword search (FlatKeywordIndex): the `limit` chunks best ranked by ts_rank for
   * the OR of the query words' lexemes (`words`: each word's lexemes), over the filter's knowledge
   * bases (chunks of every embedder, as the database search), with the filter applied per
   * document inside the ranking. Which chunks are ranked is chosen by the words' share of the
   * searched chunks, as the database search chooses (`wordSelections`), with no row budget. Call it
   * only while `servesKeywords`.
   */
  async keywordSearch(params: { filter: ChunkFilter; words: ReadonlyArray<readonly string[]>; limit: number }): Promise<KeywordHit[]> {
    // Changes notified before this search apply first.
    await this.queue;
    return this.keywordHits(this.tenantTarget(params.filter, true), params);
  }

  /** As `keywordSearch`, over platform corpus chunks (those of the embedder in use, which the index holds). */
  async keywordSearchCorpora(params: { filter: CorpusChunkFilter; words: ReadonlyArray<readonly string[]>; limit: number }): Promise<KeywordHit[]> {
    await this.queue;
    return this.keywordHits(this.corpusTarget(params.filter), params);
  }

  /**
   * What a search over a tenant's knowledge bases reads: their segments (with `otherEmbedders`, the
   * lexeme-only segments of other embedders' chunks too, unless the filter names an embedder),
   * those of another tenant left out whatever ids the caller passed; its documents' test; and the
   * labels every accepted document carries.
   */
  private tenantTarget(filter: ChunkFilter, otherEmbedders = false): SearchTarget<IndexedDocument> {
    const ids = filter.knowledgeBaseIds;
    const segments = [
      ...(!filter.embedder || filter.embedder === this.embedderId ? ids.map((id) => this.knowledgeBases.get(id)) : []),
      ...(otherEmbedders && !filter.embedder ? ids.map((id) => this.otherEmbedders.get(id)) : []),
    ];
    return {
      segments: segments.filter((s): s is Segment<IndexedDocument> => s?.tenantId === filter.scope.tenantId),
      accept: documentMatcher(filter),
      labels: documentFilterLabels(filter),
    };
  }

  /** As `tenantTarget`, for corpora (whose segments hold the embedder in use's chunks only). */
  private corpusTarget(filter: CorpusChunkFilter): SearchTarget<IndexedRecord> {
    const matches = metadataMatcher(filter);
    const segments = !filter.embedder || filter.embedder === this.embedderId ? filter.corpusIds.map((id) => this.corpora.get(id)) : [];
    return {
      segments: segments.filter((s): s is Segment<IndexedRecord> => s !== undefined),
      accept: matches && ((record: IndexedRecord) => matches(record.metadata)),
      labels: recordFilterLabels(filter),
    };
  }

  private keywordHits<O extends Owner>(
    { segments, accept, labels }: SearchTarget<O>,
    params: { words: ReadonlyArray<readonly string[]>; limit: number },
  ): KeywordHit[] {
    const searched = [...new Set(segments)];
    const rows = searched.reduce((n, s) => n + s.live, 0);
    const words = withFrequencies(params.words, (l) => (rows ? searched.reduce((n, s) => n + s.rowsHolding(l), 0) / rows : 0));
    const lexemes = words.flatMap((w) => w.lexemes);
    for (const selection of wordSelections(words, rows, Infinity, false)) {
      const groups = selection.groups.map((group) => group.map((w) => w.lexemes));
      const hits = searched
        .flatMap((segment) => segment.keywordHits(lexemes, params.limit, accept, labels, groups))
        .sort(compareKeywordHits)
        .slice(0, params.limit);
      if (hits.length) return hits;
    }
    return [];
  }

  async search(params: { filter: ChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]> {
    if (!this.loadedFlag) return this.fallback.search(params);
    // Changes notified before this search (a document that became ready) apply first.
    await this.queue;
    return this.nearest(this.tenantTarget(params.filter), params);
  }

  async searchCorpora(params: { filter: CorpusChunkFilter; dimensions: number; vector: Float32Array; limit: number }): Promise<VectorHit[]> {
    if (!this.loadedFlag) return this.fallback.searchCorpora(params);
    await this.queue;
    return this.nearest(this.corpusTarget(params.filter), params);
  }

  /** The `limit` closest rows over these segments (those of the query's dimension), by one scan each. */
  private async nearest<O extends Owner>(
    { segments, accept, labels }: SearchTarget<O>,
    params: { dimensions: number; vector: Float32Array; limit: number },
  ): Promise<VectorHit[]> {
    const query = quantize(params.vector);
    const scans = [...new Set(segments)]
      .filter((segment) => segment.dimensions === params.dimensions)
      .map((segment) => segment.nearest(query, params.limit, accept, labels));
    return (await Promise.all(scans)).flat().sort(compareHits).slice(0, params.limit);
  }

  /**
   * Documents whose job wrote every chunk are added from what the job had in hand (nothing is read
   * back: at ~4 chunks per document the reads cost a fifth of ingestion); the others are read from
   * the tables. A document deleted meanwhile is removed again by its removal, queued after this.
   */
  documentsIndexed(documents: DocumentIndexed[]): Promise<void> {
    return this.notice(async () => {
      const unknown: string[] = [];
      for (const doc of documents) {
        const w = doc.written;
        if (!w || (this.options.keywords && w.chunks.some((c) => c.tsvector === undefined))) {
          unknown.push(doc.id);
          continue;
        }
        const owner = { key: doc.id, rows: [], subTenantId: w.subTenantId, tags: w.tags, createdAt: w.createdAt, title: w.title };
        const chunks = w.chunks.map((c) => ({ id: c.id, vector: c.vector, terms: this.options.keywords && c.tsvector !== undefined ? tsvectorCounts(c.tsvector) : undefined }));
        this.knowledgeBaseSegment(w.knowledgeBaseId, w.dimensions, w.tenantId, w.subTenantId).put(owner, chunks);
      }
      if (unknown.length) await this.loadDocuments(unknown);
    });
  }

  /** A knowledge base's segment: of the embedder in use, or (otherEmbedder) the lexemes of others' chunks. */
  private knowledgeBaseSegment(id: string, dimensions: number, tenantId: string, subTenantId: string | null, otherEmbedder = false): Segment<IndexedDocument> {
    return otherEmbedder
      ? segmentOf(this.otherEmbedders, id, () => new Segment<IndexedDocument>(0, tenantId, subTenantId, undefined, documentLabels, true))
      : segmentOf(this.knowledgeBases, id, () => new Segment<IndexedDocument>(dimensions, tenantId, subTenantId, this.scanner, documentLabels, this.options.keywords));
  }

  documentsRemoved(documentIds: string[]): Promise<void> {
    return this.removal(() => {
      for (const segments of [this.knowledgeBases, this.otherEmbedders]) {
        for (const segment of segments.values()) for (const id of documentIds) segment.remove(id);
      }
    });
  }

  tenantRemoved(owner: { tenantId: string; subTenantId?: string | null }): Promise<void> {
    return this.removal(() => {
      for (const segments of [this.knowledgeBases, this.otherEmbedders]) {
        for (const [id, segment] of segments) {
          if (segment.tenantId === owner.tenantId && (!owner.subTenantId || segment.subTenantId === owner.subTenantId)) {
            segments.delete(id);
            segment.dispose();
          }
        }
      }
    });
  }

  corpusRecordsIndexed(corpusId: string, recordIds: string[], known?: KnownVectors): Promise<void> {
    return this.notice(async () => {
      const segment = this.corpora.get(corpusId);
      if (segment) for (const id of recordIds) segment.remove(id);
      await this.loadRecords(corpusId, recordIds, known);
    });
  }

  corpusRecordsRemoved(corpusId: string, recordIds: string[] | null): Promise<void> {
    return this.removal(() => {
      if (!recordIds) {
        this.corpora.get(corpusId)?.dispose();
        this.corpora.delete(corpusId);
      }
      else for (const id of recordIds) this.corpora.get(corpusId)?.remove(id);
    });
  }

  /**
   * A removal applies at once (the next search no longer sees the rows), and again after every
   * change queued before it: an addition that read the database before the deletion committed
   * would otherwise bring the rows back.
   */
  private removal(apply: () => void): Promise<void> {
    if (this.loadedFlag) apply();
    void this.enqueue(() => Promise.resolve(apply()));
    return Promise.resolve();
  }

  /**
   * A notice of a committed change: it never fails its sender (whose change stands either way). A
   * notice that fails is logged, and the chunks it concerned stay out of vector search until restart.
   */
  private notice(change: () => Promise<void>): Promise<void> {
    return this.enqueue(change).catch(() => undefined);
  }

  /** Runs `change` after every earlier one (a failed change is logged and does not block later ones). */
  private enqueue(change: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.closed ? undefined : change()));
    this.queue = run.catch((err: unknown) => this.log.error({ err }, 'a vector index change failed'));
    return run;
  }

  /** Reads ready documents (all, or these) with their chunks into their segments; returns the chunks read. */
  private async loadDocuments(documentIds: string[] | null): Promise<number> {
    const { rows: docs } = await this.db.query<{
      id: string;
      tenant_id: string;
      sub_tenant_id: string | null;
      knowledge_base_id: string;
      tags: Record<string, string>;
      created_at: Date;
      title: string;
      dimensions: number;
    }>(
      `SELECT d.id, d.tenant_id, d.sub_tenant_id, d.knowledge_base_id, d.tags, d.created_at, d.title, kb.dimensions
       FROM documents d JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id
       WHERE d.status = 'ready'${documentIds ? ' AND d.id = ANY($1::uuid[])' : ''}`,
      documentIds ? [documentIds] : [],
    );
    if (!docs.length) return 0;
    const byId = new Map(docs.map((d) => [d.id, d]));
    let read = 0;
    // With keywords, the chunks of other embedders too (their lexemes only).
    for (const otherEmbedder of this.options.keywords ? [false, true] : [false]) {
      const chunks = await this.readChunks(
        { table: 'chunks', owner: 'document_id', where: documentIds === null ? null : { sql: 'document_id = ANY($5::uuid[])', params: [documentIds] } },
        undefined,
        (owner) => byId.has(owner),
        otherEmbedder,
      );
      for (const [docId, list] of chunks) {
        const d = byId.get(docId)!;
        this.knowledgeBaseSegment(d.knowledge_base_id, d.dimensions, d.tenant_id, d.sub_tenant_id, otherEmbedder).put(
          { key: d.id, rows: [], subTenantId: d.sub_tenant_id, tags: d.tags, createdAt: new Date(d.created_at), title: d.title },
          list,
        );
        read += list.length;
      }
    }
    return read;
  }

  /** Reads corpus chunks (all, or those of these records of one corpus) into their segments. */
  private async loadRecords(corpusId: string | null, recordIds: string[] | null, known?: KnownVectors): Promise<number> {
    const records = new Map<string, { corpusId: string; recordId: string; dimensions: number; metadata: Record<string, unknown> }>();
    // One chunk's metadata stands for its record's (every chunk of a record carries the record's).
    const { rows } = await this.db.query<{ corpus_id: string; source_record_id: string; dimensions: number; metadata: Record<string, unknown> }>(
      `SELECT DISTINCT ON (corpus_id, source_record_id) corpus_id, source_record_id, dimensions, metadata FROM platform_chunks
       WHERE embedder = $1${corpusId ? ' AND corpus_id = $2 AND source_record_id = ANY($3::text[])' : ''}`,
      corpusId ? [this.embedderId, corpusId, recordIds ?? []] : [this.embedderId],
    );
    for (const r of rows) records.set(`${r.corpus_id}/${r.source_record_id}`, { corpusId: r.corpus_id, recordId: r.source_record_id, dimensions: r.dimensions, metadata: r.metadata });
    if (!records.size) return 0;
    const chunks = await this.readChunks(
      {
        table: 'platform_chunks',
        owner: "corpus_id::text || '/' || source_record_id",
        where: corpusId === null ? null : { sql: 'corpus_id = $5 AND source_record_id = ANY($6::text[])', params: [corpusId, recordIds ?? []] },
      },
      known,
      (owner) => records.has(owner),
    );
    for (const [key, list] of chunks) {
      const r = records.get(key)!;
      segmentOf(this.corpora, r.corpusId, () => new Segment<IndexedRecord>(r.dimensions, null, null, this.scanner, recordLabels, this.options.keywords)).put({ key: r.recordId, rows: [], metadata: r.metadata }, list);
    }
    return [...chunks.values()].reduce((n, list) => n + list.length, 0);
  }

  /**
   * This embedder's chunks of a table by owner (all, or these owners), in chunk order, with their
   * vectors (those in `known` as given, the others parsed from the database) and, when the index
   * keeps keywords, their lexemes, a page at a time. `otherEmbedders`: the chunks of every other
   * embedder instead, with their lexemes only.
   */
  private async readChunks(
    source: { table: 'chunks' | 'platform_chunks'; owner: string; where: { sql: string; params: SqlParam[] } | null },
    known: KnownVectors | undefined,
    wanted: (owner: string) => boolean,
    otherEmbedders = false,
  ): Promise<Map<string, SegmentChunk[]>> {
    const out = new Map<string, Array<SegmentChunk & { index: number }>>();
    const knownIds = known ? [...known.keys()] : [];
    const reader = await EmbeddingReader.of(this.db);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const { rows } = await this.db.query<ChunkRow>(
        `SELECT id, ${source.owner} AS owner, chunk_index,
                CASE WHEN id = ANY($3::uuid[]) THEN NULL ELSE ${otherEmbedders ? 'NULL' : reader.select('embedding')} END AS e,
                ${this.options.keywords ? 'tsv::text' : 'NULL'} AS t
         FROM ${source.table} WHERE embedder ${otherEmbedders ? '<>' : '='} $1 AND id > $2::uuid${source.where ? ` AND ${source.where.sql}` : ''}
         ORDER BY id LIMIT $4`,
        [this.embedderId, after, knownIds, this.options.loadPageSize, ...(source.where?.params ?? [])],
      );
      for (const r of rows) {
        if (!wanted(r.owner)) continue;
        const vector = otherEmbedders ? undefined : r.e === null ? known?.get(r.id) : reader.parse(r.e);
        if (!vector && !otherEmbedders) continue;
        let list = out.get(r.owner);
        if (!list) out.set(r.owner, (list = []));
        list.push({ id: r.id, index: r.chunk_index, vector, terms: r.t === null ? undefined : tsvectorCounts(r.t) });
      }
      if (rows.length < this.options.loadPageSize) break;
      after = rows[rows.length - 1]!.id;
      // Without a turn between pages, a start-up load on PGlite kept every timer, file read and
      // HTTP request waiting until it was done (~34 s at 100k chunks).
      await turnEventLoop();
    }
    for (const list of out.values()) list.sort((a, b) => a.index - b.index);
    return out;
  }
}
