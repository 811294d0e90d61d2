import type { AddonService } from '../core/addons/addon.service.js';
import type { BillingPeriodService } from '../core/billing/billing-period.service.js';
import type { CorpusIngestionService } from '../core/corpora/corpus-ingestion.service.js';
import { INGESTION_BATCH_SIZE, type IngestionService } from '../core/ingestion/ingestion.service.js';
import type { JobDefinitions } from '../core/ports/workflow-engine.js';
import { tenantScope } from '../core/shared/scope.js';

/** What the activities need: only the service methods each job type runs. */
export interface ActivityDeps {
  ingestion: Pick<IngestionService, 'indexDocument' | 'indexDocuments' | 'documentFailed'>;
  corpusIngestion: Pick<CorpusIngestionService, 'indexRecords' | 'recordsFailed'>;
  billingPeriods: Pick<BillingPeriodService, 'rollover'>;
  addons: Pick<AddonService, 'runTranscription' | 'runReport' | 'jobFailed' | 'deliverCallback' | 'deliveryFailed'>;
}

/**
 * The activities behind each job type: plain functions over the core services, so the business
 * rules are written once and run by the embedded engine and (in the cluster topology) Temporal workers.
 */
export function createActivities(deps: ActivityDeps): JobDefinitions {
  return {
    ingestion: {
      run: (job, control) => deps.ingestion.indexDocument(job, control),
      batch: { max: INGESTION_BATCH_SIZE, run: (jobs, control) => deps.ingestion.indexDocuments(jobs, control) },
      failed: (tx, job, error) => deps.ingestion.documentFailed(tx, job, error),
    },
    corpus_ingestion: {
      run: (job, control) => deps.corpusIngestion.indexRecords(job, control),
      failed: (tx, job, error) => deps.corpusIngestion.recordsFailed(tx, job, error),
    },
    // Add-on jobs: segments (transcription) are recorded as they are done, so a retry resumes.
    transcription: {
      run: (job, control) => deps.addons.runTranscription(job, control),
      failed: (tx, job) => deps.addons.jobFailed(tx, job),
    },
    report_generation: {
      run: (job, control) => deps.addons.runReport(job, control),
      failed: (tx, job) => deps.addons.jobFailed(tx, job),
    },
    // One attempt per run: a failed attempt asks to run again after the delivery schedule's next wait.
    callback_delivery: {
      run: (job, control) => deps.addons.deliverCallback(job, control),
      failed: (tx, job, error) => deps.addons.deliveryFailed(tx, job, error),
    },
    billing_period: {
      // The transition is a compare-and-set on the period: a late, early or repeated run is harmless.
      run: async (job) => {
        if (job.tenant_id) await deps.billingPeriods.rollover(tenantScope(job.tenant_id));
      },
    },
  };
}
