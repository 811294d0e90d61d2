import type { Database, Queryable } from '../db/database.js';
import type { Decompounder } from '../ports/decompounder.js';
import { EmbeddingEncoder } from '../db/embeddings.js';
import { type ChunkingOptions, DEFAULT_CHUNKING, type TextChunk, chunkText } from '../ingestion/chunker.js';
import { chunksPerWrite } from '../ingestion/ingestion.service.js';
import { chunkKeywords } from '../search/chunk-keywords.js';
import { type JobRow, completeJob } from '../jobs/job.repository.js';
import type { Embedder } from '../ports/embedder.js';
import type { LanguageDetector } from '../ports/language-detector.js';
import type { DomainMetrics } from '../ports/metrics.js';
import type { VectorIndex } from '../ports/vector-index.js';
import { type JobControl, LeaseLostError, NonRetryableError } from '../ports/workflow-engine.js';
import {
  type ChunkToStore,
  type CorpusRow,
  type PendingRecord,
  failPendingRecords,
  findCorpusById,
  indexedChunksOfJob,
  insertCorpusChunks,
  lockPendingRecords,
  markRecordsReady,
  pendingRecordsOfJob,
  removeChunks,
} from './corpus.repository.js';

/** Records read per round trip (bounds the memory a job holds). */
const PAGE_SIZE = 256;

interface ChunkedRecord {
  record: PendingRecord;
  chunks: TextChunk[];
}

/**
 * The corpus_ingestion activity: indexes the records a load stored, with the same chunking,
 * embedding, language detection and keyword index as tenant documents, into platform_chunks.
 * Each batch swaps the new chunks of its records in for their previous ones (a reloaded record) in
 * one transaction, so a query sees either version, never both or neither. Idempotent: a retried or
 * resumed job skips records already indexed, and a record loaded again meanwhile is left to the
 * newer job.
 */
export class CorpusIngestionService {
  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly detector: LanguageDetector,
    private readonly decompounder: Decompounder,
    private readonly vectors: VectorIndex,
    private readonly metrics: Pick<DomainMetrics, 'chunksIngested'>,
  ) {}

  async indexRecords(job: JobRow, control: JobControl): Promise<void> {
    const corpusId = typeof job.payload.corpus_id === 'string' ? job.payload.corpus_id : '';
    const corpus = corpusId ? await findCorpusById(this.db, corpusId) : undefined;
    if (!corpus) throw new NonRetryableError('The corpus was deleted before its records were indexed.');
    const chunking = { ...DEFAULT_CHUNKING, ...(job.payload.chunking as Partial<ChunkingOptions> | undefined) };
    // Chunks embedded and written per transaction, as in document ingestion; progress is reported after each.
    const perWrite = chunksPerWrite(this.db);
    let processed = await indexedChunksOfJob(this.db, job.id);
    await control.heartbeat({ processedChunks: processed });

    let after: string | null = null;
    for (;;) {
      const page = await pendingRecordsOfJob(this.db, job.id, after, PAGE_SIZE);
      if (!page.length) break;
      after = page[page.length - 1]!.source_record_id;
      let batch: ChunkedRecord[] = [];
      let size = 0;
      for (const record of page) {
        const chunks = chunkText(record.content, chunking);
        batch.push({ record, chunks });
        size += chunks.length;
        if (size >= perWrite) {
          processed += await this.writeBatch(corpus, job.id, batch, control);
          await control.heartbeat({ processedChunks: processed });
          batch = [];
          size = 0;
        }
      }
      if (batch.length) {
        processed += await this.writeBatch(corpus, job.id, batch, control);
        await control.heartbeat({ processedChunks: processed });
      }
    }
    await this.db.transaction(async (tx) => {
      if (!(await completeJob(tx, job.id, control.owner))) throw new LeaseLostError('Another worker took over this job.');
    });
  }

  /** Embeds a batch and swaps its chunks in; returns the chunks written. */
  private async writeBatch(corpus: CorpusRow, jobId: string, batch: ChunkedRecord[], control: JobControl): Promise<number> {
    if (control.signal.aborted) throw new Error('The worker is shutting down; the job will resume.');
    const texts = batch.flatMap((b) => b.chunks.map((c) => c.content));
    const vectors = await this.embedder.embed(texts, { dimensions: corpus.dimensions, kind: 'document' });
    const chunks: ChunkToStore[] = [];
    let i = 0;
    for (const { record, chunks: recordChunks } of batch) {
      for (const chunk of recordChunks) {
        const language = this.detector.detect(chunk.content).language;
        chunks.push({
          sourceRecordId: record.source_record_id,
          chunkIndex: chunk.index,
          content: chunk.content,
          keywords: chunkKeywords(this.decompounder, language, chunk.content),
          metadata: record.metadata,
          language,
          vector: vectors[i++]!,
        });
      }
    }
    const encoder = await EmbeddingEncoder.of(this.db);
    const written = await this.db.transaction(async (tx) => {
      const owned = await lockPendingRecords(tx, corpus.id, jobId, batch.map((b) => b.record.source_record_id));
      if (!owned.size) return undefined;
      const kept = chunks.filter((c) => owned.has(c.sourceRecordId));
      await removeChunks(tx, corpus.id, [...owned]);
      const ids = await insertCorpusChunks(tx, corpus, this.embedder.id, kept, encoder);
      const counts = new Map<string, number>();
      for (const b of batch) if (owned.has(b.record.source_record_id)) counts.set(b.record.source_record_id, b.chunks.length);
      await markRecordsReady(tx, corpus.id, counts);
      return { records: [...owned], vectors: new Map(ids.map((id, j) => [id, kept[j]!.vector])) };
    });
    if (!written) return 0;
    this.metrics.chunksIngested('corpus', written.vectors.size);
    await this.vectors.corpusRecordsIndexed(corpus.id, written.records, written.vectors);
    return written.vectors.size;
  }

  /** A job that failed for good: its records not yet indexed are failed and hold no chunks. */
  async recordsFailed(tx: Queryable, job: JobRow, error: string): Promise<void> {
    const failed = await failPendingRecords(tx, job.id, error);
    const byCorpus = new Map<string, string[]>();
    for (const r of failed) byCorpus.set(r.corpus_id, [...(byCorpus.get(r.corpus_id) ?? []), r.source_record_id]);
    for (const [corpusId, ids] of byCorpus) {
      await removeChunks(tx, corpusId, ids);
      await this.vectors.corpusRecordsRemoved(corpusId, ids);
    }
  }
}
