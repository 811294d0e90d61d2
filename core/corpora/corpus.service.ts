import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { scopeOf } from '../shared/scope.js';
import { errors } from '../errors.js';
import { type ChunkingOptions, chunkText } from '../ingestion/chunker.js';
import type { JobRow } from '../jobs/job.repository.js';
import type { VectorIndex } from '../ports/vector-index.js';
import type { WorkflowEngine } from '../ports/workflow-engine.js';
import { isUuid } from '../shared/ids.js';
import { corpusNotAvailableOnPlan } from './corpus-access.js';
import {
  type CorpusRecordRow,
  type CorpusRow,
  type TenantCorpusRow,
  corporaOfTenant,
  corpusJobs,
  deleteCorpus,
  deleteRecord,
  findCorpus,
  findCorpusJob,
  findRecord,
  insertCorpus,
  insertDuaAcceptance,
  listCorpora,
  recordCounts,
  updateCorpus,
  upsertRecords,
} from './corpus.repository.js';
import {
  type CreateCorpusInput,
  type LoadRecordsInput,
  type UpdateCorpusInput,
  corpusSlugSchema,
} from './corpus.schema.js';

/** A corpus with how many of its records are pending, ready and failed. */
export interface CorpusWithRecords {
  corpus: CorpusRow;
  records: { pending: number; ready: number; failed: number };
}

/** A corpus_ingestion job with the slug of its corpus. */
export interface CorpusJob {
  job: JobRow;
  slug: string;
}

/**
 * Platform corpora: shared collections owned by the instance. The instance operator creates them
 * and loads records (internal admin API, CLI); tenants list them, accept their data-use agreements,
 * and search them with their queries (see SearchService).
 */
export class CorpusService {
  constructor(
    private readonly db: Database,
    private readonly vectors: VectorIndex,
    private readonly engine: WorkflowEngine,
    private readonly options: { chunking: ChunkingOptions },
  ) {}

  private async withRecords(corpus: CorpusRow): Promise<CorpusWithRecords> {
    return { corpus, records: await recordCounts(this.db, corpus.id) };
  }

  /** The corpus of a slug; anything that is not a corpus's slug is 404. */
  private async find(slug: string): Promise<CorpusRow> {
    const corpus = corpusSlugSchema.safeParse(slug).success ? await findCorpus(this.db, slug) : undefined;
    if (!corpus) throw errors.notFound('corpus');
    return corpus;
  }

  async create(input: CreateCorpusInput): Promise<CorpusWithRecords> {
    // The vector index for the dimension exists before the first chunk arrives.
    await this.vectors.ensureDimensions(input.dimensions, 'corpus');
    const corpus = await insertCorpus(this.db, input);
    if (!corpus) throw errors.conflict('corpus_exists', `A corpus with the slug ${input.slug} exists.`);
    return this.withRecords(corpus);
  }

  async list(): Promise<CorpusWithRecords[]> {
    const corpora = await listCorpora(this.db);
    return Promise.all(corpora.map((c) => this.withRecords(c)));
  }

  async get(slug: string): Promise<CorpusWithRecords> {
    return this.withRecords(await this.find(slug));
  }

  /** Changes apply to the next query: plans and `requires_dua` decide access at query time. */
  async update(slug: string, patch: UpdateCorpusInput): Promise<CorpusWithRecords> {
    await this.find(slug);
    const corpus = await updateCorpus(this.db, slug, patch);
    if (!corpus) throw errors.notFound('corpus');
    return this.withRecords(corpus);
  }

  async delete(slug: string): Promise<void> {
    await this.find(slug);
    const corpus = await this.db.transaction((tx) => deleteCorpus(tx, slug));
    if (!corpus) throw errors.notFound('corpus');
    await this.vectors.corpusRecordsRemoved(corpus, null);
  }

  /**
   * Stores records (a record with an existing `source_record_id` is replaced) and queues one
   * corpus_ingestion job for them, in one transaction. Records become searchable as the job indexes them.
   */
  async loadRecords(slug: string, input: LoadRecordsInput): Promise<{ jobId: string; records: number; totalChunks: number }> {
    const corpus = await this.find(slug);
    const records = input.records.map((r) => ({
      sourceRecordId: r.source_record_id,
      content: r.content,
      contentBytes: Buffer.byteLength(r.content, 'utf8'),
      metadata: r.metadata,
      chunkCount: chunkText(r.content, this.options.chunking).length,
    }));
    const totalChunks = records.reduce((n, r) => n + r.chunkCount, 0);
    const jobId = await this.db.transaction(async (tx) => {
      const id = await this.engine.enqueue(tx, {
        type: 'corpus_ingestion',
        tenantId: null,
        totalChunks,
        payload: { corpus_id: corpus.id, records: records.length, chunking: this.options.chunking },
      });
      await upsertRecords(tx, corpus.id, id!, records);
      return id!;
    });
    this.engine.notify();
    return { jobId, records: records.length, totalChunks };
  }

  async getRecord(slug: string, sourceRecordId: string): Promise<CorpusRecordRow> {
    const corpus = await this.find(slug);
    const record = await findRecord(this.db, corpus.id, sourceRecordId);
    if (!record) throw errors.notFound('record');
    return record;
  }

  /** Removes a record and its chunks from search at once (e.g. a takedown). */
  async deleteRecord(slug: string, sourceRecordId: string): Promise<void> {
    const corpus = await this.find(slug);
    if (!(await this.db.transaction((tx) => deleteRecord(tx, corpus.id, sourceRecordId)))) throw errors.notFound('record');
    await this.vectors.corpusRecordsRemoved(corpus.id, [sourceRecordId]);
  }

  async jobs(slug: string): Promise<CorpusJob[]> {
    const corpus = await this.find(slug);
    return (await corpusJobs(this.db, corpus.id)).map((job) => ({ job, slug: corpus.slug }));
  }

  async job(slug: string, jobId: string): Promise<CorpusJob> {
    const corpus = await this.find(slug);
    const job = isUuid(jobId) ? await findCorpusJob(this.db, corpus.id, jobId) : undefined;
    if (!job) throw errors.notFound('job');
    return { job, slug: corpus.slug };
  }

  /** GET /v1/corpora: every corpus of the instance, with what it means for the caller's tenant. */
  listForTenant(ctx: RequestContext): Promise<TenantCorpusRow[]> {
    return corporaOfTenant(this.db, scopeOf(ctx), ctx.tenant.plan);
  }

  /**
   * POST /v1/corpora/{slug}/accept-dua: records, for the tenant and all its sub-tenants, who
   * accepted (X-Accepted-By), when, and with which key. Accepting again keeps the first record.
   */
  async acceptDua(ctx: RequestContext, slug: string, acceptedBy: string | null): Promise<{ status: 'ok' }> {
    const corpus = corpusSlugSchema.safeParse(slug).success
      ? (await corporaOfTenant(this.db, scopeOf(ctx), ctx.tenant.plan)).find((c) => c.slug === slug)
      : undefined;
    if (!corpus) throw errors.notFound('corpus');
    if (!corpus.accessible) throw corpusNotAvailableOnPlan(slug, ctx.tenant.plan);
    await insertDuaAcceptance(this.db, scopeOf(ctx), {
      corpusId: corpus.id,
      acceptedBy,
      apiKeyId: ctx.principal.kind === 'api_key' ? ctx.principal.id : null,
    });
    return { status: 'ok' };
  }
}
