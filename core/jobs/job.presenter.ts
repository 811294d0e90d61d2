import type { AddonRequestRow } from '../addons/addon.repository.js';
import type { JobRow } from './job.repository.js';
import type { JobView, PublicJobType } from './job.schema.js';

/** A job; an add-on job with its result's lifetime and its callback's delivery. */
export function presentJob(job: JobRow, addon?: AddonRequestRow): JobView {
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
    ...(addon && {
      result_expires_at: addon.result === null ? null : (addon.result_expires_at?.toISOString() ?? null),
      delivery: {
        status: addon.delivery_status,
        attempts: addon.delivery_attempts,
        last_status_code: addon.last_status_code,
        last_error: addon.last_delivery_error,
        delivered_at: addon.delivered_at?.toISOString() ?? null,
      },
    }),
  };
}
