import type { Database, Queryable } from '../db/database.js';
import { EmbeddingEncoder } from '../db/embeddings.js';
import { completeJob } from '../jobs/job.repository.js';
import type { JobRow } from '../jobs/job.repository.js';
import type { PlanId } from '../plans.js';
import type { Embedder } from '../ports/embedder.js';
import type { VectorIndex } from '../ports/vector-index.js';
import type { UsageService } from '../usage/usage.service.js';
import type { LanguageDetector } from '../ports/language-detector.js';
import { type JobControl, LeaseLostError, NonRetryableError } from '../ports/workflow-engine.js';
import type { Language } from '../translation/translation.schema.js';
import { type ChunkingOptions, DEFAULT_CHUNKING, chunkText } from './chunker.js';

/** PostgreSQL text-search configurations by language; Bulgarian has none and uses 'simple'. */
export const TEXT_SEARCH_CONFIG: Record<Language, string> = {
  en: 'english',
  nl: 'dutch',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  ro: 'romanian',
  bg: 'simple',
};

export function textSearchConfig(language: Language | null): string {
  return language ? TEXT_SEARCH_CONFIG[language] : 'simple';
}

/** Chunks embedded and written per round trip; progress is reported after each batch. */
const BATCH_SIZE = 64;

interface DocumentToIndex {
  id: string;
  tenant_id: string;
  sub_tenant_id: string | null;
  knowledge_base_id: string;
  title: string;
  tags: Record<string, string>;
  content: string;
  created_at: Date;
  dimensions: number;
}

/**
 * The ingestion activity: chunks a stored document, embeds the chunks, and writes them with their
 * keyword index. Idempotent — chunk rows are keyed by (document, chunk_index), so a retried or
 * resumed job skips what an earlier attempt wrote and never duplicates a chunk. The document
 * becomes searchable, and the job completed, in one final transaction.
 */
export class IngestionService {
  constructor(
    private readonly db: Database,
    private readonly embedder: Embedder,
    private readonly detector: LanguageDetector,
    private readonly usage: UsageService,
    private readonly vectors: VectorIndex,
  ) {}

  async indexDocument(job: JobRow, control: JobControl): Promise<void> {
    const doc = await this.loadDocument(job.document_id);
    if (!doc) throw new NonRetryableError('The document was deleted before it was indexed.');
    const chunking = { ...DEFAULT_CHUNKING, ...(job.payload.chunking as Partial<ChunkingOptions> | undefined) };
    const chunks = chunkText(doc.content, chunking);
    // Only a retried or resumed job can find chunks written (its first attempt starts from nothing).
    const done = job.attempts > 1 ? await this.indexedChunkIndexes(doc.id) : new Set<number>();
    // The job was created with its chunk count; a resumed job reports where it starts.
    if (done.size || job.total_chunks !== chunks.length) await control.heartbeat({ totalChunks: chunks.length, processedChunks: done.size });

    const pending = chunks.filter((c) => !done.has(c.index));
    const languages = new Map<string, number>();
    /** The chunks this attempt wrote, by id, for the vector index (earlier attempts' are read back). */
    const written = new Map<string, { index: number; vector: Float32Array }>();
    for (let i = 0; i < pending.length; i += BATCH_SIZE) {
      if (control.signal.aborted) throw new Error('The worker is shutting down; the job will resume.');
      const batch = pending.slice(i, i + BATCH_SIZE);
      const vectors = await this.embedder.embed(
        batch.map((c) => c.content),
        { dimensions: doc.dimensions, kind: 'document' },
      );
      const langs = batch.map((c) => this.detector.detect(c.content).language);
      for (const l of langs) if (l) languages.set(l, (languages.get(l) ?? 0) + 1);
      const embeddings = (await EmbeddingEncoder.of(this.db)).encode(vectors);
      const { rows: inserted } = await this.db.query<{ id: string; chunk_index: number }>(
        `INSERT INTO chunks (tenant_id, sub_tenant_id, knowledge_base_id, document_id, chunk_index, content, language,
                             dimensions, embedding, embedder, tsv, doc_title, doc_tags, doc_created_at)
         SELECT $1, $2, $3, $4, t.idx, t.content, t.lang, $5, ${embeddings.element('t.emb')}, $6,
                to_tsvector(t.cfg::regconfig, t.content), $7, $8, $9
         FROM unnest($10::int[], $11::text[], $12::text[], $13::text[], $14::${embeddings.type}) AS t(idx, content, lang, cfg, emb)
         ON CONFLICT (document_id, chunk_index) DO NOTHING
         RETURNING id, chunk_index`,
        [
          doc.tenant_id,
          doc.sub_tenant_id,
          doc.knowledge_base_id,
          doc.id,
          doc.dimensions,
          this.embedder.id,
          doc.title,
          JSON.stringify(doc.tags),
          doc.created_at,
          batch.map((c) => c.index),
          batch.map((c) => c.content),
          langs,
          langs.map(textSearchConfig),
          embeddings.value,
        ],
      );
      const vectorOf = new Map(batch.map((c, j) => [c.index, vectors[j]!]));
      for (const r of inserted) written.set(r.id, { index: r.chunk_index, vector: vectorOf.get(r.chunk_index)! });
      // Progress and lease; after the last batch, completing the job does both.
      if (i + BATCH_SIZE < pending.length) await control.heartbeat({ processedChunks: done.size + i + batch.length });
    }

    const language = [...languages.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    await this.db.transaction(async (tx) => {
      // The tenant row first, as deleting an account does (it cascades from the tenant to the
      // document): locks taken in the same order cannot deadlock.
      const { rows } = await tx.query<{ plan: PlanId }>('SELECT plan FROM tenants WHERE id = $1 FOR KEY SHARE', [doc.tenant_id]);
      if (!rows[0]) throw new NonRetryableError('The document was deleted before it was indexed.');
      const { rowCount } = await tx.query(
        `UPDATE documents SET status = 'ready', chunk_count = $2, embedder = $3,
                language = COALESCE($4, language), error = NULL, updated_at = now()
         WHERE id = $1`,
        [doc.id, chunks.length, this.embedder.id, language],
      );
      if (!rowCount) throw new NonRetryableError('The document was deleted before it was indexed.');
      await this.usage.recordIngestion(tx, {
        tenantId: doc.tenant_id,
        subTenantId: doc.sub_tenant_id,
        plan: rows[0].plan,
        chunks: chunks.length,
      });
      if (!(await completeJob(tx, job.id, control.owner))) throw new LeaseLostError('Another worker took over this job.');
    });
    const all = written.size === chunks.length;
    await this.vectors.documentsIndexed([
      {
        id: doc.id,
        ...(all && {
          written: {
            tenantId: doc.tenant_id,
            subTenantId: doc.sub_tenant_id,
            knowledgeBaseId: doc.knowledge_base_id,
            dimensions: doc.dimensions,
            title: doc.title,
            tags: doc.tags,
            createdAt: doc.created_at,
            chunks: [...written].sort((a, b) => a[1].index - b[1].index).map(([id, c]) => ({ id, vector: c.vector })),
          },
        }),
      },
    ]);
  }

  /** A job that failed for good leaves a failed document that holds no chunks (and no chunk quota). */
  async documentFailed(tx: Queryable, job: JobRow, error: string): Promise<void> {
    if (!job.document_id) return;
    await tx.query('DELETE FROM chunks WHERE document_id = $1', [job.document_id]);
    await tx.query(
      `UPDATE documents SET status = 'failed', chunk_count = 0, error = $2, updated_at = now() WHERE id = $1`,
      [job.document_id, error],
    );
  }

  private async loadDocument(id: string | null): Promise<DocumentToIndex | undefined> {
    if (!id) return undefined;
    const { rows } = await this.db.query<DocumentToIndex>(
      `SELECT d.id, d.tenant_id, d.sub_tenant_id, d.knowledge_base_id, d.title, d.tags, d.content, d.created_at, kb.dimensions
       FROM documents d JOIN knowledge_bases kb ON kb.id = d.knowledge_base_id WHERE d.id = $1`,
      [id],
    );
    return rows[0];
  }

  private async indexedChunkIndexes(documentId: string): Promise<Set<number>> {
    const { rows } = await this.db.query<{ chunk_index: number }>('SELECT chunk_index FROM chunks WHERE document_id = $1', [
      documentId,
    ]);
    return new Set(rows.map((r) => r.chunk_index));
  }
}
