import type { Database, Queryable } from '../db/database.js';
import type { Decompounder } from '../ports/decompounder.js';
import { EmbeddingEncoder } from '../db/embeddings.js';
import { completeJobs, holdJobs } from '../jobs/job.repository.js';
import type { JobRow } from '../jobs/job.repository.js';
import { type Embedder, passageText } from '../ports/embedder.js';
import { tenantScope } from '../shared/scope.js';
import type { VectorIndex } from '../ports/vector-index.js';
import type { UsageService } from '../usage/usage.service.js';
import type { LanguageDetector } from '../ports/language-detector.js';
import type { DomainMetrics, IngestionSource } from '../ports/metrics.js';
import { type JobBatchControl, type JobControl, LeaseLostError, NonRetryableError } from '../ports/workflow-engine.js';
import { chunkKeywords } from '../search/chunk-keywords.js';
import { type ChunkingOptions, DEFAULT_CHUNKING, type TextChunk, chunkText } from './chunker.js';
import {
  type DocumentToIndex,
  documentsToIndex,
  indexedChunkLanguages,
  insertChunks,
  lockTenantsForIndexing,
  markDocumentFailed,
  markDocumentsReady,
} from './ingestion.repository.js';

/**
 * Chunks embedded (one embedder request) and written (one statement) at a time; progress is
 * reported after each. A statement's keyword statistics are one upsert per distinct lexeme, so
 * larger statements share more of them: 256 cost ~15 % less a chunk than 64. But PGlite runs a
 * statement on the main thread, which answers nothing meanwhile: there a write of 256 held the
 * event loop twice as long (p99 of its delay while indexing ~150 → ~300 ms on a slow machine), so
 * the embedded database keeps 64 (docs/performance.md, "Ingestion").
 */
export function chunksPerWrite(db: Pick<Database, 'kind'>): number {
  return db.kind === 'embedded' ? 64 : 256;
}

/**
 * Documents indexed together in one batch (first attempts, claimed at once): the per-document
 * costs — claiming the job, loading the document, the final transaction — are shared, and chunks
 * of several documents go into one statement. Chosen by measurement (docs/performance.md,
 * "Ingestion"): a batch of up to 64 documents of up to 64 chunks becomes searchable within seconds.
 */
export const INGESTION_BATCH_SIZE = 64;

/** A document of more chunks runs alone, reporting its progress as it goes; batched documents report theirs when they complete. */
const BATCHED_DOCUMENT_MAX_CHUNKS = 64;

/** One document being indexed by its job. */
interface Indexing {
  job: JobRow;
  doc: DocumentToIndex;
  /** The document's chunk count. */
  total: number;
  /** The chunks this attempt writes (a resumed job skips those an earlier attempt wrote). */
  pending: TextChunk[];
  /** The document's chunks per detected language (those an earlier attempt wrote included). */
  languages: Map<string, number>;
  /** The chunks this attempt wrote, by id, for the vector index (earlier attempts' are read back). */
  written: Map<string, { index: number; vector: Float32Array; tsvector: string }>;
  /** The document's version once ready (see rowVersionSql). */
  version?: string;
}

/** `done`: the language of each chunk an earlier attempt wrote, by chunk index. */
function indexing(job: JobRow, doc: DocumentToIndex, chunks: TextChunk[], done: ReadonlyMap<number, string | null> = new Map()): Indexing {
  const languages = new Map<string, number>();
  for (const l of done.values()) if (l) languages.set(l, (languages.get(l) ?? 0) + 1);
  return {
    job,
    doc,
    total: chunks.length,
    pending: done.size ? chunks.filter((c) => !done.has(c.index)) : chunks,
    languages,
    written: new Map(),
  };
}

function chunksOf(job: JobRow, doc: DocumentToIndex): TextChunk[] {
  return chunkText(doc.content, { ...DEFAULT_CHUNKING, ...(job.payload.chunking as Partial<ChunkingOptions> | undefined) });
}

const documentDeleted = () => new NonRetryableError('The document was deleted before it was indexed.');
const leaseLost = (jobs: number) => new LeaseLostError(jobs > 1 ? 'Another worker took over a job of this batch.' : 'Another worker took over this job.');

/**
 * The ingestion activity: chunks a stored document, embeds the chunks, and writes them with their
 * keyword index. Idempotent — chunk rows are keyed by (document, chunk_index), so a retried or
 * resumed job skips what an earlier attempt wrote and never duplicates a chunk. The document
 * becomes searchable, and the job completed, in one final transaction. First attempts of small
 * documents are indexed in batches (`indexDocuments`) the same way, several documents at a time.
 */
export class IngestionService {
  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly detector: LanguageDetector,
    private readonly decompounder: Decompounder,
    private readonly usage: UsageService,
    private readonly vectors: VectorIndex,
    private readonly metrics: Pick<DomainMetrics, 'chunksIngested'>,
  ) {}

  async indexDocument(job: JobRow, control: JobControl): Promise<void> {
    const doc = (await this.loadDocuments([job])).get(job.document_id ?? '');
    if (!doc) throw documentDeleted();
    if (doc.status === 'ready') {
      // An earlier attempt made the document searchable and stopped before its job completed: the
      // index reads its chunks back, then the job completes.
      await this.vectors.documentsIndexed([{ id: doc.id }]);
      await this.completeJobs([job], control.owner);
      return;
    }
    const chunks = chunksOf(job, doc);
    // Only a retried or resumed job can find chunks written (its first attempt starts from nothing).
    const done = job.attempts > 1 ? await indexedChunkLanguages(this.db, tenantScope(doc.tenant_id), doc.id) : new Map<number, string | null>();
    // The job was created with its chunk count; a resumed job reports where it starts.
    if (done.size || job.total_chunks !== chunks.length) await control.heartbeat({ totalChunks: chunks.length, processedChunks: done.size });
    const item = indexing(job, doc, chunks, done);
    await this.writeChunks([item], control.signal, (written) => control.heartbeat({ processedChunks: done.size + written }));
    await this.finish([item], control.owner);
  }

  /**
   * The batch form of `indexDocument`, for first attempts: the documents are loaded in one query,
   * their chunks embedded and written across documents, `chunksPerWrite` a statement, and all
   * become searchable, and their jobs completed, in one final transaction. Jobs it does not index
   * (a large document, which reports progress as it goes; a deleted one; one whose chunk count is
   * not the one reserved when it was stored) are returned, for the engine to run one by one. If it throws, the engine runs each job alone
   * (chunks already written are kept: rows are keyed by document and index).
   */
  async indexDocuments(jobs: readonly JobRow[], control: JobBatchControl): Promise<JobRow[]> {
    const small = (j: JobRow) => j.document_id !== null && j.total_chunks <= BATCHED_DOCUMENT_MAX_CHUNKS;
    const docs = await this.loadDocuments(jobs.filter(small));
    const items: Indexing[] = [];
    const alone: JobRow[] = [];
    for (const job of jobs) {
      const doc = small(job) ? docs.get(job.document_id!) : undefined;
      const chunks = doc && chunksOf(job, doc);
      // A chunk count other than the one reserved when the document was stored runs alone: it reports
      // its new total and changes the storage counters.
      const reserved = chunks?.length === job.total_chunks && chunks.length === doc?.chunk_count;
      if (doc?.status === 'processing' && chunks && reserved) items.push(indexing(job, doc, chunks));
      else alone.push(job);
    }
    if (!items.length) return alone;
    await this.writeChunks(items, control.signal, () => control.heartbeat());
    await this.finish(items, control.owner);
    return alone;
  }

  /**
   * Makes the documents searchable, then completes their jobs: the documents become ready in one
   * transaction, the vector index takes them in (in this process, or Qdrant's), and only then do
   * the jobs complete, so a client that sees `completed` finds the document with its next query,
   * on every index. An attempt stopped in between completes the job on its retry (`indexDocument`).
   */
  private async finish(items: readonly Indexing[], owner: string): Promise<void> {
    await this.db.transaction((tx) => this.markReady(tx, items, owner));
    await this.notifyIndexed(items);
    await this.completeJobs(items.map((i) => i.job), owner);
  }

  private async completeJobs(jobs: readonly JobRow[], owner: string): Promise<void> {
    if ((await completeJobs(this.db, jobs.map((j) => j.id), owner)) < jobs.length) throw leaseLost(jobs.length);
  }

  /** A job that failed for good leaves a failed document that holds no chunks (and no chunk quota). */
  async documentFailed(tx: Queryable, job: JobRow, error: string): Promise<void> {
    if (!job.document_id || !job.tenant_id) return;
    await markDocumentFailed(tx, tenantScope(job.tenant_id), job.document_id, error);
  }

  /**
   * Embeds and writes the pending chunks of the documents, `chunksPerWrite` at a time (one embedder
   * request and one statement, across documents of the same dimensions), calling `between` with the
   * count written so far after each write but the last.
   */
  private async writeChunks(items: readonly Indexing[], signal: AbortSignal, between: (written: number) => Promise<void>): Promise<void> {
    const byDimensions = new Map<number, Array<{ item: Indexing; chunk: TextChunk }>>();
    for (const item of items) {
      let rows = byDimensions.get(item.doc.dimensions);
      if (!rows) byDimensions.set(item.doc.dimensions, (rows = []));
      for (const chunk of item.pending) rows.push({ item, chunk });
    }
    const perWrite = chunksPerWrite(this.db);
    const writes = [...byDimensions].flatMap(([dimensions, rows]) =>
      Array.from({ length: Math.ceil(rows.length / perWrite) }, (_, i) => ({
        dimensions,
        rows: rows.slice(i * perWrite, (i + 1) * perWrite),
      })),
    );
    const encoder = await EmbeddingEncoder.of(this.db);
    let written = 0;
    for (const [w, { dimensions, rows }] of writes.entries()) {
      if (signal.aborted) throw new Error('The worker is shutting down; the job will resume.');
      const vectors = await this.embedder.embed(
        rows.map((r) => passageText(this.embedder, r.item.doc.title, r.chunk.content)),
        { dimensions, kind: 'document' },
      );
      const langs = rows.map((r) => this.detector.detect(r.chunk.content).language);
      langs.forEach((l, j) => {
        const { languages } = rows[j]!.item;
        if (l) languages.set(l, (languages.get(l) ?? 0) + 1);
      });
      const inserted = await insertChunks(
        this.db,
        rows.map((r, j) => {
          const language = langs[j] ?? null;
          return {
            doc: r.item.doc,
            index: r.chunk.index,
            content: r.chunk.content,
            language,
            keywords: chunkKeywords(this.decompounder, language, r.chunk.content, r.item.doc.title),
          };
        }),
        { dimensions, embedder: this.embedder.id, encoded: encoder.encode(vectors) },
      );
      const row = new Map(rows.map((r, j) => [`${r.item.doc.id}:${r.chunk.index}`, j]));
      const bySource = new Map<IngestionSource, number>();
      for (const r of inserted) {
        const j = row.get(`${r.document_id}:${r.chunk_index}`)!;
        const { item } = rows[j]!;
        item.written.set(r.id, { index: r.chunk_index, vector: vectors[j]!, tsvector: r.tsv });
        bySource.set(item.doc.source, (bySource.get(item.doc.source) ?? 0) + 1);
      }
      // Rows an earlier attempt wrote are not returned, so a retry counts only what it wrote.
      for (const [source, count] of bySource) this.metrics.chunksIngested(source, count);
      written += rows.length;
      // Progress and leases; after the last write, completing the jobs does both.
      if (w < writes.length - 1) await between(written);
    }
  }

  /**
   * The documents become ready (searchable) with their chunk counts and languages, and the usage
   * ledger gets one entry per document — or none of it, if another worker took over a job
   * (LeaseLostError): the jobs stay locked until this commits, so that worker finds them ready.
   */
  private async markReady(tx: Queryable, items: readonly Indexing[], owner: string): Promise<void> {
    // The tenant rows first, in a stable order, as deleting an account does (it cascades from the
    // tenant to the document and its job): locks taken in the same order cannot deadlock.
    const plans = await lockTenantsForIndexing(tx, items.map((i) => tenantScope(i.doc.tenant_id)));
    if (items.some((i) => !plans.has(i.doc.tenant_id))) throw documentDeleted();
    if ((await holdJobs(tx, items.map((i) => i.job.id), owner)) < items.length) throw leaseLost(items.length);
    // One statement updates the documents in no set order. Batches hold different documents, and a
    // batched document keeps the chunk count it reserved when it was stored, so the storage
    // counters' triggers do not fire: concurrent batches wait for no common row here.
    const languageOf = (i: Indexing) => [...i.languages.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    const versions = await markDocumentsReady(
      tx,
      items.map((i) => ({ doc: i.doc, chunkCount: i.total, language: languageOf(i) })),
      this.embedder.id,
    );
    if (versions.size < items.length) throw documentDeleted();
    for (const item of items) item.version = versions.get(item.doc.id);
    await this.usage.recordIngestions(
      tx,
      items.map(({ doc, total }) => ({ tenantId: doc.tenant_id, subTenantId: doc.sub_tenant_id, plan: plans.get(doc.tenant_id)!, chunks: total })),
    );
  }

  /** Tells the vector index, after the commit, of the documents indexed: with their vectors when this attempt wrote every chunk. */
  private async notifyIndexed(items: readonly Indexing[]): Promise<void> {
    await this.vectors.documentsIndexed(
      items.map(({ doc, total, written, version }) => ({
        id: doc.id,
        ...(written.size === total &&
          version !== undefined && {
          written: {
            tenantId: doc.tenant_id,
            subTenantId: doc.sub_tenant_id,
            knowledgeBaseId: doc.knowledge_base_id,
            dimensions: doc.dimensions,
            title: doc.title,
            tags: doc.tags,
            createdAt: doc.created_at,
            version,
            chunks: [...written].sort((a, b) => a[1].index - b[1].index).map(([id, c]) => ({ id, vector: c.vector, tsvector: c.tsvector })),
          },
        }),
      })),
    );
  }

  /** The documents of the jobs (matched by document and tenant, both from the job rows), by id. */
  private async loadDocuments(jobs: readonly JobRow[]): Promise<Map<string, DocumentToIndex>> {
    const refs = jobs.filter((j) => j.document_id && j.tenant_id).map((j) => ({ tenantId: j.tenant_id!, documentId: j.document_id! }));
    return new Map((await documentsToIndex(this.db, refs)).map((d) => [d.id, d]));
  }
}
