import { Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Database } from '../../core/db/database.js';
import { claimJobById, findJobById } from '../../core/jobs/job.repository.js';
import type { DomainMetrics } from '../../core/ports/metrics.js';
import type { JobDefinitions } from '../../core/ports/workflow-engine.js';
import { type AttemptOptions, runJobAttempt } from '../job-runner.js';

/** What the workflow learns of an attempt: done (completed, failed for good, or gone), or try again after a delay. */
export type JobOutcome = { status: 'done'; detail: 'completed' | 'failed' | 'gone' } | { status: 'retry'; delaySeconds: number };

export interface JobActivities {
  attemptJob: (jobId: string) => Promise<JobOutcome>;
}

/**
 * The activities of the job workflow, over the same job definitions the embedded engine runs
 * (`createActivities(services)`): an attempt claims the job row by id, runs one attempt through the
 * shared runner (Temporal heartbeats alongside the lease's), and tells the workflow what to do next.
 */
export function createJobActivities(deps: {
  db: Database;
  definitions: JobDefinitions;
  options: AttemptOptions;
  log: Logger;
  /** Where attempts are recorded: the worker's registry. */
  metrics: DomainMetrics;
}): JobActivities {
  return {
    async attemptJob(jobId) {
      const context = Context.current();
      const { workflowExecution, activityId } = context.info;
      const workflowId = workflowExecution?.workflowId ?? 'standalone';
      const owner = `temporal:${workflowId}:${workflowExecution?.runId ?? ''}:${activityId}`;
      const job = await claimJobById(deps.db, jobId, owner, deps.options.leaseSeconds);
      if (!job) {
        const row = await findJobById(deps.db, jobId);
        // Deleted (its tenant or document went), or finished: nothing more to do.
        if (!row || row.status === 'completed' || row.status === 'failed') return { status: 'done', detail: 'gone' };
        // Still leased by an attempt that died, or not due yet: look again when its lease or time has passed.
        const dueIn = Math.ceil((row.run_at.getTime() - Date.now()) / 1000);
        return { status: 'retry', delaySeconds: Math.max(dueIn, row.status === 'processing' ? deps.options.leaseSeconds : 1) };
      }
      const log = deps.log.child({ jobId, jobType: job.job_type, tenantId: job.tenant_id, attempt: job.attempts, workflowId });
      const outcome = await runJobAttempt(deps.db, deps.definitions[job.job_type], job, {
        owner,
        signal: context.cancellationSignal,
        options: deps.options,
        log,
        metrics: deps.metrics,
        onHeartbeat: (progress) => context.heartbeat(progress),
      });
      switch (outcome.status) {
        case 'completed':
        case 'failed':
          return { status: 'done', detail: outcome.status };
        case 'retry':
          return { status: 'retry', delaySeconds: outcome.delaySeconds };
        case 'lease_lost':
          return { status: 'retry', delaySeconds: deps.options.leaseSeconds };
      }
    },
  };
}
