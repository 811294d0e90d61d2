import { AccountService } from '../core/accounts/account.service.js';
import type { Decompounder } from '../core/ports/decompounder.js';
import type { BilingualDictionary } from '../core/ports/translator.js';
import { AddonService, DEFAULT_RETRY_SCHEDULE } from '../core/addons/addon.service.js';
import type { OutboundHttp } from '../core/ports/outbound-http.js';
import type { ReportGenerator } from '../core/ports/report-generator.js';
import type { AudioDecoder, Transcriber } from '../core/ports/transcriber.js';
import { BillingPeriodService } from '../core/billing/billing-period.service.js';
import { BillingService } from '../core/billing/billing.service.js';
import { PlanChangeService } from '../core/billing/plan-change.service.js';
import { QuotaService } from '../core/quotas/quota.service.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import { CorpusIngestionService } from '../core/corpora/corpus-ingestion.service.js';
import { CorpusService } from '../core/corpora/corpus.service.js';
import { DpaService } from '../core/dpa/dpa.service.js';
import type { RateLimitStore } from '../core/ports/rate-limit-store.js';
import { UsageService } from '../core/usage/usage.service.js';
import type { Database } from '../core/db/database.js';
import { DocumentService } from '../core/documents/document.service.js';
import type { PdfExtractor } from '../core/documents/pdf-extractor.js';
import { HealthService } from '../core/health/health.service.js';
import { IngestionService } from '../core/ingestion/ingestion.service.js';
import { JobService } from '../core/jobs/job.service.js';
import { ApiKeyService } from '../core/keys/api-key.service.js';
import { KnowledgeBaseService } from '../core/knowledge-bases/knowledge-base.service.js';
import type { Embedder } from '../core/ports/embedder.js';
import type { DomainMetrics } from '../core/ports/metrics.js';
import type { LanguageDetector } from '../core/ports/language-detector.js';
import type { KeywordIndex } from '../core/ports/keyword-index.js';
import type { VectorIndex } from '../core/ports/vector-index.js';
import type { WorkflowEngine } from '../core/ports/workflow-engine.js';
import { QueryService } from '../core/search/query.service.js';
import { SearchService } from '../core/search/search.service.js';
import { SubTenantService } from '../core/sub-tenants/sub-tenant.service.js';
import { TenantService } from '../core/tenants/tenant.service.js';
import { LocalJwtTokenVerifier } from '../core/adapters/local-jwt.token-verifier.js';
import { OAuthClientService } from '../core/oauth/oauth-client.service.js';
import { SigningKeys } from '../core/oauth/signing-keys.js';
import { TokenService } from '../core/oauth/token.service.js';
import type { TokenVerifier } from '../core/ports/token-verifier.js';
import type { Translator } from '../core/ports/translator.js';
import type { Mailer } from '../core/ports/mailer.js';
import type { ReportSignatureVerifier } from '../core/ports/signature-verifier.js';
import { LeakedKeyService } from '../core/keys/leaked-key.service.js';
import { PortalAccountService } from '../core/portal/portal-account.service.js';
import { type Logger, pino } from 'pino';
import { CompositeTranslator } from '../core/adapters/composite.translator.js';
import { TranslationSettingsService } from '../core/translation/translation-settings.service.js';
import { TranslationService } from '../core/translation/translation.service.js';
import { QueryTranslationService } from '../core/translation/query-translation.service.js';

/** The adapters a deployment chose for each port. */
export interface Adapters {
  embedder: Embedder;
  languageDetector: LanguageDetector;
  /** Splits German and Dutch compounds for keyword search. */
  decompounder: Decompounder;
  /** Where keyword search finds synonyms of a query's words (the catalogue dictionaries); null or absent: none. */
  synonymDictionary?: BilingualDictionary | null;
  vectorIndex: VectorIndex;
  keywordIndex: KeywordIndex;
  pdf: PdfExtractor;
  engine: WorkflowEngine;
  rateLimits: RateLimitStore;
  clock?: Clock;
  /** Verifies MCP access tokens; default: the built-in issuer's own tokens. */
  tokenVerifier?: TokenVerifier;
  /** The configured translation engines, combined; default: none (translation off). */
  translator?: Translator;
  /** Where the domain reports to monitoring: the process's registry, or nowhere. */
  metrics: DomainMetrics;
  /** The add-ons' engines (runtime/adapters.ts: createAddonAdapters). */
  audioDecoder: AudioDecoder;
  transcriber: Transcriber | null;
  reportGenerator: ReportGenerator;
  /** The SSRF-safe client for callbacks to tenants' URLs. */
  outboundHttp: OutboundHttp;
  /** Sends the portal's e-mails (SMTP, or a folder when none is configured). */
  mailer: Mailer;
  /** Checks the code host's signature on secret-scanning reports. */
  reportSignatures: ReportSignatureVerifier;
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
  quotas: QuotaService;
  billing: BillingService;
  billingPeriods: BillingPeriodService;
  planChanges: PlanChangeService;
  usage: UsageService;
  dpa: DpaService;
  accounts: AccountService;
  subTenants: SubTenantService;
  oauthClients: OAuthClientService;
  oauthTokens: TokenService;
  corpora: CorpusService;
  corpusIngestion: CorpusIngestionService;
  translation: TranslationService;
  translationSettings: TranslationSettingsService;
  addons: AddonService;
  portal: PortalAccountService;
  leakedKeys: LeakedKeyService;
}

/** Wires the domain services by hand: the one place that decides what depends on what. */
export function createServices(
  db: Database,
  config: Pick<
    Config,
    'apiKeyPrefix' | 'chunking' | 'pdfParseTimeoutMs' | 'billingEnabled' | 'dpaCurrentVersion' | 'oauth' | 'addons' | 'portal' | 'publicBaseUrl' | 'port' | 'queryConcurrency'
  >,
  adapters: Adapters,
  log: Logger = pino({ level: 'silent' }),
): Services {
  const clock = adapters.clock ?? systemClock;
  // Queries and background work give way to other requests where the database runs one statement at a time.
  const givingWay = db.givingWay();
  const portal = new PortalAccountService(db, adapters.mailer, adapters.rateLimits, adapters.metrics, clock, log.child({ component: 'portal' }), {
    sessionIdleMinutes: config.portal.sessionIdleMinutes,
    sessionMaxHours: config.portal.sessionMaxHours,
    publicBaseUrl: config.publicBaseUrl,
    port: config.port,
  });
  const keys = new ApiKeyService(db, config.apiKeyPrefix);
  const quotas = new QuotaService(db);
  const knowledgeBases = new KnowledgeBaseService(db, adapters.vectorIndex, quotas);
  const billingPeriods = new BillingPeriodService(db, adapters.engine, clock);
  const billingOptions = { enabled: config.billingEnabled };
  const billing = new BillingService(db, billingPeriods, clock, billingOptions);
  const usage = new UsageService(db, billingPeriods, quotas, clock);
  const dpa = new DpaService(db, config.dpaCurrentVersion);
  const search = new SearchService(givingWay, adapters.embedder, adapters.vectorIndex, adapters.keywordIndex, adapters.decompounder, adapters.synonymDictionary ?? null);
  const signingKeys = new SigningKeys(db, { file: config.oauth.signingKeyFile });
  const subTenants = new SubTenantService(db, keys, billingPeriods, clock, adapters.vectorIndex);
  const translation = new TranslationService(db, adapters.translator ?? new CompositeTranslator([]), adapters.languageDetector, clock);
  return {
    db,
    adapters,
    keys,
    tenants: new TenantService(db, keys, billingPeriods, portal),
    portal,
    leakedKeys: new LeakedKeyService(db, keys, portal),
    knowledgeBases,
    quotas,
    billing,
    billingPeriods,
    planChanges: new PlanChangeService(db, billingPeriods, quotas, clock, billingOptions),
    usage,
    dpa,
    accounts: new AccountService(db, billing, dpa, clock, adapters.vectorIndex),
    subTenants,
    oauthClients: new OAuthClientService(db, clock, config.apiKeyPrefix),
    oauthTokens: new TokenService(db, signingKeys, adapters.tokenVerifier ?? new LocalJwtTokenVerifier(signingKeys), clock, config.oauth),
    documents: new DocumentService(db, knowledgeBases, adapters.engine, adapters.pdf, adapters.vectorIndex, quotas, {
      chunking: config.chunking,
      pdfTimeoutMs: config.pdfParseTimeoutMs,
    }),
    ingestion: new IngestionService(givingWay, adapters.embedder, adapters.languageDetector, adapters.decompounder, usage, adapters.vectorIndex, adapters.metrics),
    jobs: new JobService(db),
    search,
    queries: new QueryService(search, usage, new QueryTranslationService(givingWay, translation, subTenants), adapters.metrics, config.queryConcurrency),
    health: new HealthService(db, adapters.vectorIndex),
    corpora: new CorpusService(db, adapters.vectorIndex, adapters.engine, { chunking: config.chunking }),
    corpusIngestion: new CorpusIngestionService(givingWay, adapters.embedder, adapters.languageDetector, adapters.decompounder, adapters.vectorIndex, adapters.metrics),
    translation,
    translationSettings: new TranslationSettingsService(db),
    addons: new AddonService(
      db,
      adapters.engine,
      adapters.audioDecoder,
      adapters.transcriber,
      adapters.reportGenerator,
      adapters.languageDetector,
      adapters.outboundHttp,
      clock,
      adapters.metrics,
      {
        enabled: config.addons.enabled,
        maxAudioSeconds: config.addons.maxAudioSeconds,
        maxTranscriptChars: config.addons.maxTranscriptChars,
        resultTtlHours: config.addons.resultTtlHours,
        segmentSeconds: 30,
        retrySchedule: config.addons.callbacks.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
        healthTtlMs: 30_000,
      },
    ),
  };
}
