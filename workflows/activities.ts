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
    billing_period: {
      // The transition is a compare-and-set on the period: a late, early or repeated run is harmless.
      run: async (job) => {
        if (job.tenant_id) await deps.billingPeriods.rollover(tenantScope(job.tenant_id));
      },
    },
  };
}
