import type { Logger } from 'pino';
import type { Database } from '../../db/database.js';
import { tsvectorOccurrences } from '../../db/tsvector.js';
import { readDatabaseId, readKeywordIndexGeneration } from '../../instance/database-identity.repository.js';
import { type KeywordHit, type KeywordSearchParams, compareKeywordHits } from '../../ports/keyword-index.js';
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
import { ChunkLoader } from './chunk.loader.js';
import { VectorScanner } from './scan/vector-scanner.js';
import { type IndexedDocument, type IndexedRecord, type Owner, Segment, type SegmentSetup, type SegmentState, quantize } from './segment.js';
import { InvalidSnapshot, type SegmentGroup, type SnapshotSegment, SnapshotStore } from './snapshot.js';
import { DEFAULT_GRAPH_POLICY, type GraphPolicy } from './vector-graph.js';

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
  /** When a segment's dense vectors get an HNSW graph (null: never; see VectorGraph). */
  graph: GraphPolicy | null;
  /**
   * Where snapshots of the index are kept (none: every start reads the tables). A snapshot is
   * written at close and every `snapshotIntervalMs` while something changed, and read at start.
   */
  snapshotDir: string | undefined;
  /** 0: only at close. */
  snapshotIntervalMs: number;
}

export const DEFAULT_FLAT_OPTIONS: FlatVectorIndexOptions = {
  threads: 0,
  loadPageSize: 1000,
  workerMinBytes: 4 * 1024 * 1024,
  keywords: true,
  graph: DEFAULT_GRAPH_POLICY,
  snapshotDir: undefined,
  snapshotIntervalMs: 0,
};

/** How the index came to hold what it holds at start-up. */
export interface LoadReport {
  from: 'tables' | 'snapshot';
  chunks: number;
  ms: number;
  /** Why a snapshot present was not used. */
  snapshotRefused?: string;
  /** With a snapshot: owners read again from the tables, and owners dropped (gone from them). */
  reloaded?: number;
  dropped?: number;
}

/** What one search reads: segments, the test of their owners (null: every owner passes), and labels every passing owner carries. */
interface SearchTarget<O extends Owner> {
  segments: Array<Segment<O>>;
  accept: ((owner: O) => boolean) | null;
  labels: readonly string[];
}

/** The segment of a knowledge base or corpus, made on first use. */
function segmentOf<O extends Owner>(segments: Map<string, Segment<O>>, id: string, make: () => Segment<O>): Segment<O> {
  let segment = segments.get(id);
  if (!segment) segments.set(id, (segment = make()));
  return segment;
}

/**
 * The embedded topology's vector index: every searchable chunk's vector, quantized to int8, in this
 * process's memory (one segment per knowledge base and per corpus), searched by an exact SIMD scan
 * (usearch's `exactSearch`). Exact, so recall is that of int8 against float32 (~0.99 at 10), with
 * filters evaluated per document inside the scan; adding a chunk costs a copy, not a graph insert.
 * A scan reads every candidate row: ~5 ms per 100,000 chunks of 1,024 dimensions on this
 * project's 2-core machine, growing linearly. So a knowledge base (or corpus) with many chunks of
 * dense vectors (a neural embedder's) also gets an HNSW graph (`options.graph`, see VectorGraph):
 * approximate, recall@10 ~0.95–0.99 against the exact scan, at a millisecond or two whatever the
 * size; filtered searches that pass few rows still scan those exactly.
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
  private readonly loader: ChunkLoader;
  private readonly snapshots: SnapshotStore | undefined;
  /** The database's id, read at start when snapshots are kept: each one names it. */
  private databaseId: string | undefined;
  /** The keyword index generation when the index was loaded: its snapshots name it (the lexemes held are of it). */
  private keywordIndexGeneration = 0;
  /** Whether anything changed since the last snapshot (or the load). */
  private changed = false;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private snapshotting = false;
  /** What the start-up load did, once it finished. */
  loadReport: LoadReport | undefined;

  constructor(
    private readonly db: Database,
    private readonly embedderId: string,
    /** Searches while the index is loading (the database's exact search: see createVectorIndex). */
    private readonly fallback: Pick<VectorIndex, 'search' | 'searchCorpora'>,
    private readonly log: Pick<Logger, 'info' | 'error'>,
    options: Partial<FlatVectorIndexOptions> = {},
  ) {
    this.options = { ...DEFAULT_FLAT_OPTIONS, ...options };
    this.scanner = new VectorScanner(this.options.threads, this.options.workerMinBytes);
    this.loader = new ChunkLoader(db, embedderId, { keywords: this.options.keywords, pageSize: this.options.loadPageSize });
    this.snapshots = this.options.snapshotDir ? new SnapshotStore(this.options.snapshotDir) : undefined;
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
      const restored = await this.restoreSnapshot();
      const report: LoadReport = restored.report ?? {
        from: 'tables',
        chunks: (await this.loadDocuments(null)) + (await this.loadRecords(null, null)),
        ms: 0,
        ...(restored.refused ? { snapshotRefused: restored.refused } : {}),
      };
      report.ms = Date.now() - started;
      this.loadReport = report;
      // What was read from the tables is in no snapshot yet.
      if (report.from === 'tables') this.changed = true;
      this.loadedFlag = true;
      this.log.info(report, 'vector index loaded');
      if (this.snapshots && this.options.snapshotIntervalMs > 0) {
        this.snapshotTimer = setInterval(() => {
          if (this.changed) void this.snapshot();
        }, this.options.snapshotIntervalMs);
        this.snapshotTimer.unref();
      }
    });
    this.loaded.catch((err: unknown) => this.log.error({ err }, 'loading the vector index failed; searches stay on the database'));
    return Promise.resolve();
  }

  /**
   * Writes a snapshot of every segment (see SnapshotStore), taken as of now by the database's
   * clock; a failure is logged and leaves the previous snapshot in place. The segments' state is
   * taken in the queue, after every change notified before it (searches wait only for that, a
   * copy of their bookkeeping and the graphs' files); the files are written outside it, from
   * memory later changes do not touch. One snapshot at a time.
   */
  async snapshot(): Promise<void> {
    const { snapshots: store, databaseId } = this;
    if (!store || databaseId === undefined || !this.loadedFlag || this.snapshotting) return;
    this.snapshotting = true;
    const started = Date.now();
    const generation = await store.begin();
    try {
      let takenAt = new Date();
      let taken: Array<Promise<SnapshotSegment>> = [];
      await this.enqueue(() => {
        takenAt = new Date();
        // Each segment's state is taken as the call is made; a graph on the scanner's worker is
        // saved there before any later change reaches it, so the queue need not wait for it.
        taken = [...this.segments()].map(({ group, id, segment }, i) => {
          const graphFile = segment.hasGraph ? `${generation}/graph-${i}.usearch` : undefined;
          return segment.exportState(graphFile).then((state) => ({ group, id, state, graphFile: state.graph && graphFile }));
        });
        this.changed = false;
        return Promise.resolve();
      });
      const segments = await Promise.all(taken);
      const header = { databaseId, embedderId: this.embedderId, keywords: this.options.keywords, keywordIndexGeneration: this.keywordIndexGeneration, takenAt: takenAt.toISOString() };
      await store.write(generation, header, segments);
      this.log.info({ segments: segments.length, ms: Date.now() - started }, 'vector index snapshot written');
    } catch (err) {
      this.changed = true;
      await store.abandon(generation).catch(() => undefined);
      this.log.error({ err }, 'writing the vector index snapshot failed');
    } finally {
      this.snapshotting = false;
    }
  }

  /**
   * Restores the segments from the current snapshot, then brings them up to date with the tables:
   * owners gone from them are dropped, owners new or changed since the snapshot read again. A
   * snapshot that is missing gives nothing; one that is torn, altered, of another database (or
   * that names none) or of another embedder is refused (and the caller reads the tables; the next
   * snapshot replaces it).
   */
  private async restoreSnapshot(): Promise<{ report?: LoadReport; refused?: string }> {
    if (!this.snapshots) return {};
    this.databaseId = await readDatabaseId(this.db);
    this.keywordIndexGeneration = await readKeywordIndexGeneration(this.db);
    let snapshot;
    try {
      snapshot = await this.snapshots.read({
        databaseId: this.databaseId,
        embedderId: this.embedderId,
        keywords: this.options.keywords,
        keywordIndexGeneration: this.keywordIndexGeneration,
      });
    } catch (err) {
      if (!(err instanceof InvalidSnapshot)) this.log.error({ err }, 'reading the vector index snapshot failed');
      return { refused: err instanceof Error ? err.message : String(err) };
    }
    if (!snapshot) return {};
    const ready = new Map((await this.loader.readyDocuments()).map((d) => [d.id, d.version]));
    const records = new Map((await this.loader.corpusRecords()).map((r) => [`${r.corpusId}/${r.recordId}`, r]));
    /** Whether the tables hold a saved owner — a document, or a record of the corpus `corpusId` — as it was saved. */
    const asSaved = (owner: { key: string; version?: unknown }, corpusId?: string) =>
      (corpusId === undefined ? ready.get(owner.key) : records.get(`${corpusId}/${owner.key}`)?.version) === owner.version;
    // Owners gone from the tables are dropped; owners new, or of another version there, read again.
    let reloaded = 0;
    let dropped = 0;
    const documentSetup: SegmentSetup<IndexedDocument> = { scanner: this.scanner, labels: documentLabels, keywords: this.options.keywords, graphPolicy: this.options.graph };
    for (const { group, id, state, graphFile } of snapshot.segments) {
      // A segment most of whose owners the tables no longer hold as saved (a snapshot of another
      // database, or one restored from an older backup) is not restored: removing its rows one by
      // one from a large graph takes minutes, reading its current owners from the tables does not.
      const current = state.owners.filter((owner) => asSaved(owner, group === 'corpus' ? id : undefined)).length;
      if (current * 2 < state.owners.length) {
        dropped += state.owners.length - current;
        continue;
      }
      if (group === 'corpus') {
        const setup: SegmentSetup<IndexedRecord> = { scanner: this.scanner, labels: recordLabels, keywords: this.options.keywords, graphPolicy: this.options.graph };
        this.corpora.set(id, Segment.restore(state as never, graphFile, setup));
      } else {
        const restored = Segment.restore<IndexedDocument>(documentState(state), graphFile, group === 'otherEmbedder' ? { ...documentSetup, scanner: undefined, graphPolicy: null } : documentSetup);
        (group === 'otherEmbedder' ? this.otherEmbedders : this.knowledgeBases).set(id, restored);
      }
    }
    // Documents.
    // A document may have owners in two segments (its embedder's and, for its lexemes, others').
    const held = new Set<string>();
    for (const segments of [this.knowledgeBases, this.otherEmbedders]) {
      for (const segment of segments.values()) {
        for (const [key, owner] of [...segment.owners]) {
          if (asSaved(owner)) held.add(key);
          else {
            segment.remove(key);
            dropped++;
          }
        }
      }
    }
    const stale = [...ready.keys()].filter((id) => !held.has(id));
    for (let i = 0; i < stale.length; i += 1000) await this.loadDocuments(stale.slice(i, i + 1000));
    reloaded += stale.length;
    // Corpus records.
    for (const [corpusId, segment] of this.corpora) {
      for (const [key, owner] of [...segment.owners]) {
        if (asSaved(owner, corpusId)) records.delete(`${corpusId}/${key}`);
        else {
          segment.remove(key);
          dropped++;
        }
      }
    }
    const staleRecords = new Map<string, string[]>();
    for (const r of records.values()) staleRecords.set(r.corpusId, [...(staleRecords.get(r.corpusId) ?? []), r.recordId]);
    for (const [corpusId, recordIds] of staleRecords) {
      await this.loadRecords(corpusId, recordIds);
      reloaded += recordIds.length;
    }
    let chunks = 0;
    for (const { segment } of this.segments()) chunks += segment.live;
    this.changed = reloaded + dropped > 0;
    return { report: { from: 'snapshot', chunks, ms: 0, reloaded, dropped } };
  }

  async close(): Promise<void> {
    clearInterval(this.snapshotTimer);
    // The last snapshot holds every change notified before close.
    if (this.changed) await this.snapshot();
    this.closed = true;
    await this.queue.catch(() => undefined);
    for (const { segment } of this.segments()) segment.dispose();
    await this.scanner.close();
  }

  status(): Promise<VectorIndexStatus> {
    const state = this.loadedFlag ? 'ok' : 'missing';
    return Promise.resolve({ tenant: state, corpus: state });
  }

  async ensureDimensions(): Promise<void> {
    // Segments take any dimension.
  }

  /** Rows waiting to enter their segment's graph (searches scan them exactly meanwhile). */
  get graphPending(): number {
    let pending = 0;
    for (const { segment } of this.segments()) pending += segment.graphPending;
    return pending;
  }

  /** How many segments (knowledge bases, corpora) search through an HNSW graph. */
  get graphs(): number {
    let graphs = 0;
    for (const { segment } of this.segments()) if (segment.hasGraph) graphs++;
    return graphs;
  }

  /** Every segment, with the group it belongs to (as a snapshot records it). */
  private *segments(): Generator<{ group: SegmentGroup; id: string; segment: Segment<IndexedDocument> | Segment<IndexedRecord> }> {
    for (const [id, segment] of this.knowledgeBases) yield { group: 'knowledgeBase', id, segment };
    for (const [id, segment] of this.otherEmbedders) yield { group: 'otherEmbedder', id, segment };
    for (const [id, segment] of this.corpora) yield { group: 'corpus', id, segment };
  }

  /** Whether keyword searches can be served from memory now (the index keeps lexemes and has loaded). */
  get servesKeywords(): boolean {
    return this.options.keywords && this.loadedFlag;
  }

  /**
   * The in-memory keyword search (FlatKeywordIndex): the `limit` chunks best ranked by BM25F for
   * the query words' lexemes (`words`: each word's lexemes; `ranking`), over the filter's knowledge
   * bases (chunks of every embedder, as the database search), with the filter applied per
   * document inside the ranking. Every chunk holding a query word is ranked, as a BM25 engine
   * ranks: what that costs here is the words' postings (the database search must narrow the rows
   * it ranks instead; see `wordSelections`). Call it only while `servesKeywords`.
   */
  async keywordSearch(params: KeywordSearchParams & { filter: ChunkFilter }): Promise<KeywordHit[]> {
    // Changes notified before this search apply first.
    await this.queue;
    return this.keywordHits(this.tenantTarget(params.filter, true), params);
  }

  /** As `keywordSearch`, over platform corpus chunks (those of the embedder in use, which the index holds). */
  async keywordSearchCorpora(params: KeywordSearchParams & { filter: CorpusChunkFilter }): Promise<KeywordHit[]> {
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
    params: KeywordSearchParams,
  ): KeywordHit[] {
    return [...new Set(segments)]
      .flatMap((segment) => segment.keywordHits(params.ranking, params.limit, accept, labels))
      .sort(compareKeywordHits)
      .slice(0, params.limit);
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
        const owner = { key: doc.id, rows: [], subTenantId: w.subTenantId, tags: w.tags, createdAt: w.createdAt, title: w.title, version: w.version };
        const chunks = w.chunks.map((c) => ({ id: c.id, vector: c.vector, terms: this.options.keywords && c.tsvector !== undefined ? tsvectorOccurrences(c.tsvector) : undefined }));
        this.knowledgeBaseSegment(w.knowledgeBaseId, w.dimensions, w.tenantId, w.subTenantId).put(owner, chunks);
      }
      if (unknown.length) await this.loadDocuments(unknown);
    });
  }

  /** A knowledge base's segment: of the embedder in use, or (otherEmbedder) the lexemes of others' chunks. */
  private knowledgeBaseSegment(id: string, dimensions: number, tenantId: string, subTenantId: string | null, otherEmbedder = false): Segment<IndexedDocument> {
    return otherEmbedder
      ? segmentOf(this.otherEmbedders, id, () => new Segment<IndexedDocument>(0, tenantId, subTenantId, undefined, documentLabels, true))
      : segmentOf(this.knowledgeBases, id, () => new Segment<IndexedDocument>(dimensions, tenantId, subTenantId, this.scanner, documentLabels, this.options.keywords, this.options.graph));
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
    this.changed = true;
    if (this.loadedFlag) apply();
    void this.enqueue(() => Promise.resolve(apply()));
    return Promise.resolve();
  }

  /**
   * A notice of a committed change: it never fails its sender (whose change stands either way). A
   * notice that fails is logged, and the chunks it concerned stay out of vector search until restart.
   */
  private notice(change: () => Promise<void>): Promise<void> {
    this.changed = true;
    return this.enqueue(change).catch(() => undefined);
  }

  /** Runs `change` after every earlier one (a failed change is logged and does not block later ones). */
  private enqueue(change: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.closed ? undefined : change()));
    this.queue = run.catch((err: unknown) => this.log.error({ err }, 'a vector index change failed'));
    return run;
  }

  /** Reads ready documents (all, or these) with their chunks into their segments; returns the chunks read. */
  private loadDocuments(documentIds: string[] | null): Promise<number> {
    return this.loader.documents(documentIds, (d, chunks, otherEmbedder) =>
      this.knowledgeBaseSegment(d.knowledgeBaseId, d.dimensions, d.tenantId, d.subTenantId, otherEmbedder).put(d.owner, chunks),
    );
  }

  /** Reads corpus chunks (all, or those of these records of one corpus) into their segments. */
  private loadRecords(corpusId: string | null, recordIds: string[] | null, known?: KnownVectors): Promise<number> {
    return this.loader.records(corpusId, recordIds, known, (r, chunks) =>
      segmentOf(this.corpora, r.corpusId, () => new Segment<IndexedRecord>(r.dimensions, null, null, this.scanner, recordLabels, this.options.keywords, this.options.graph)).put(r.owner, chunks),
    );
  }
}

/** A snapshot's state of a knowledge base's segment, its documents' dates made Dates again (JSON keeps them as text). */
export function documentState(state: SegmentState<Owner>): SegmentState<IndexedDocument> {
  // Object.assign, not a spread: see Segment.restore.
  const owners = (state.owners as Array<Omit<IndexedDocument, 'rows'>>).map((o) => Object.assign({}, o, { createdAt: new Date(o.createdAt) }));
  return { ...state, owners };
}
