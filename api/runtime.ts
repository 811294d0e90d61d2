import type { Logger } from 'pino';
import { EldLanguageDetector } from '../core/adapters/eld.language-detector.js';
import { JwksTokenVerifier } from '../core/adapters/jwks.token-verifier.js';
import { LexicalEmbedder } from '../core/adapters/lexical.embedder.js';
import { MemoryRateLimitStore } from '../core/adapters/memory.rate-limit-store.js';
import { OpenAiEmbedder } from '../core/adapters/openai.embedder.js';
import { FlatKeywordIndex } from '../core/adapters/flat.keyword-index.js';
import { FlatVectorIndex } from '../core/adapters/flat.vector-index.js';
import { PgVectorIndex } from '../core/adapters/pgvector.vector-index.js';
import { PostgresKeywordIndex } from '../core/adapters/postgres.keyword-index.js';
import { PostgresRateLimitStore } from '../core/adapters/postgres.rate-limit-store.js';
import { TransformersEmbedder } from '../core/adapters/transformers.embedder.js';
import type { Config } from '../core/config.js';
import type { Database } from '../core/db/database.js';
import { PdfExtractor } from '../core/documents/pdf-extractor.js';
import type { Embedder } from '../core/ports/embedder.js';
import type { KeywordIndex } from '../core/ports/keyword-index.js';
import type { VectorIndex } from '../core/ports/vector-index.js';
import { ApertiumTranslator } from '../core/adapters/apertium.translator.js';
import { CompositeTranslator } from '../core/adapters/composite.translator.js';
import { DeepLTranslator } from '../core/adapters/deepl.translator.js';
import { LibreTranslateTranslator } from '../core/adapters/libretranslate.translator.js';
import type { TranslationEngine } from '../core/ports/translator.js';
import { type Adapters, type Services, createServices } from '../core/services.js';
import { createJobDefinitions } from '../workflows/activities.js';
import { EmbeddedWorkflowEngine } from '../workflows/embedded-engine.js';
import { TableMaintenance } from '../core/db/table-maintenance.js';

export type RuntimeConfig = Pick<
  Config,
  | 'apiKeyPrefix'
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
  | 'database'
  | 'billingEnabled'
  | 'dpaCurrentVersion'
  | 'rateLimitStore'
  | 'oauth'
  | 'translation'
>;

export interface Runtime {
  services: Services;
  engine: EmbeddedWorkflowEngine;
  /** Statistics and vacuuming for the embedded database (a server's autovacuum does it otherwise); call start(). */
  maintenance: TableMaintenance | undefined;
  /** Stops the job workers and worker threads (the database belongs to the caller). */
  close(): Promise<void>;
}

export function createEmbedder(config: RuntimeConfig): Embedder {
  const e = config.embedder;
  switch (e.kind) {
    case 'lexical':
      return new LexicalEmbedder();
    case 'onnx':
      return new TransformersEmbedder({ modelDir: e.modelDir });
    case 'openai':
      return new OpenAiEmbedder({
        baseUrl: e.url,
        model: e.model,
        apiKey: e.apiKey,
        batchSize: config.embedderBatchSize,
        timeoutMs: config.embedderTimeoutMs,
      });
  }
}

export function createVectorIndex(db: Database, config: RuntimeConfig, embedder: Embedder, log: Logger): VectorIndex {
  const v = config.vectorIndex;
  return v.kind === 'flat'
    ? new FlatVectorIndex(db, embedder.id, log.child({ component: 'vector-index' }), { threads: v.searchThreads, keywords: config.keywordIndex === 'flat' })
    : new PgVectorIndex(db, v);
}

/** The keyword search the configuration asks for: in memory over a flat vector index's lexemes, or in the database. */
export function createKeywordIndex(db: Database, config: RuntimeConfig, vectorIndex: VectorIndex): KeywordIndex {
  return config.keywordIndex === 'flat' && vectorIndex instanceof FlatVectorIndex ? new FlatKeywordIndex(db, vectorIndex) : new PostgresKeywordIndex(db);
}

/**
 * The translation engines the configuration names, combined (best engine per pair first). Unset
 * (`auto`): Apertium when its program is installed, else none, so translation is off.
 */
export function createTranslator(config: RuntimeConfig): CompositeTranslator {
  const t = config.translation;
  const names = t.engines === 'auto' ? (ApertiumTranslator.isInstalled(t.apertium.binary) ? ['apertium' as const] : []) : t.engines;
  const http = { timeoutMs: t.httpTimeoutMs };
  const engines: TranslationEngine[] = names.map((name) => {
    switch (name) {
      case 'apertium':
        return new ApertiumTranslator(t.apertium);
      case 'libretranslate':
        return new LibreTranslateTranslator({ ...http, url: t.libreTranslate!.url, apiKey: t.libreTranslate!.apiKey });
      case 'deepl':
        return new DeepLTranslator({ ...http, url: t.deepl!.url, apiKey: t.deepl!.apiKey });
    }
  });
  return new CompositeTranslator(engines, { healthTtlMs: t.healthTtlSeconds * 1000 });
}

/**
 * The composition root shared by the API server, the CLI, tests and benchmarks: builds the
 * adapters the configuration asks for, the services over them, and the job engine.
 */
export async function createRuntime(
  db: Database,
  config: RuntimeConfig,
  log: Logger,
  overrides: Partial<Adapters> = {},
): Promise<Runtime> {
  const engine = new EmbeddedWorkflowEngine(db, log.child({ component: 'jobs' }), {
    concurrency: config.jobs.concurrency,
    leaseSeconds: config.jobs.leaseSeconds,
    maxAttempts: config.jobs.maxAttempts,
    retryBaseSeconds: config.jobs.retryBaseSeconds,
    releaseStaleLeasesOnStart: config.database.kind === 'embedded',
  });
  const pdf = new PdfExtractor({ maxWorkers: config.pdfWorkers });
  let translator = overrides.translator;
  if (!translator) {
    const composite = createTranslator(config);
    // Engines are asked for their pairs in the background; one that cannot be reached is asked again later.
    void composite.discover();
    translator = composite;
  }
  const embedder = overrides.embedder ?? createEmbedder(config);
  const vectorIndex = overrides.vectorIndex ?? createVectorIndex(db, config, embedder, log);
  // Builds (or drops) the database indexes the adapter does (not) search; loading continues in the
  // background. A database that cannot be reached yet does not stop start-up.
  await vectorIndex.start().catch((err: unknown) => log.error({ err }, 'preparing the vector index failed'));
  const services = createServices(db, config, {
    embedder,
    languageDetector: overrides.languageDetector ?? (await EldLanguageDetector.load(config.languageDetectionDataset)),
    vectorIndex,
    keywordIndex: overrides.keywordIndex ?? createKeywordIndex(db, config, vectorIndex),
    pdf,
    engine,
    rateLimits:
      overrides.rateLimits ?? (config.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(db) : new MemoryRateLimitStore()),
    clock: overrides.clock,
    tokenVerifier:
      overrides.tokenVerifier ??
      (config.oauth.verifier.kind === 'jwks' ? new JwksTokenVerifier(config.oauth.verifier.jwksUrl, config.oauth.verifier.issuer) : undefined),
    translator,
  });
  // A configured signing key that cannot be used stops start-up instead of the first token request.
  if (config.oauth.signingKeyFile) await services.oauthTokens.jwks();
  engine.register(createJobDefinitions(services));
  const maintenance = db.kind === 'embedded' ? new TableMaintenance(db, log.child({ component: 'maintenance' })) : undefined;
  return {
    services,
    engine,
    maintenance,
    async close() {
      await maintenance?.stop();
      await engine.stop();
      await vectorIndex.close();
      await pdf.close();
    },
  };
}
