import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { TranslationEngineName } from './ports/translator.js';
import { type Language, PIVOT_LANGUAGES, type PivotLanguage, SUPPORTED_LANGUAGES } from './translation/translation.schema.js';

/**
 * Every environment variable Lore reads, parsed once. Nothing else in the codebase reads
 * `process.env`; components receive the parts of `Config` they need.
 */
const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const urlString = z.url({ protocol: /^https?$/ });

/**
 * QUERY_CONCURRENCY's default in the embedded topology: one PGlite connection on the main thread
 * and the vector scans on a worker keep two cores busy with a few queries; the others wait in
 * order instead of queueing their statements ahead of every other request (docs/performance.md).
 */
export const EMBEDDED_QUERY_CONCURRENCY = 4;

export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  PGLITE_SHARED_BUFFERS: z
    .string()
    .regex(/^[1-9]\d*(kB|MB|GB)$/, 'a size such as 128MB or 1GB')
    .default('128MB'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  API_KEY_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]{1,15}$/, 'must be 2-16 lowercase letters or digits, starting with a letter')
    .default('lore'),
  PUBLIC_BASE_URL: urlString.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  METRICS_ENABLED: boolFromEnv.default(true),
  METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  MIGRATE_ON_START: boolFromEnv.optional(),
  EMBEDDER: z.enum(['lexical', 'onnx', 'openai']).default('lexical'),
  EMBEDDER_MODEL_DIR: z.string().min(1).optional(),
  EMBEDDER_URL: urlString.optional(),
  EMBEDDER_MODEL: z.string().min(1).optional(),
  EMBEDDER_API_KEY: z.string().min(1).optional(),
  EMBEDDER_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(64),
  EMBEDDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  CHUNK_TARGET_CHARS: z.coerce.number().int().min(100).max(20_000).default(1000),
  CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(5_000).default(150),
  CHUNK_MAX_CHARS: z.coerce.number().int().min(200).max(40_000).default(2000),
  PDF_PARSE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  PDF_WORKERS: z.coerce.number().int().min(1).max(32).default(2),
  LANGUAGE_DETECTION_DATASET: z.enum(['large', 'medium', 'small']).default('large'),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  JOB_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  JOB_RETRY_BASE_SECONDS: z.coerce.number().min(0).max(3600).default(2),
  JOBS_ENABLED: boolFromEnv.default(true),
  WORKFLOW_ENGINE: z.enum(['embedded', 'temporal']).default('embedded'),
  TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'host:port').optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, _ . -').default('lore'),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: boolFromEnv.optional(),
  VECTOR_INDEX: z.enum(['flat', 'pgvector', 'qdrant']).optional(),
  QDRANT_URL: urlString.optional(),
  QDRANT_API_KEY: z.string().min(1).optional(),
  QDRANT_COLLECTION_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]{0,32}$/, 'lowercase letters, digits, _ and -, at most 32')
    .default('lore_'),
  QDRANT_HNSW_M: z.coerce.number().int().min(4).max(128).default(16),
  QDRANT_HNSW_EF_CONSTRUCT: z.coerce.number().int().min(8).max(1000).default(100),
  QDRANT_QUANTIZATION: z.enum(['none', 'scalar']).default('none'),
  KEYWORD_INDEX: z.enum(['flat', 'postgres']).optional(),
  WORD_LISTS: z
    .string()
    .regex(/^(auto|none|(de|nl)=[^,=]+(,(de|nl)=[^,=]+)*)$/, 'auto, none, or language=path pairs separated by commas (de, nl)')
    .default('auto'),
  QUERY_CONCURRENCY: z.coerce.number().int().min(1).max(1024).optional(),
  VECTOR_SEARCH_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  VECTOR_EXACT_SCAN_THRESHOLD: z.coerce.number().int().min(0).default(4_000),
  VECTOR_GRAPH_MIN_MB: z.coerce.number().int().min(0).default(160),
  VECTOR_GRAPH_EF_SEARCH: z.coerce.number().int().min(10).max(4000).default(800),
  VECTOR_GRAPH_EF_CONSTRUCTION: z.coerce.number().int().min(16).max(2000).default(128),
  VECTOR_SNAPSHOT_DIR: z.string().min(1).optional(),
  VECTOR_SNAPSHOT_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(900),
  HNSW_EF_SEARCH: z.coerce.number().int().min(10).max(1000).default(400),
  BILLING_ENABLED: boolFromEnv.default(true),
  DPA_CURRENT_VERSION: z.coerce.number().int().min(1).default(1),
  TRUSTED_PROXIES: z
    .string()
    .regex(/^[0-9a-fA-F.:/,\s]+$|^(loopback|linklocal|uniquelocal)(,\s*(loopback|linklocal|uniquelocal))*$/, 'a comma-separated list of IPs or CIDRs')
    .optional(),
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).optional(),
  AUTH_URL: urlString.optional(),
  MCP_URL: urlString.optional(),
  OAUTH_SIGNING_KEY_FILE: z.string().min(1).optional(),
  OAUTH_TOKEN_VERIFIER: z.enum(['local', 'jwks']).default('local'),
  OAUTH_JWKS_URL: urlString.optional(),
  OAUTH_ISSUER: z.string().min(1).optional(),
  TRANSLATION_ENGINES: z
    .string()
    .regex(/^none$|^(apertium|libretranslate|deepl)(\s*,\s*(apertium|libretranslate|deepl))*$/, 'none, or a comma-separated list of apertium, libretranslate, deepl')
    .optional(),
  APERTIUM_BINARY: z.string().min(1).default('apertium'),
  APERTIUM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(20_000),
  APERTIUM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  APERTIUM_DATADIR: z.string().min(1).default('/usr/share/apertium'),
  APERTIUM_ROUTES: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      const routes = apertiumRoutes(value);
      if (typeof routes === 'string') ctx.addIssue({ code: 'custom', message: routes });
    }),
  FREEDICT_DIR: z.string().min(1).default('/usr/share/dictd'),
  CATALOGUE_DICTIONARY_DIR: z.string().min(1).optional(),
  LIBRETRANSLATE_URL: urlString.optional(),
  LIBRETRANSLATE_API_KEY: z.string().min(1).optional(),
  DEEPL_URL: urlString.optional(),
  DEEPL_API_KEY: z.string().min(1).optional(),
  TRANSLATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  TRANSLATION_HEALTH_TTL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  SCRIBE_API_ENABLED: boolFromEnv.default(true),
  TRANSCRIPTION_ENGINE: z.enum(['local', 'openai', 'none']).default('local'),
  TRANSCRIPTION_URL: urlString.optional(),
  TRANSCRIPTION_MODEL: z.string().min(1).default('whisper-1'),
  TRANSCRIPTION_API_KEY: z.string().min(1).optional(),
  TRANSCRIPTION_LANGUAGES: z
    .string()
    .regex(/^(en|nl|fr|de|es|it|bg|ro)(\s*,\s*(en|nl|fr|de|es|it|bg|ro))*$/, 'a comma-separated list of en, nl, fr, de, es, it, bg, ro')
    .optional(),
  TRANSCRIPTION_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
  TRANSCRIPTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  POCKETSPHINX_BINARY: z.string().min(1).default('pocketsphinx_continuous'),
  POCKETSPHINX_MODEL_DIR: z.string().min(1).default('/usr/share/pocketsphinx/model/en-us'),
  FFMPEG_BINARY: z.string().min(1).default('ffmpeg'),
  FFPROBE_BINARY: z.string().min(1).default('ffprobe'),
  REPORT_ENGINE: z.enum(['builtin', 'openai']).default('builtin'),
  REPORT_URL: urlString.optional(),
  REPORT_MODEL: z.string().min(1).optional(),
  REPORT_API_KEY: z.string().min(1).optional(),
  REPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000),
  REPORT_MAX_CHARS: z.coerce.number().int().min(1).max(10_000_000).default(200_000),
  ADDON_RESULT_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(168),
  CALLBACK_ALLOWED_NETWORKS: z
    .string()
    .regex(/^[0-9a-fA-F.:/,\s]+$/, 'a comma-separated list of IPs or CIDRs')
    .optional(),
  CALLBACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  CALLBACK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*$/, 'a comma-separated list of waits in seconds')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Lore <lore@localhost>'),
  MAIL_DIR: z.string().min(1).optional(),
  PORTAL_SESSION_IDLE_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  PORTAL_SESSION_MAX_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  SECRET_SCANNING_KEYS_URL: urlString.default('https://api.github.com/meta/public_keys/secret_scanning'),
  SECRET_SCANNING_KEYS_FILE: z.string().min(1).optional(),
  OPERATOR_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  OPERATOR_WATCH_NAMESPACES: z.string().optional(),
  OPERATOR_LEASE_NAME: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, 'a Kubernetes object name')
    .default('lore-operator'),
  OPERATOR_LEASE_NAMESPACE: z.string().min(1).optional(),
  OPERATOR_RESYNC_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  OPERATOR_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  POD_NAMESPACE: z.string().min(1).optional(),
  POD_NAME: z.string().min(1).optional(),
  KEYCLOAK_URL: urlString.optional(),
  KEYCLOAK_REALM: z.string().min(1).optional(),
  KEYCLOAK_ADMIN_CLIENT_ID: z.string().min(1).optional(),
  KEYCLOAK_ADMIN_CLIENT_SECRET: z.string().min(1).optional(),
});

export type Env = Record<string, string | undefined>;

/**
 * Where Debian's word lists install (`apt-get install wngerman wdutch`): plain lists of words and
 * their inflected forms, compounds included. They are read from the system, not shipped: the German
 * list is GPL-licensed.
 */
export const DEFAULT_WORD_LISTS: Partial<Record<'de' | 'nl', string>> = {
  de: '/usr/share/dict/ngerman',
  nl: '/usr/share/dict/dutch',
};

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `embedded` runs PGlite in DATA_DIR; `postgres` uses a `pg` pool on DATABASE_URL. */
  database: { kind: 'embedded'; sharedBuffers: string } | { kind: 'postgres'; url: string; poolSize: number };
  adminToken: string | undefined;
  apiKeyPrefix: string;
  publicBaseUrl: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  metricsEnabled: boolean;
  /** When set, GET /metrics requires `Authorization: Bearer <token>` (Prometheus: `authorization` in the scrape config). */
  metricsToken: string | undefined;
  /** Migrations run at start-up in the embedded mode; a server is migrated with `npm run migrate`. */
  migrateOnStart: boolean;
  embedder:
    | { kind: 'lexical' }
    | { kind: 'onnx'; modelDir: string }
    | { kind: 'openai'; url: string; model: string; apiKey: string | undefined };
  embedderBatchSize: number;
  embedderTimeoutMs: number;
  chunking: { targetChars: number; overlapChars: number; maxChars: number };
  pdfParseTimeoutMs: number;
  pdfWorkers: number;
  languageDetectionDataset: 'large' | 'medium' | 'small';
  jobs: { enabled: boolean; concurrency: number; maxAttempts: number; leaseSeconds: number; retryBaseSeconds: number };
  /**
   * `flat`: every vector in this process's memory, int8, searched exactly (the embedded default:
   * one process owns the database); `pgvector`: HNSW indexes in the database (the server default,
   * shared by API replicas). The threshold and ef_search tune pgvector (and Qdrant), the threads
   * the flat scan; graphMinMb is the size (MiB of int8 vectors) from which the flat index gives a knowledge base's (or
   * corpus's) dense vectors an HNSW graph (0: never), built keeping graphEfConstruction candidates
   * and searched with graphEfSearch.
   */
  vectorIndex: {
    kind: 'flat' | 'pgvector' | 'qdrant';
    exactScanThreshold: number;
    efSearch: number;
    searchThreads: number;
    graphMinMb: number;
    graphEfSearch: number;
    graphEfConstruction: number;
    /** `flat`: where its snapshots go (none: every start reads the tables), and how often one is taken while things change (0: at shutdown only). */
    snapshotDir: string | undefined;
    snapshotIntervalSeconds: number;
    /** `qdrant`: where it is and how new collections are built. */
    qdrant?: { url: string; apiKey: string | undefined; prefix: string; m: number; efConstruct: number; quantization: 'none' | 'scalar' };
  };
  /**
   * `flat`: keyword search ranks in memory over the flat vector index's copy of the chunks'
   * lexemes (needs VECTOR_INDEX=flat; its default); `postgres`: in the database (GIN index).
   */
  keywordIndex: 'flat' | 'postgres';
  /** Word lists by language for splitting compounds in keyword search (none: no splitting). */
  wordLists: Partial<Record<'de' | 'nl', string>>;
  /**
   * Queries answered at once by this process; more wait their turn in order. Beyond what the
   * database and the cores run in parallel, more at once only lengthens every request's wait.
   */
  queryConcurrency: number;
  billingEnabled: boolean;
  dpaCurrentVersion: number;
  /** Proxies whose X-Forwarded-For is believed when finding a client's IP (none by default). */
  trustedProxies: string[];
  /** Where rate-limit counters live: memory (one process) or PostgreSQL (shared by API replicas). */
  rateLimitStore: 'memory' | 'postgres';
  /**
   * OAuth for the MCP endpoint: `{auth_url}` and `{mcp_url}` (unset: the URL each request came to),
   * the key that signs access tokens (unset: generated and kept in the database), and who verifies
   * tokens (the built-in issuer, or an external one such as Keycloak through its JWKS).
   */
  oauth: {
    authUrl: string | undefined;
    mcpUrl: string | undefined;
    signingKeyFile: string | undefined;
    verifier: { kind: 'local' } | { kind: 'jwks'; jwksUrl: string; issuer: string };
  };
  /**
   * Translation engines: `auto` (unset) uses Apertium when its program is found, else none; an empty
   * list turns translation off. Whatever the order given, the best engine serving a pair translates it.
   */
  translation: {
    engines: 'auto' | TranslationEngineName[];
    apertium: { binary: string; timeoutMs: number; concurrency: number; dataDir: string; routes: Record<string, 'direct' | PivotLanguage> };
    /** Where FreeDict's bilingual dictionaries are (word look-ups for query translation). */
    freedictDir: string;
    /** Where the catalogue dictionaries (software vocabulary) are; undefined: the ones Lore ships; 'none': not used. */
    catalogueDictionaryDir: string | undefined;
    libreTranslate: { url: string; apiKey: string | undefined } | undefined;
    deepl: { url: string | undefined; apiKey: string } | undefined;
    /** Per attempt of an HTTP engine. */
    httpTimeoutMs: number;
    healthTtlSeconds: number;
  };
  addons: AddonsConfig;
  portal: PortalConfig;
  operator: OperatorConfig;
  /** `embedded`: jobs run in this process from the jobs table; `temporal`: one Temporal workflow per job, run by `npm run worker`. */
  workflowEngine:
    | { kind: 'embedded' }
    | { kind: 'temporal'; address: string; namespace: string; taskQueue: string; apiKey: string | undefined; tls: boolean };
}

/** The web portal, its e-mail and the secret-scanning partner endpoint (spec §5). */
/** The Kubernetes operator (`npm run operator`, operator/main.ts). */
export interface OperatorConfig {
  /** `/metrics`, `/healthz` and `/readyz`. */
  port: number;
  /** Namespaces whose Tenants and SubTenants it reconciles; empty: all. */
  watchNamespaces: string[];
  lease: { namespace: string; name: string };
  /** This replica's name in leader election (the pod's name). */
  identity: string;
  resyncSeconds: number;
  concurrency: number;
  /** Where MCP clients are made: Keycloak's admin API, or (unset) Lore's own authorization server. */
  keycloak: { url: string; realm: string; adminClientId: string; adminClientSecret: string } | undefined;
}

export interface PortalConfig {
  /** `smtp`: sent through SMTP_URL; `folder`: written as .eml files into `dir` (no SMTP configured). */
  mail: { kind: 'smtp'; url: string; from: string } | { kind: 'folder'; dir: string; from: string };
  sessionIdleMinutes: number;
  sessionMaxHours: number;
  /** Cookies are marked Secure unless PUBLIC_BASE_URL is plain http on a host that is not loopback. */
  secureCookies: boolean;
  secretScanning: { keysUrl: string; keysFile: string | undefined };
}

/**
 * The transcription and report add-ons (spec §4). `enabled` off answers 503 scribe_api_not_available;
 * an engine set to `none` (transcription) answers 503 transcription_unavailable.
 */
export interface AddonsConfig {
  enabled: boolean;
  transcription:
    | { engine: 'local'; pocketsphinxBinary: string; modelDir: string }
    | { engine: 'openai'; url: string; model: string; apiKey: string | undefined; languages: Language[] }
    | { engine: 'none' };
  ffmpegBinary: string;
  ffprobeBinary: string;
  maxAudioSeconds: number;
  transcriptionTimeoutMs: number;
  report: { engine: 'builtin' } | { engine: 'openai'; url: string; model: string; apiKey: string | undefined };
  reportTimeoutMs: number;
  maxTranscriptChars: number;
  /** How long a job's result stays retrievable at GET /v1/jobs/{id}/result. */
  resultTtlHours: number;
  /** Callback targets: https on public addresses only, unless the address is in `allowedNetworks` (then http too). */
  /** `retrySchedule`: the waits (seconds) before the 2nd, 3rd, ... delivery attempt; unset: the default schedule. */
  callbacks: { allowedNetworks: string[]; timeoutMs: number; retrySchedule: number[] | undefined };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment. Throws a ConfigError with a one-line message naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  // Empty strings mean "unset": shells and Helm templates often export VAR="".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = issue?.path.join('.') ?? 'environment';
    throw new ConfigError(`Invalid configuration: ${variable}: ${issue?.message ?? 'invalid value'}`);
  }
  const e = parsed.data;
  const fail = (variable: string, message: string): never => {
    throw new ConfigError(`Invalid configuration: ${variable}: ${message}`);
  };
  let embedder: Config['embedder'] = { kind: 'lexical' };
  if (e.EMBEDDER === 'onnx') {
    embedder = { kind: 'onnx', modelDir: e.EMBEDDER_MODEL_DIR ?? fail('EMBEDDER_MODEL_DIR', 'required when EMBEDDER=onnx') };
  } else if (e.EMBEDDER === 'openai') {
    embedder = {
      kind: 'openai',
      url: e.EMBEDDER_URL ?? fail('EMBEDDER_URL', 'required when EMBEDDER=openai'),
      model: e.EMBEDDER_MODEL ?? fail('EMBEDDER_MODEL', 'required when EMBEDDER=openai'),
      apiKey: e.EMBEDDER_API_KEY,
    };
  }
  if (e.CHUNK_OVERLAP_CHARS >= e.CHUNK_TARGET_CHARS) fail('CHUNK_OVERLAP_CHARS', 'must be smaller than CHUNK_TARGET_CHARS');
  if (e.CHUNK_MAX_CHARS < e.CHUNK_TARGET_CHARS) fail('CHUNK_MAX_CHARS', 'must be at least CHUNK_TARGET_CHARS');
  const oauthVerifier: Config['oauth']['verifier'] =
    e.OAUTH_TOKEN_VERIFIER === 'jwks'
      ? {
          kind: 'jwks',
          jwksUrl: e.OAUTH_JWKS_URL ?? fail('OAUTH_JWKS_URL', 'required when OAUTH_TOKEN_VERIFIER=jwks'),
          issuer: e.OAUTH_ISSUER ?? fail('OAUTH_ISSUER', 'required when OAUTH_TOKEN_VERIFIER=jwks'),
        }
      : { kind: 'local' };
  const engines: Config['translation']['engines'] =
    e.TRANSLATION_ENGINES === undefined
      ? 'auto'
      : e.TRANSLATION_ENGINES === 'none'
        ? []
        : [...new Set(e.TRANSLATION_ENGINES.split(',').map((name) => name.trim() as TranslationEngineName))];
  const wants = (name: TranslationEngineName) => engines !== 'auto' && engines.includes(name);
  const translation: Config['translation'] = {
    engines,
    apertium: {
      binary: e.APERTIUM_BINARY,
      timeoutMs: e.APERTIUM_TIMEOUT_MS,
      concurrency: e.APERTIUM_CONCURRENCY,
      dataDir: e.APERTIUM_DATADIR,
      routes: apertiumRoutes(e.APERTIUM_ROUTES) as Record<string, 'direct' | PivotLanguage>,
    },
    freedictDir: e.FREEDICT_DIR,
    catalogueDictionaryDir: e.CATALOGUE_DICTIONARY_DIR,
    libreTranslate: wants('libretranslate')
      ? { url: e.LIBRETRANSLATE_URL ?? fail('LIBRETRANSLATE_URL', 'required when TRANSLATION_ENGINES includes libretranslate'), apiKey: e.LIBRETRANSLATE_API_KEY }
      : undefined,
    deepl: wants('deepl')
      ? { url: e.DEEPL_URL, apiKey: e.DEEPL_API_KEY ?? fail('DEEPL_API_KEY', 'required when TRANSLATION_ENGINES includes deepl') }
      : undefined,
    httpTimeoutMs: e.TRANSLATION_TIMEOUT_MS,
    healthTtlSeconds: e.TRANSLATION_HEALTH_TTL_SECONDS,
  };
  const transcription: AddonsConfig['transcription'] =
    e.TRANSCRIPTION_ENGINE === 'openai'
      ? {
          engine: 'openai',
          url: e.TRANSCRIPTION_URL ?? fail('TRANSCRIPTION_URL', 'required when TRANSCRIPTION_ENGINE=openai'),
          model: e.TRANSCRIPTION_MODEL,
          apiKey: e.TRANSCRIPTION_API_KEY,
          languages: e.TRANSCRIPTION_LANGUAGES
            ? [...new Set(e.TRANSCRIPTION_LANGUAGES.split(',').map((l) => l.trim() as Language))]
            : [...SUPPORTED_LANGUAGES],
        }
      : e.TRANSCRIPTION_ENGINE === 'local'
        ? { engine: 'local', pocketsphinxBinary: e.POCKETSPHINX_BINARY, modelDir: e.POCKETSPHINX_MODEL_DIR }
        : { engine: 'none' };
  const addons: AddonsConfig = {
    enabled: e.SCRIBE_API_ENABLED,
    transcription,
    ffmpegBinary: e.FFMPEG_BINARY,
    ffprobeBinary: e.FFPROBE_BINARY,
    maxAudioSeconds: e.TRANSCRIPTION_MAX_SECONDS,
    transcriptionTimeoutMs: e.TRANSCRIPTION_TIMEOUT_MS,
    report:
      e.REPORT_ENGINE === 'openai'
        ? {
            engine: 'openai',
            url: e.REPORT_URL ?? fail('REPORT_URL', 'required when REPORT_ENGINE=openai'),
            model: e.REPORT_MODEL ?? fail('REPORT_MODEL', 'required when REPORT_ENGINE=openai'),
            apiKey: e.REPORT_API_KEY,
          }
        : { engine: 'builtin' },
    reportTimeoutMs: e.REPORT_TIMEOUT_MS,
    maxTranscriptChars: e.REPORT_MAX_CHARS,
    resultTtlHours: e.ADDON_RESULT_TTL_HOURS,
    callbacks: {
      allowedNetworks: (e.CALLBACK_ALLOWED_NETWORKS ?? '').split(',').map((v) => v.trim()).filter(Boolean),
      timeoutMs: e.CALLBACK_TIMEOUT_MS,
      retrySchedule: e.CALLBACK_RETRY_SCHEDULE?.split(',').map((v) => Number(v.trim())),
    },
  };
  const database: Config['database'] = e.DATABASE_URL
    ? { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE }
    : { kind: 'embedded', sharedBuffers: e.PGLITE_SHARED_BUFFERS };
  const vectorIndex = e.VECTOR_INDEX ?? (database.kind === 'embedded' ? 'flat' : 'pgvector');
  // The in-memory keyword search lives in the flat vector index's segments.
  const keywordIndex = e.KEYWORD_INDEX ?? (vectorIndex === 'flat' ? 'flat' : 'postgres');
  if (keywordIndex === 'flat' && vectorIndex !== 'flat') fail('KEYWORD_INDEX', 'flat needs VECTOR_INDEX=flat');
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    database,
    adminToken: e.ADMIN_TOKEN,
    apiKeyPrefix: e.API_KEY_PREFIX,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    metricsEnabled: e.METRICS_ENABLED,
    metricsToken: e.METRICS_TOKEN,
    migrateOnStart: e.MIGRATE_ON_START ?? database.kind === 'embedded',
    embedder,
    embedderBatchSize: e.EMBEDDER_BATCH_SIZE,
    embedderTimeoutMs: e.EMBEDDER_TIMEOUT_MS,
    chunking: { targetChars: e.CHUNK_TARGET_CHARS, overlapChars: e.CHUNK_OVERLAP_CHARS, maxChars: e.CHUNK_MAX_CHARS },
    pdfParseTimeoutMs: e.PDF_PARSE_TIMEOUT_MS,
    pdfWorkers: e.PDF_WORKERS,
    languageDetectionDataset: e.LANGUAGE_DETECTION_DATASET,
    jobs: {
      enabled: e.JOBS_ENABLED,
      concurrency: e.JOB_CONCURRENCY,
      maxAttempts: e.JOB_MAX_ATTEMPTS,
      leaseSeconds: e.JOB_LEASE_SECONDS,
      retryBaseSeconds: e.JOB_RETRY_BASE_SECONDS,
    },
    vectorIndex: {
      kind: vectorIndex,
      exactScanThreshold: e.VECTOR_EXACT_SCAN_THRESHOLD,
      efSearch: e.HNSW_EF_SEARCH,
      searchThreads: e.VECTOR_SEARCH_THREADS,
      graphMinMb: e.VECTOR_GRAPH_MIN_MB,
      graphEfSearch: e.VECTOR_GRAPH_EF_SEARCH,
      graphEfConstruction: e.VECTOR_GRAPH_EF_CONSTRUCTION,
      snapshotDir:
        e.VECTOR_SNAPSHOT_DIR === 'off'
          ? undefined
          : e.VECTOR_SNAPSHOT_DIR
            ? path.resolve(e.VECTOR_SNAPSHOT_DIR)
            : database.kind === 'embedded'
              ? path.resolve(e.DATA_DIR, 'vector-index')
              : undefined,
      snapshotIntervalSeconds: e.VECTOR_SNAPSHOT_INTERVAL_SECONDS,
      ...(vectorIndex === 'qdrant'
        ? {
            qdrant: {
              url: e.QDRANT_URL ?? fail('QDRANT_URL', 'required when VECTOR_INDEX=qdrant'),
              apiKey: e.QDRANT_API_KEY,
              prefix: e.QDRANT_COLLECTION_PREFIX,
              m: e.QDRANT_HNSW_M,
              efConstruct: e.QDRANT_HNSW_EF_CONSTRUCT,
              quantization: e.QDRANT_QUANTIZATION,
            },
          }
        : {}),
    },
    keywordIndex,
    wordLists:
      e.WORD_LISTS === 'auto'
        ? DEFAULT_WORD_LISTS
        : e.WORD_LISTS === 'none'
          ? {}
          : Object.fromEntries(e.WORD_LISTS.split(',').map((pair) => pair.split('=') as ['de' | 'nl', string])),
    queryConcurrency: e.QUERY_CONCURRENCY ?? (database.kind === 'postgres' ? database.poolSize : EMBEDDED_QUERY_CONCURRENCY),
    billingEnabled: e.BILLING_ENABLED,
    dpaCurrentVersion: e.DPA_CURRENT_VERSION,
    trustedProxies: (e.TRUSTED_PROXIES ?? '').split(',').map((v) => v.trim()).filter(Boolean),
    rateLimitStore: e.RATE_LIMIT_STORE ?? (database.kind === 'postgres' ? 'postgres' : 'memory'),
    oauth: {
      authUrl: (e.AUTH_URL ?? e.PUBLIC_BASE_URL)?.replace(/\/+$/, ''),
      mcpUrl: (e.MCP_URL ?? e.PUBLIC_BASE_URL)?.replace(/\/+$/, ''),
      signingKeyFile: e.OAUTH_SIGNING_KEY_FILE ? path.resolve(e.OAUTH_SIGNING_KEY_FILE) : undefined,
      verifier: oauthVerifier,
    },
    translation,
    addons,
    workflowEngine:
      e.WORKFLOW_ENGINE === 'temporal'
        ? database.kind !== 'postgres'
          ? fail('WORKFLOW_ENGINE', 'temporal needs DATABASE_URL: the workers and the API share one PostgreSQL database')
          : {
            kind: 'temporal',
            address: e.TEMPORAL_ADDRESS ?? fail('TEMPORAL_ADDRESS', 'required when WORKFLOW_ENGINE=temporal'),
            namespace: e.TEMPORAL_NAMESPACE,
            taskQueue: e.TEMPORAL_TASK_QUEUE,
            apiKey: e.TEMPORAL_API_KEY,
            // Temporal Cloud's API keys go over TLS.
            tls: e.TEMPORAL_TLS ?? e.TEMPORAL_API_KEY !== undefined,
          }
        : { kind: 'embedded' },
    portal: {
      mail: e.SMTP_URL
        ? { kind: 'smtp', url: e.SMTP_URL, from: e.MAIL_FROM }
        : { kind: 'folder', dir: path.resolve(e.MAIL_DIR ?? path.join(e.DATA_DIR, 'mail')), from: e.MAIL_FROM },
      sessionIdleMinutes: e.PORTAL_SESSION_IDLE_MINUTES,
      sessionMaxHours: e.PORTAL_SESSION_MAX_HOURS,
      secureCookies: !isPlainHttpElsewhere(e.PUBLIC_BASE_URL),
      secretScanning: {
        keysUrl: e.SECRET_SCANNING_KEYS_URL,
        keysFile: e.SECRET_SCANNING_KEYS_FILE ? path.resolve(e.SECRET_SCANNING_KEYS_FILE) : undefined,
      },
    },
    operator: {
      port: e.OPERATOR_PORT,
      watchNamespaces: (e.OPERATOR_WATCH_NAMESPACES ?? '').split(',').map((v) => v.trim()).filter(Boolean),
      lease: { name: e.OPERATOR_LEASE_NAME, namespace: e.OPERATOR_LEASE_NAMESPACE ?? e.POD_NAMESPACE ?? 'default' },
      identity: e.POD_NAME ?? `${hostname()}-${process.pid}`,
      resyncSeconds: e.OPERATOR_RESYNC_SECONDS,
      concurrency: e.OPERATOR_CONCURRENCY,
      keycloak: e.KEYCLOAK_URL
        ? {
            url: e.KEYCLOAK_URL.replace(/\/+$/, ''),
            realm: e.KEYCLOAK_REALM ?? fail('KEYCLOAK_REALM', 'required with KEYCLOAK_URL'),
            adminClientId: e.KEYCLOAK_ADMIN_CLIENT_ID ?? fail('KEYCLOAK_ADMIN_CLIENT_ID', 'required with KEYCLOAK_URL'),
            adminClientSecret: e.KEYCLOAK_ADMIN_CLIENT_SECRET ?? fail('KEYCLOAK_ADMIN_CLIENT_SECRET', 'required with KEYCLOAK_URL'),
          }
        : undefined,
    },
  };
}

/** Browsers keep Secure cookies over plain http only on loopback hosts. */
/** APERTIUM_ROUTES as routes by pairKey (`es-fr:direct,en-fr:es`), or what is wrong with it. */
function apertiumRoutes(value: string | undefined): Record<string, 'direct' | PivotLanguage> | string {
  const routes: Record<string, 'direct' | PivotLanguage> = {};
  for (const item of (value ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const [, source, target, route] = /^([a-z]{2})-([a-z]{2}):([a-z]+)$/.exec(item) ?? [];
    const language = (code: string | undefined) => (SUPPORTED_LANGUAGES as readonly string[]).includes(code ?? '');
    const pivot = (PIVOT_LANGUAGES as readonly string[]).includes(route ?? '') && route !== source && route !== target;
    if (!language(source) || !language(target) || source === target || (route !== 'direct' && !pivot)) {
      return `${item}: expected <source>-<target>:<route>, two of ${SUPPORTED_LANGUAGES.join(', ')} and the route \`direct\` or a pivot among ${PIVOT_LANGUAGES.join(', ')} (es-fr:direct,en-fr:es)`;
    }
    routes[`${source}-${target}`] = route as 'direct' | PivotLanguage;
  }
  return routes;
}

function isPlainHttpElsewhere(publicBaseUrl: string | undefined): boolean {
  if (!publicBaseUrl) return false;
  const url = new URL(publicBaseUrl);
  return url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}
