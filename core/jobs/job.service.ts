import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import { isUuid } from '../shared/ids.js';
import type { Scope } from '../shared/scope.js';
import { type JobRow, findJob, jobBacklog } from './job.repository.js';
import { PUBLIC_JOB_TYPES } from './job.schema.js';

export class JobService {
  constructor(private readonly db: Database) {}

  /** A job of a type the API shows, if the scope can see it; 404 otherwise. */
  async get(scope: Scope, id: string): Promise<JobRow> {
    const job = isUuid(id) ? await findJob(this.db, scope, id, PUBLIC_JOB_TYPES) : undefined;
    if (!job) throw errors.notFound('job');
    return job;
  }

  /** Due jobs waiting for a worker, by type, and how long the oldest has waited (for metrics and alerts). */
  backlog(): Promise<Array<{ job_type: string; waiting: number; oldest_seconds: number }>> {
    return jobBacklog(this.db);
  }
}
