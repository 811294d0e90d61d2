/** The job workflow's input (kept apart from the workflow, so API processes need not load the workflow SDK). */
export interface RunJobInput {
  jobId: string;
  /** When the job may run (milliseconds since the epoch): scheduled jobs and billing periods wait on a timer. */
  runAt: number;
  /** The job's attempts; also bounds how often a lost activity (a worker that died) is tried again. */
  maxAttempts: number;
}

/** The workflow id of a job: one workflow per job, and a second start of the same job is refused. */
export function jobWorkflowId(jobId: string): string {
  return `lore-job-${jobId}`;
}

/** A scheduled billing-period transition, as the tenant's billing workflow receives it (signal `periodScheduled`). */
export interface ScheduledJob {
  jobId: string;
  runAt: number;
  maxAttempts: number;
}

/** The input of a tenant's billing workflow: the transitions it still has to run (carried across continue-as-new). */
export interface BillingPeriodsInput {
  tenantId: string;
  scheduled: ScheduledJob[];
}

/** One long-lived billing workflow per tenant. */
export function billingWorkflowId(tenantId: string): string {
  return `lore-billing-${tenantId}`;
}

export const PERIOD_SCHEDULED_SIGNAL = 'periodScheduled';
