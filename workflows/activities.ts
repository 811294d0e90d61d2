import { INGESTION_BATCH_SIZE } from '../core/ingestion/ingestion.service.js';
import type { JobDefinitions } from '../core/ports/workflow-engine.js';
import type { Services } from '../core/services.js';

/**
 * The activities behind each job type: plain functions over the core services, shared by the
 * embedded engine and (in the cluster topology) Temporal workers.
 */
export function createJobDefinitions(services: Services): JobDefinitions {
  return {
    ingestion: {
      run: (job, control) => services.ingestion.indexDocument(job, control),
      batch: { max: INGESTION_BATCH_SIZE, run: (jobs, control) => services.ingestion.indexDocuments(jobs, control) },
      failed: (tx, job, error) => services.ingestion.documentFailed(tx, job, error),
    },
    corpus_ingestion: {
      run: (job, control) => services.corpusIngestion.indexRecords(job, control),
      failed: (tx, job, error) => services.corpusIngestion.recordsFailed(tx, job, error),
    },
    billing_period: {
      // The transition is a compare-and-set on the period: a late, early or repeated run is harmless.
      run: async (job) => {
        if (job.tenant_id) await services.billing.rollover(job.tenant_id);
      },
    },
  };
}
