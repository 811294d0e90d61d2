import { AccountService } from './accounts/account.service.js';
import { BillingService } from './billing/billing.service.js';
import { type Clock, systemClock } from './clock.js';
import type { Config } from './config.js';
import { DpaService } from './dpa/dpa.service.js';
import type { RateLimitStore } from './ports/rate-limit-store.js';
import { UsageService } from './usage/usage.service.js';
import type { Database } from './db/database.js';
import { DocumentService } from './documents/document.service.js';
import type { PdfExtractor } from './documents/pdf-extractor.js';
import { HealthService } from './health/health.service.js';
import { IngestionService } from './ingestion/ingestion.service.js';
import { JobService } from './jobs/job.service.js';
import { ApiKeyService } from './keys/api-key.service.js';
import { KnowledgeBaseService } from './knowledge-bases/knowledge-base.service.js';
import type { Embedder } from './ports/embedder.js';
import type { LanguageDetector } from './ports/language-detector.js';
import type { VectorIndex } from './ports/vector-index.js';
import type { WorkflowEngine } from './ports/workflow-engine.js';
import { QueryService } from './search/query.service.js';
import { SearchService } from './search/search.service.js';
import { TenantService } from './tenants/tenant.service.js';

/** The adapters a deployment chose for each port. */
export interface Adapters {
  embedder: Embedder;
  languageDetector: LanguageDetector;
  vectorIndex: VectorIndex;
  pdf: PdfExtractor;
  engine: WorkflowEngine;
  rateLimits: RateLimitStore;
  clock?: Clock;
}

export interface Services {
  db: Database;
  adapters: Adapters;
  keys: ApiKeyService;
  tenants: TenantService;
  knowledgeBases: KnowledgeBaseService;
  documents: DocumentService;
  ingestion: IngestionService;
  jobs: JobService;
  search: SearchService;
  queries: QueryService;
  health: HealthService;
  billing: BillingService;
  usage: UsageService;
  dpa: DpaService;
  accounts: AccountService;
}

/** Wires the domain services by hand: the one place that decides what depends on what. */
export function createServices(
  db: Database,
  config: Pick<Config, 'apiKeyPrefix' | 'chunking' | 'pdfParseTimeoutMs' | 'billingEnabled' | 'dpaCurrentVersion'>,
  adapters: Adapters,
): Services {
  const clock = adapters.clock ?? systemClock;
  const keys = new ApiKeyService(db, config.apiKeyPrefix);
  const knowledgeBases = new KnowledgeBaseService(db, adapters.vectorIndex);
  const billing = new BillingService(db, adapters.engine, clock, { enabled: config.billingEnabled });
  const usage = new UsageService(db, billing, clock);
  const dpa = new DpaService(db, config.dpaCurrentVersion);
  const search = new SearchService(db, adapters.embedder, adapters.vectorIndex);
  return {
    db,
    adapters,
    keys,
    tenants: new TenantService(db, keys, billing),
    knowledgeBases,
    billing,
    usage,
    dpa,
    accounts: new AccountService(db, billing, dpa, clock),
    documents: new DocumentService(db, knowledgeBases, adapters.engine, adapters.pdf, {
      chunking: config.chunking,
      pdfTimeoutMs: config.pdfParseTimeoutMs,
    }),
    ingestion: new IngestionService(db, adapters.embedder, adapters.languageDetector, usage),
    jobs: new JobService(db),
    search,
    queries: new QueryService(search, usage),
    health: new HealthService(db),
  };
}
