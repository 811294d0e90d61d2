import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import { isUuid } from '../shared/ids.js';
import type { Scope } from '../shared/scope.js';
import { type JobRow, findJob } from './job.repository.js';
import { type JobView, PUBLIC_JOB_TYPES, type PublicJobType } from './job.schema.js';

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

export class JobService {
  constructor(private readonly db: Database) {}

  async get(scope: Scope, id: string): Promise<JobView> {
    const job = isUuid(id) ? await findJob(this.db, scope, id, PUBLIC_JOB_TYPES) : undefined;
    if (!job) throw errors.notFound('job');
    return presentJob(job);
  }
}
