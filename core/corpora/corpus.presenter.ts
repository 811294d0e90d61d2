import type { CorpusRecordRow, TenantCorpusRow } from './corpus.repository.js';
import type { CorpusAdminView, CorpusJobView, CorpusRecordView, CorpusView } from './corpus.schema.js';
import type { CorpusJob, CorpusWithRecords } from './corpus.service.js';

/** A corpus as the instance operator sees it (internal admin API, CLI). */
export function presentCorpus({ corpus: c, records }: CorpusWithRecords): CorpusAdminView {
  return {
    id: c.id,
    slug: c.slug,
    name: c.name,
    license_info: c.license_info,
    requires_dua: c.requires_dua,
    plans: c.plans,
    dimensions: c.dimensions,
    records,
    chunk_count: c.chunk_count,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

/** A corpus as a tenant sees it (GET /v1/corpora): whether its plan gives access, whether it accepted the DUA. */
export function presentTenantCorpus(c: TenantCorpusRow): CorpusView {
  return { slug: c.slug, name: c.name, license_info: c.license_info, requires_dua: c.requires_dua, accepted: c.accepted, accessible: c.accessible };
}

export function presentCorpusRecord(record: CorpusRecordRow): CorpusRecordView {
  return {
    source_record_id: record.source_record_id,
    status: record.status,
    content_bytes: Number(record.content_bytes),
    chunk_count: record.chunk_count,
    metadata: record.metadata,
    error: record.error,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
  };
}

export function presentCorpusJob({ job, slug }: CorpusJob): CorpusJobView {
  return {
    id: job.id,
    job_type: 'corpus_ingestion',
    corpus: slug,
    status: job.status,
    error: job.error,
    records: Number(job.payload.records ?? 0),
    total_chunks: job.total_chunks,
    processed_chunks: job.processed_chunks,
    attempts: job.attempts,
    created_at: job.created_at.toISOString(),
    completed_at: job.completed_at?.toISOString() ?? null,
  };
}

/** 202 of a record load: the job that indexes the records, how many, and their chunks. */
export function presentCorpusLoad(load: { jobId: string; records: number; totalChunks: number }) {
  return { job_id: load.jobId, records: load.records, total_chunks: load.totalChunks };
}
