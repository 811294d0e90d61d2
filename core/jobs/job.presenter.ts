import type { JobRow } from './job.repository.js';
import type { JobView, PublicJobType } from './job.schema.js';

export function presentJob(job: JobRow): JobView {
  return {
    id: job.id,
    tenant_id: job.tenant_id!,
    document_id: job.document_id,
    knowledge_base_id: job.knowledge_base_id,
    job_type: job.job_type as PublicJobType,
    status: job.status,
    error: job.error,
    total_chunks: job.total_chunks,
    processed_chunks: job.processed_chunks,
    attempts: job.attempts,
    created_at: job.created_at.toISOString(),
    completed_at: job.completed_at?.toISOString() ?? null,
  };
}
