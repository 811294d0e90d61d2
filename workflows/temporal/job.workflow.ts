/**
 * The one Temporal workflow of Lore's jobs: a job row (the source of truth of GET /v1/jobs/{id})
 * runs as one workflow, whose id is derived from the job's, so a second start is refused. The
 * workflow waits until the job's time, then runs attempts of the job as activities; each attempt
 * records its outcome on the job row itself (completed, failed, or queued again after a delay), and
 * the workflow sleeps on a durable timer before the next. Workflow code imports only
 * @temporalio/workflow and types: it is deterministic, and replays.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { JobActivities } from './job.activities.js';
import type { RunJobInput } from './job-input.js';

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
  let lost = 0;
  for (;;) {
    let delaySeconds: number;
    try {
      const outcome = await attemptJob(input.jobId);
      if (outcome.status !== 'retry') return;
      delaySeconds = outcome.delaySeconds;
    } catch {
      // The attempt's worker died or timed out; its lease on the job row expires, then the job is tried again.
      lost += 1;
      if (lost > input.maxAttempts) return;
      delaySeconds = 30;
    }
    await sleep(Math.max(1, delaySeconds) * 1000);
  }
}
