/**
 * The one Temporal workflow of Lore's jobs: a job row (the source of truth of GET /v1/jobs/{id})
 * runs as one workflow, whose id is derived from the job's, so a second start is refused. The
 * workflow waits until the job's time, then runs attempts of the job as activities; each attempt
 * records its outcome on the job row itself (completed, failed, or queued again after a delay), and
 * the workflow sleeps on a durable timer before the next. Workflow code imports only
 * @temporalio/workflow and types: it is deterministic, and replays.
 */
import { condition, continueAsNew, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { JobActivities } from './job.activities.js';
import { type BillingPeriodsInput, PERIOD_SCHEDULED_SIGNAL, type RunJobInput, type ScheduledJob } from './job-input.js';

const { attemptJob } = proxyActivities<JobActivities>({
  // A long ingestion heartbeats; a worker that dies is noticed within the heartbeat timeout.
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  // Attempts, their backoff and the job's failure are the job row's (as in the embedded engine):
  // Temporal runs each attempt once.
  retry: { maximumAttempts: 1 },
});

export async function runJob(input: RunJobInput): Promise<void> {
  const wait = input.runAt - Date.now();
  if (wait > 0) await sleep(wait);
  await attemptUntilDone(input.jobId, input.maxAttempts);
}

/** Runs attempts of a job until it is done (completed, failed for good, or gone), sleeping on a timer between them. */
async function attemptUntilDone(jobId: string, maxAttempts: number): Promise<void> {
  let lost = 0;
  for (;;) {
    let delaySeconds: number;
    try {
      const outcome = await attemptJob(jobId);
      if (outcome.status !== 'retry') return;
      delaySeconds = outcome.delaySeconds;
    } catch {
      // The attempt's worker died or timed out; its lease on the job row expires, then the job is tried again.
      lost += 1;
      if (lost > maxAttempts) return;
      delaySeconds = 30;
    }
    await sleep(Math.max(1, delaySeconds) * 1000);
  }
}

export const periodScheduled = defineSignal<[ScheduledJob]>(PERIOD_SCHEDULED_SIGNAL);

/**
 * A tenant's billing periods: one long-lived workflow per tenant (its id is the tenant's), started
 * or signalled with each scheduled transition. It sleeps on a durable timer until the earliest
 * transition is due (a newly signalled earlier one wakes it), runs it (the billing-period job: apply
 * a scheduled downgrade or cancellation, renew an annual plan, start the next period, schedule its
 * end), and continues as new after each period with what is still scheduled, so its history stays
 * short. The transition itself is a compare-and-set in the database, so a repeat is harmless.
 */
export async function billingPeriods(input: BillingPeriodsInput): Promise<void> {
  const queue = [...input.scheduled];
  setHandler(periodScheduled, (job) => {
    if (!queue.some((q) => q.jobId === job.jobId)) queue.push(job);
  });
  await condition(() => queue.length > 0);
  for (;;) {
    queue.sort((a, b) => a.runAt - b.runAt);
    const next = queue[0]!;
    const wait = next.runAt - Date.now();
    if (wait <= 0) break;
    // Wakes early when a transition due before this one is signalled.
    await condition(() => queue.some((q) => q.runAt < next.runAt), wait);
  }
  const due = queue.shift()!;
  await attemptUntilDone(due.jobId, due.maxAttempts);
  await continueAsNew<typeof billingPeriods>({ tenantId: input.tenantId, scheduled: queue });
}
