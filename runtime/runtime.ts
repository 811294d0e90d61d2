import type { Logger } from 'pino';
import { WordListDecompounder } from '../core/adapters/wordlist.decompounder.js';
import { JwksTokenVerifier } from '../core/adapters/jwks.token-verifier.js';
import { MemoryRateLimitStore } from '../core/adapters/memory.rate-limit-store.js';
import { PostgresRateLimitStore } from '../core/adapters/postgres.rate-limit-store.js';
import type { Config } from '../core/config.js';
import type { Database } from '../core/db/database.js';
import { TableMaintenance } from '../core/db/table-maintenance.js';
import { PdfExtractor } from '../core/documents/pdf-extractor.js';
import { createMailer } from '../core/adapters/nodemailer.mailer.js';
import { GitHubSignatureVerifier } from '../core/adapters/github.signature-verifier.js';
import { createActivities } from '../workflows/activities.js';
import { EmbeddedWorkflowEngine } from '../workflows/embedded-engine.js';
import { temporalStarter } from '../workflows/temporal/temporal-client.js';
import { TemporalWorkflowEngine } from '../workflows/temporal/temporal.engine.js';
import { noDomainMetrics } from '../core/ports/metrics.js';
import type { WorkflowEngine } from '../core/ports/workflow-engine.js';
import { createAddonAdapters, createCatalogueDictionary, createEmbedder, createKeywordIndex, createLanguageDetector, createTranslator, createVectorIndex } from './adapters.js';
import { type Adapters, type Services, createServices } from './services.js';

export type RuntimeConfig = Pick<
  Config,
  | 'apiKeyPrefix'
  | 'wordLists'
  | 'chunking'
  | 'pdfParseTimeoutMs'
  | 'pdfWorkers'
  | 'embedder'
  | 'embedderBatchSize'
  | 'embedderTimeoutMs'
  | 'languageDetectionDataset'
  | 'jobs'
  | 'vectorIndex'
  | 'keywordIndex'
  | 'queryConcurrency'
  | 'database'
  | 'billingEnabled'
  | 'dpaCurrentVersion'
  | 'rateLimitStore'
  | 'oauth'
  | 'translation'
  | 'addons'
  | 'portal'
  | 'publicBaseUrl'
  | 'port'
  | 'workflowEngine'
>;

export interface Runtime {
  services: Services;
  /** The in-process engine: runs the jobs with WORKFLOW_ENGINE=embedded, and holds the job definitions. */
  engine: EmbeddedWorkflowEngine;
  /** The engine jobs are enqueued with and that `start` starts: `engine`, or Temporal's dispatcher. */
  jobs: WorkflowEngine;
  /** Statistics and vacuuming for the embedded database (a server's autovacuum does it otherwise); call start(). */
  maintenance: TableMaintenance | undefined;
  /** Stops the job workers and worker threads (the database belongs to the caller). */
  close(): Promise<void>;
}

/**
 * The composition root shared by the API server, the CLI, tests and benchmarks (and the worker,
 * operator and portal as they come): builds the
 * adapters the configuration asks for, the services over them, and the job engine. A process that
 * serves metrics passes its registry's domain metrics (`overrides.metrics`); others report nowhere.
 */
export async function createRuntime(
  db: Database,
  config: RuntimeConfig,
  log: Logger,
  overrides: Partial<Adapters> = {},
): Promise<Runtime> {
  const metrics = overrides.metrics ?? noDomainMetrics;
  // Jobs, the indexes' own work and table maintenance give way to requests (Database.givingWay).
  const givingWay = db.givingWay();
  const engine = new EmbeddedWorkflowEngine(
    givingWay,
    log.child({ component: 'jobs' }),
    {
      concurrency: config.jobs.concurrency,
      leaseSeconds: config.jobs.leaseSeconds,
      maxAttempts: config.jobs.maxAttempts,
      retryBaseSeconds: config.jobs.retryBaseSeconds,
      releaseStaleLeasesOnStart: config.database.kind === 'embedded',
    },
    metrics,
  );
  const temporal = config.workflowEngine.kind === 'temporal' ? temporalStarter(config.workflowEngine) : undefined;
  const jobs: WorkflowEngine =
    config.workflowEngine.kind === 'temporal' && temporal
      ? new TemporalWorkflowEngine(db, temporal, log.child({ component: 'temporal' }), {
          taskQueue: config.workflowEngine.taskQueue,
          maxAttempts: config.jobs.maxAttempts,
          pollIntervalMs: 1000,
        })
      : engine;
  const pdf = new PdfExtractor({ maxWorkers: config.pdfWorkers });
  const synonymDictionary = overrides.synonymDictionary !== undefined ? overrides.synonymDictionary : createCatalogueDictionary(config);
  let translator = overrides.translator;
  if (!translator) {
    const composite = createTranslator(config, metrics, synonymDictionary);
    // Engines are asked for their pairs in the background; one that cannot be reached is asked again later.
    void composite.discover();
    translator = composite;
  }
  const embedder = overrides.embedder ?? createEmbedder(config);
  const vectorIndex = overrides.vectorIndex ?? createVectorIndex(givingWay, config, embedder, log);
  // Builds (or drops) the database indexes the adapter does (not) search; loading continues in the
  // background. A database that cannot be reached yet does not stop start-up.
  await vectorIndex.start().catch((err: unknown) => log.error({ err }, 'preparing the vector index failed'));
  const services = createServices(db, config, {
    embedder,
    languageDetector: overrides.languageDetector ?? (await createLanguageDetector(config, log)),
    decompounder: overrides.decompounder ?? new WordListDecompounder(config.wordLists),
    synonymDictionary,
    vectorIndex,
    keywordIndex: overrides.keywordIndex ?? createKeywordIndex(givingWay, config, vectorIndex),
    pdf,
    engine: jobs,
    rateLimits:
      overrides.rateLimits ?? (config.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(db) : new MemoryRateLimitStore()),
    clock: overrides.clock,
    tokenVerifier:
      overrides.tokenVerifier ??
      (config.oauth.verifier.kind === 'jwks' ? new JwksTokenVerifier(config.oauth.verifier.jwksUrl, config.oauth.verifier.issuer) : undefined),
    translator,
    metrics,
    ...createAddonAdapters(config),
    mailer: overrides.mailer ?? createMailer(config.portal, log.child({ component: 'mail' })),
    reportSignatures:
      overrides.reportSignatures ??
      new GitHubSignatureVerifier({ url: config.portal.secretScanning.keysUrl, file: config.portal.secretScanning.keysFile }),
    ...pickDefined(overrides, ['audioDecoder', 'transcriber', 'reportGenerator', 'outboundHttp']),
  }, log);
  // A configured signing key that cannot be used stops start-up instead of the first token request.
  if (config.oauth.signingKeyFile) await services.oauthTokens.jwks();
  engine.register(createActivities(services));
  const maintenance = db.kind === 'embedded' ? new TableMaintenance(givingWay, log.child({ component: 'maintenance' })) : undefined;
  return {
    services,
    engine,
    jobs,
    maintenance,
    async close() {
      await maintenance?.stop();
      await engine.stop();
      if (jobs !== engine) await jobs.stop();
      await temporal?.close();
      await vectorIndex.close();
      await pdf.close();
    },
  };
}

/** The overrides given for some keys (a test's fake engine, say), without the keys left undefined. */
function pickDefined<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]])) as Partial<Pick<T, K>>;
}
