import { z } from 'zod';
import { envSchema } from './config.js';

/**
 * What each environment variable means, for docs/configuration.md. The type names every variable of
 * `envSchema`, so a variable added there without a line here does not compile; defaults and
 * accepted values are read from the schema itself, and a test fails when the committed page differs
 * from `configurationReference()` (`npm run docs:config` rewrites it).
 */
type Variable = keyof z.input<typeof envSchema>;

interface VariableDoc {
  group: Group;
  meaning: string;
  /** Where the default depends on other settings, what it is (else the schema's default is shown). */
  default?: string;
}

const GROUPS = [
  'Server',
  'Database',
  'Embedding, chunking and documents',
  'Jobs',
  'Search indexes',
  'Plans, billing and limits',
  'OAuth and MCP',
  'Translation',
  'Transcription and report add-ons',
  'Portal and e-mail',
  'Kubernetes operator',
] as const;
type Group = (typeof GROUPS)[number];

const VARIABLES: Record<Variable, VariableDoc> = {
  PORT: { group: 'Server', meaning: 'HTTP port.' },
  HOST: { group: 'Server', meaning: 'Listen address.' },
  PUBLIC_BASE_URL: { group: 'Server', meaning: 'Public base URL, listed as the server in the OpenAPI document and used in links Lore hands out (export downloads, the portal\'s e-mails; set it in production).' },
  LOG_LEVEL: { group: 'Server', meaning: 'pino log level.' },
  METRICS_ENABLED: { group: 'Server', meaning: 'Serve Prometheus metrics at `/metrics`.' },
  METRICS_TOKEN: { group: 'Server', meaning: 'When set (at least 24 characters), `/metrics` requires `Authorization: Bearer <token>`.' },
  ADMIN_TOKEN: {
    group: 'Server',
    meaning: 'Bearer token of the internal admin API (at least 24 characters). Embedded: generated on first start into `DATA_DIR/admin-token`. With `DATABASE_URL` and no token, the internal API is disabled.',
    default: 'generated (embedded)',
  },
  API_KEY_PREFIX: { group: 'Server', meaning: 'The `<prefix>` of API keys (`lore_…`).' },
  TRUSTED_PROXIES: {
    group: 'Server',
    meaning: 'Comma-separated IPs/CIDRs (or `loopback`, `linklocal`, `uniquelocal`) whose `X-Forwarded-For` is believed for per-IP limits.',
  },
  DATA_DIR: { group: 'Database', meaning: 'The embedded database (`pgdata/`), the generated admin token and the server record.' },
  PGLITE_SHARED_BUFFERS: {
    group: 'Database',
    meaning: "The embedded database's buffer cache, held in memory from the start (`1GB` adds ~0.9 GB RSS; `2GB` does not start: WebAssembly memory ends at 4 GB).",
  },
  DATABASE_URL: { group: 'Database', meaning: '`postgres://…`: use that PostgreSQL server through a `pg` pool instead of the embedded PGlite.' },
  DATABASE_POOL_SIZE: { group: 'Database', meaning: 'Connections in the `pg` pool.' },
  MIGRATE_ON_START: {
    group: 'Database',
    meaning: 'Apply pending migrations at start-up. Servers are migrated with `npm run migrate` before new pods start.',
    default: '`true` embedded, `false` with `DATABASE_URL`',
  },
  EMBEDDER: {
    group: 'Embedding, chunking and documents',
    meaning: '`lexical`: built in, no download; `onnx`: a local transformers.js/ONNX model directory; `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (TEI, Ollama, vLLM, hosted APIs).',
  },
  EMBEDDER_MODEL_DIR: { group: 'Embedding, chunking and documents', meaning: '`onnx`: the model directory (`config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`); loaded offline.' },
  EMBEDDER_URL: { group: 'Embedding, chunking and documents', meaning: '`openai`: the base URL.' },
  EMBEDDER_MODEL: { group: 'Embedding, chunking and documents', meaning: '`openai`: the model name.' },
  EMBEDDER_API_KEY: { group: 'Embedding, chunking and documents', meaning: '`openai`: an optional bearer key.' },
  EMBEDDER_BATCH_SIZE: { group: 'Embedding, chunking and documents', meaning: '`openai`: texts per request.' },
  EMBEDDER_TIMEOUT_MS: { group: 'Embedding, chunking and documents', meaning: '`openai`: time limit per request (3 retries with backoff on 429 and 5xx).' },
  CHUNK_TARGET_CHARS: { group: 'Embedding, chunking and documents', meaning: 'The size chunking aims for.' },
  CHUNK_OVERLAP_CHARS: { group: 'Embedding, chunking and documents', meaning: 'Characters a chunk repeats from the one before.' },
  CHUNK_MAX_CHARS: { group: 'Embedding, chunking and documents', meaning: 'The largest chunk.' },
  PDF_PARSE_TIMEOUT_MS: { group: 'Embedding, chunking and documents', meaning: "Time limit of one PDF's text extraction (then `422 parse_timeout`)." },
  PDF_WORKERS: { group: 'Embedding, chunking and documents', meaning: 'PDF text-extraction worker threads.' },
  LANGUAGE_DETECTION_DATASET: {
    group: 'Embedding, chunking and documents',
    meaning: 'Language-identification data: `large` (~130 MB of memory, the best accuracy on short texts), `medium` or `small`.',
  },
  JOBS_ENABLED: { group: 'Jobs', meaning: 'Run the job workers in this process.' },
  JOB_CONCURRENCY: { group: 'Jobs', meaning: 'Jobs run at once.' },
  JOB_MAX_ATTEMPTS: { group: 'Jobs', meaning: 'Attempts before a job fails for good.' },
  JOB_LEASE_SECONDS: { group: 'Jobs', meaning: "Length of a job's lease; a running attempt renews it every third of this, and the jobs of a worker that stops renewing (a dead process) go to another once it lapses." },
  JOB_RETRY_BASE_SECONDS: { group: 'Jobs', meaning: 'First retry delay, doubling, at most 5 minutes.' },
  VECTOR_INDEX: {
    group: 'Search indexes',
    meaning: '`flat`: vectors in this process\'s memory (int8), searched exactly; `pgvector`: HNSW indexes in the database, shared by API replicas; `qdrant`: a Qdrant server (`QDRANT_URL`), a collection per tenant and dimension count.',
    default: '`flat` embedded, `pgvector` with `DATABASE_URL`',
  },
  QUERY_CONCURRENCY: {
    group: 'Search indexes',
    meaning:
      'Queries (REST and MCP) one process answers at once; the rest wait their turn in order, so health checks and other requests are not queued behind them.',
    default: '4 embedded; `DATABASE_POOL_SIZE` with PostgreSQL',
  },
  KEYWORD_INDEX: {
    group: 'Search indexes',
    meaning: "`flat`: keyword ranking in memory over the flat index's copy of each chunk's lexemes (needs `VECTOR_INDEX=flat`); `postgres`: in the database, through a GIN index.",
    default: '`flat` with `VECTOR_INDEX=flat`, else `postgres`',
  },
  WORD_LISTS: {
    group: 'Search indexes',
    meaning:
      'Word lists keyword search splits German and Dutch compounds with (a chunk holding "Druckerwarteschlange" is found by "Warteschlange"): `auto` reads Debian\'s `wngerman` and `wdutch` lists where installed, `none` splits nothing, or `de=/path,nl=/path`.',
    default: '`auto`',
  },
  VECTOR_SEARCH_THREADS: { group: 'Search indexes', meaning: '`flat`: threads a scan may use (`0`: every core but one).' },
  VECTOR_EXACT_SCAN_THRESHOLD: { group: 'Search indexes', meaning: '`pgvector`: searches over at most this many chunks scan exactly instead of walking the HNSW graph.' },
  VECTOR_GRAPH_MIN_MB: {
    group: 'Search indexes',
    meaning: '`flat`: knowledge bases and corpora holding at least this many MiB of dense vectors (a neural embedder\'s; 1 byte a dimension: 160 MiB is ~218,000 chunks of 768 dimensions) are searched through an HNSW graph instead of an exact scan (`0`: never).',
  },
  VECTOR_GRAPH_EF_SEARCH: {
    group: 'Search indexes',
    meaning: "`flat`: the graphs' HNSW candidate list (accuracy against speed; see [performance](performance.md)).",
  },
  VECTOR_GRAPH_EF_CONSTRUCTION: {
    group: 'Search indexes',
    meaning:
      "`flat`: the candidates kept while a graph is built (HNSW efConstruction): a larger value builds a graph that finds more of the exact top 10 at the same search cost, and takes longer to build (see [performance](performance.md#one-million-vectors-a-better-graph-or-a-longer-search)).",
  },
  VECTOR_SNAPSHOT_DIR: {
    group: 'Search indexes',
    meaning: "`flat`: where snapshots of the in-memory index are kept, so a restart reads them back (checked, then brought up to date from the tables) instead of rebuilding from the tables; `off`: none.",
    default: '`$DATA_DIR/vector-index` in the embedded topology, else none',
  },
  VECTOR_SNAPSHOT_INTERVAL_SECONDS: {
    group: 'Search indexes',
    meaning: '`flat`: how often a snapshot is taken while the index changes (`0`: only at shutdown). A crash loses nothing: what changed since the last snapshot is read from the tables at the next start.',
  },
  HNSW_EF_SEARCH: { group: 'Search indexes', meaning: "`pgvector` and `qdrant`: the HNSW candidate list (accuracy against speed; see [performance](performance.md))." },
  QDRANT_URL: { group: 'Search indexes', meaning: '`qdrant`: the Qdrant server\'s REST URL, e.g. `http://qdrant:6333`.' },
  QDRANT_API_KEY: { group: 'Search indexes', meaning: '`qdrant`: its API key, if it requires one.' },
  QDRANT_COLLECTION_PREFIX: { group: 'Search indexes', meaning: '`qdrant`: the start of every collection name Lore uses (several instances can share a server).' },
  QDRANT_HNSW_M: { group: 'Search indexes', meaning: '`qdrant`: the HNSW graph degree of new collections.' },
  QDRANT_HNSW_EF_CONSTRUCT: { group: 'Search indexes', meaning: '`qdrant`: the HNSW build breadth of new collections.' },
  QDRANT_QUANTIZATION: { group: 'Search indexes', meaning: '`qdrant`: `scalar` keeps int8 copies of new collections\' vectors in memory (originals on disk, top hits rescored); `none` keeps float32.' },
  BILLING_ENABLED: { group: 'Plans, billing and limits', meaning: '`false`: plan-change endpoints answer `503 billing_not_available`.' },
  DPA_CURRENT_VERSION: { group: 'Plans, billing and limits', meaning: 'The data-processing agreement version tenants must accept.' },
  RATE_LIMIT_STORE: {
    group: 'Plans, billing and limits',
    meaning: 'Where rate-limit counters live; `postgres` shares them between API replicas.',
    default: '`memory` embedded, `postgres` with `DATABASE_URL`',
  },
  AUTH_URL: {
    group: 'OAuth and MCP',
    meaning: 'The OAuth issuer URL (`{auth_url}`), when it differs from the REST base.',
    default: '`PUBLIC_BASE_URL`, else the URL of each request',
  },
  MCP_URL: { group: 'OAuth and MCP', meaning: 'The MCP server URL (`{mcp_url}`).', default: '`PUBLIC_BASE_URL`, else the URL of each request' },
  OAUTH_SIGNING_KEY_FILE: {
    group: 'OAuth and MCP',
    meaning: 'PEM private key that signs access tokens (EC P-256/P-384, RSA, Ed25519).',
    default: 'generated, kept in the database',
  },
  OAUTH_TOKEN_VERIFIER: { group: 'OAuth and MCP', meaning: '`jwks`: MCP accepts tokens of an external issuer (Keycloak) verified through its JWKS.' },
  OAUTH_JWKS_URL: { group: 'OAuth and MCP', meaning: '`jwks`: the issuer\'s JWKS URL.' },
  OAUTH_ISSUER: { group: 'OAuth and MCP', meaning: '`jwks`: the `iss` tokens must carry.' },
  TRANSLATION_ENGINES: {
    group: 'Translation',
    meaning: '`none` (translation off), or a comma-separated list of `apertium`, `libretranslate`, `deepl` (see [translation](translation.md)).',
    default: '`apertium` when the `apertium` program runs, else none',
  },
  APERTIUM_BINARY: { group: 'Translation', meaning: 'The Apertium program.' },
  APERTIUM_TIMEOUT_MS: { group: 'Translation', meaning: 'Time limit of one Apertium run (then its process group is killed).' },
  APERTIUM_CONCURRENCY: { group: 'Translation', meaning: 'Apertium runs at once.' },
  APERTIUM_DATADIR: {
    group: 'Translation',
    meaning: "Apertium's language data (its modes/ directory); the apertium program reads the same variable. Dictionary look-ups read the modes here.",
  },
  APERTIUM_ROUTES: {
    group: 'Translation',
    meaning:
      "How Apertium translates a pair it can translate several ways: a comma-separated list of `<source>-<target>:<route>`, the route `direct` (the pair's own mode) or the language to chain through (`es`, or Catalan, `ca`, with Debian's apertium-*-cat packages). `es-fr:ca,fr-es:ca,en-fr:ca,en-it:ca,fr-it:ca,it-fr:ca` translates those pairs better, and 3–6× slower ([translation](translation.md)). A route whose modes are not installed is passed over.",
    default: "none: a pair's own mode, else the chain through Spanish",
  },
  FREEDICT_DIR: {
    group: 'Translation',
    meaning:
      "Where FreeDict's bilingual dictionaries are (Debian's dict-freedict-<src>-<tgt> packages): query translation looks words up in them for pairs no engine's dictionary has, and searches with them where no engine translates the pair. Used while any engine is configured.",
  },
  CATALOGUE_DICTIONARY_DIR: {
    group: 'Translation',
    meaning:
      "Where the catalogue dictionaries are: software vocabulary for every pair of the eight languages, built from Debian's gettext catalogues (`scripts/build-catalogue-dictionaries.ts`). Query translation adds their translations of a query's words to the engine's or FreeDict's, and searches with them where nothing else serves the pair (while any engine is configured); keyword search finds a query's words by their synonyms through them, with or without an engine ([API decisions](api.md)); their headwords help tell the language of short texts ([translation](translation.md)). `none`: not used for any of these.",
    default: "the ones Lore ships (`dictionaries/catalogues`)",
  },
  LIBRETRANSLATE_URL: { group: 'Translation', meaning: '`libretranslate`: the server root (required).' },
  LIBRETRANSLATE_API_KEY: { group: 'Translation', meaning: '`libretranslate`: its optional API key.' },
  DEEPL_URL: { group: 'Translation', meaning: '`deepl`: the API root.', default: '`https://api-free.deepl.com` for keys ending `:fx`, else `https://api.deepl.com`' },
  DEEPL_API_KEY: { group: 'Translation', meaning: '`deepl`: the key (required).' },
  TRANSLATION_TIMEOUT_MS: { group: 'Translation', meaning: 'HTTP engines: time limit per attempt (2 retries with backoff on network errors, 429 and 5xx).' },
  TRANSLATION_HEALTH_TTL_SECONDS: { group: 'Translation', meaning: 'How long the probes behind `/v1/translation/health` and `/v1/translation/languages` are reused.' },
  SCRIBE_API_ENABLED: { group: 'Transcription and report add-ons', meaning: '`false`: both add-ons answer `503 scribe_api_not_available` (see [add-ons](addons.md)).' },
  TRANSCRIPTION_ENGINE: { group: 'Transcription and report add-ons', meaning: '`local`: PocketSphinx (English); `openai`: an OpenAI-compatible transcription server; `none`.' },
  TRANSCRIPTION_URL: { group: 'Transcription and report add-ons', meaning: '`openai`: the server root (required).' },
  TRANSCRIPTION_MODEL: { group: 'Transcription and report add-ons', meaning: '`openai`: the model name.' },
  TRANSCRIPTION_API_KEY: { group: 'Transcription and report add-ons', meaning: '`openai`: an optional bearer key.' },
  TRANSCRIPTION_LANGUAGES: { group: 'Transcription and report add-ons', meaning: '`openai`: the languages the server serves, comma-separated.', default: 'all eight' },
  TRANSCRIPTION_MAX_SECONDS: { group: 'Transcription and report add-ons', meaning: 'Longest audio accepted (`400 audio_too_long`).' },
  TRANSCRIPTION_TIMEOUT_MS: { group: 'Transcription and report add-ons', meaning: 'Time limit per 30-second segment.' },
  POCKETSPHINX_BINARY: { group: 'Transcription and report add-ons', meaning: '`local`: the PocketSphinx program.' },
  POCKETSPHINX_MODEL_DIR: { group: 'Transcription and report add-ons', meaning: '`local`: the acoustic model directory.' },
  FFMPEG_BINARY: { group: 'Transcription and report add-ons', meaning: 'ffmpeg, which decodes audio.' },
  FFPROBE_BINARY: { group: 'Transcription and report add-ons', meaning: 'ffprobe, which measures audio before it is queued.' },
  REPORT_ENGINE: { group: 'Transcription and report add-ons', meaning: '`builtin`: the extractive engine in process; `openai`: an OpenAI-compatible chat model.' },
  REPORT_URL: { group: 'Transcription and report add-ons', meaning: '`openai`: the server root (required).' },
  REPORT_MODEL: { group: 'Transcription and report add-ons', meaning: '`openai`: the model name (required).' },
  REPORT_API_KEY: { group: 'Transcription and report add-ons', meaning: '`openai`: an optional bearer key.' },
  REPORT_TIMEOUT_MS: { group: 'Transcription and report add-ons', meaning: '`openai`: time limit per request.' },
  REPORT_MAX_CHARS: { group: 'Transcription and report add-ons', meaning: 'Longest transcript accepted (`400 transcript_too_long`).' },
  ADDON_RESULT_TTL_HOURS: { group: 'Transcription and report add-ons', meaning: 'How long add-on results stay at `GET /v1/jobs/{id}/result`.' },
  CALLBACK_ALLOWED_NETWORKS: {
    group: 'Transcription and report add-ons',
    meaning: 'IPs/CIDRs callbacks may reach although private, loopback or plain `http` (otherwise refused).',
  },
  CALLBACK_TIMEOUT_MS: { group: 'Transcription and report add-ons', meaning: 'Time limit of one callback attempt.' },
  CALLBACK_RETRY_SCHEDULE: {
    group: 'Transcription and report add-ons',
    meaning: 'Waits in seconds before each retry of a callback (each ±20 % jitter).',
    default: '`5,300,1800,7200,18000,36000,36000`',
  },
  WORKFLOW_ENGINE: {
    group: 'Jobs',
    meaning: '`embedded`: jobs run in the API process from the jobs table; `temporal`: each job is a Temporal workflow, run by `npm run worker` (see [Temporal](temporal.md)).',
  },
  TEMPORAL_ADDRESS: { group: 'Jobs', meaning: '`temporal`: the frontend\'s `host:port`, e.g. `temporal:7233`.' },
  TEMPORAL_NAMESPACE: { group: 'Jobs', meaning: '`temporal`: the namespace.' },
  TEMPORAL_TASK_QUEUE: { group: 'Jobs', meaning: '`temporal`: the start of the task queues\' names (`<name>-documents`, `<name>-addons`, `<name>-billing`).' },
  TEMPORAL_API_KEY: { group: 'Jobs', meaning: '`temporal`: an API key (Temporal Cloud).' },
  TEMPORAL_TLS: { group: 'Jobs', meaning: '`temporal`: connect over TLS.', default: '`true` with `TEMPORAL_API_KEY`, else `false`' },
  SMTP_URL: {
    group: 'Portal and e-mail',
    meaning: 'SMTP server for the portal\'s e-mails (set-password and reset links, leaked-key notices), e.g. `smtps://user:pass@mail.example.com`.',
    default: 'none: e-mails are written to `MAIL_DIR`',
  },
  MAIL_FROM: { group: 'Portal and e-mail', meaning: 'Sender address of Lore\'s e-mails.' },
  MAIL_DIR: {
    group: 'Portal and e-mail',
    meaning: 'Without `SMTP_URL`: the folder e-mails are written to as `.eml` files, named by time and recipient (the log says when one is written, with the address redacted).',
    default: '`DATA_DIR/mail`',
  },
  PORTAL_SESSION_IDLE_MINUTES: { group: 'Portal and e-mail', meaning: 'A portal session ends after this long without a request.' },
  PORTAL_SESSION_MAX_HOURS: { group: 'Portal and e-mail', meaning: 'A portal session ends this long after sign-in, used or not.' },
  SECRET_SCANNING_KEYS_URL: {
    group: 'Portal and e-mail',
    meaning: 'Where the code host publishes the public keys that sign secret-scanning reports (fetched and cached).',
  },
  SECRET_SCANNING_KEYS_FILE: {
    group: 'Portal and e-mail',
    meaning: 'A JSON file in the same format as `SECRET_SCANNING_KEYS_URL`, used instead of fetching (offline installations).',
  },
  OPERATOR_PORT: { group: 'Kubernetes operator', meaning: 'The operator\'s port for `/metrics`, `/healthz` and `/readyz`.' },
  OPERATOR_WATCH_NAMESPACES: { group: 'Kubernetes operator', meaning: 'Comma-separated namespaces whose Tenants and SubTenants it reconciles.', default: 'all namespaces' },
  OPERATOR_LEASE_NAME: { group: 'Kubernetes operator', meaning: 'The `coordination.k8s.io` Lease replicas elect their leader with.' },
  OPERATOR_LEASE_NAMESPACE: { group: 'Kubernetes operator', meaning: 'The Lease\'s namespace.', default: '`POD_NAMESPACE`, else `default`' },
  OPERATOR_RESYNC_SECONDS: { group: 'Kubernetes operator', meaning: 'How often every resource is reconciled again even without a change (drift repair).' },
  OPERATOR_CONCURRENCY: { group: 'Kubernetes operator', meaning: 'Resources reconciled at once per kind (one object never twice at once).' },
  POD_NAMESPACE: { group: 'Kubernetes operator', meaning: 'The pod\'s namespace (downward API).' },
  POD_NAME: { group: 'Kubernetes operator', meaning: 'The pod\'s name (downward API): the replica\'s identity in leader election.', default: 'host name and process id' },
  KEYCLOAK_URL: { group: 'Kubernetes operator', meaning: 'Keycloak\'s base URL: the operator keeps each tenant\'s MCP client there. Unset: in Lore\'s own authorization server.' },
  KEYCLOAK_REALM: { group: 'Kubernetes operator', meaning: 'With `KEYCLOAK_URL`: the realm of the MCP clients (required).' },
  KEYCLOAK_ADMIN_CLIENT_ID: { group: 'Kubernetes operator', meaning: 'With `KEYCLOAK_URL`: the operator\'s service-account client in that realm (roles `manage-clients`, `view-clients`, `manage-realm` of `realm-management`; required).' },
  KEYCLOAK_ADMIN_CLIENT_SECRET: { group: 'Kubernetes operator', meaning: 'With `KEYCLOAK_URL`: its secret (required).' },
};

type JsonProperty = { type?: string; enum?: unknown[]; minimum?: number; maximum?: number; format?: string };

function accepted(property: JsonProperty | undefined): string {
  if (!property) return '';
  if (property.enum) {
    const values = property.enum.map(String);
    // The boolean spellings: show the two a reader would write.
    if (values.includes('true') && values.includes('yes')) return '`true`, `false`';
    return values.map((v) => `\`${v}\``).join(', ');
  }
  if (property.type === 'integer' || property.type === 'number') {
    const kind = property.type === 'integer' ? 'integer' : 'number';
    if (property.minimum !== undefined && property.maximum !== undefined) return `${kind} ${property.minimum}–${property.maximum}`;
    if (property.minimum !== undefined) return `${kind} ≥ ${property.minimum}`;
    return kind;
  }
  if (property.format === 'uri') return 'URL';
  return 'text';
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** docs/configuration.md, as the schema and the table above say. */
export function configurationReference(): string {
  const defaults = envSchema.parse({}) as Record<string, string | number | boolean | undefined>;
  const properties = (z.toJSONSchema(envSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonProperty> }).properties;
  const lines = [
    '# Configuration',
    '',
    'You want to change how Lore runs: its port, its database, its engines, its limits. Every setting is',
    'an environment variable, read once at start-up by `core/config.ts`; a bad value stops start-up with',
    'one line naming the variable. This page is generated from that schema (`npm run docs:config`), and a',
    'test fails when the two differ.',
  ];
  for (const group of GROUPS) {
    lines.push('', `## ${group}`, '', '| Variable | Default | Accepted | Meaning |', '|---|---|---|---|');
    for (const [name, doc] of Object.entries(VARIABLES) as [Variable, VariableDoc][]) {
      if (doc.group !== group) continue;
      const fallback = defaults[name] === undefined ? 'unset' : `\`${String(defaults[name])}\``;
      lines.push(`| \`${name}\` | ${cell(doc.default ?? fallback)} | ${cell(accepted(properties[name]))} | ${cell(doc.meaning)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
