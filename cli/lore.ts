import { parseArgs } from 'node:util';
import { ConfigError, type Config, loadConfig } from '../core/config.js';
import { migrate } from '../core/db/migrator.js';
import { openDatabase } from '../core/db/open.js';
import type { Database } from '../core/db/database.js';
import { AppError } from '../core/errors.js';
import { readAdminToken, runningServer } from '../core/instance/data-dir.js';
import { presentCreatedKey } from '../core/keys/api-key.presenter.js';
import { tenantScope } from '../core/shared/scope.js';
import { presentInvitation, presentTenant } from '../core/tenants/tenant.presenter.js';
import pino from 'pino';
import { createRuntime } from '../runtime/runtime.js';
import { createEmbedder, createVectorIndex } from '../runtime/adapters.js';
import { WordListDecompounder } from '../core/adapters/wordlist.decompounder.js';
import { rebuildKeywordIndex } from '../core/search/keyword-rebuild.js';
import { createTenantSchema, updateTenantSchema } from '../core/tenants/tenant.schema.js';
import { type CorpusAdmin, directCorpusAdmin, httpCorpusAdmin, runCorpusCommand } from './corpus.command.js';
import { type OAuthClientAdmin, directOAuthClientAdmin, httpOAuthClientAdmin, runOAuthClientCommand } from './oauth-client.command.js';
import { parseInput } from '../core/shared/input.js';

const USAGE = `Usage: npm run cli -- <command>

  tenant create --name NAME --plan free|payg|standard|enterprise [--email EMAIL]
  tenant list                    every tenant (id, name, plan, status, …), oldest first
  tenant get ID
  tenant update ID [--name N] [--plan P] [--status active|suspended] [--addons a,b] [--anonymize true|false]
  tenant issue-key ID            a new admin key for a tenant that lost access

  oauth-client create --tenant ID --name NAME --scopes mcp:read|mcp:write|mcp:admin[,…] [--sub-tenant ID]
                                 an OAuth client for the MCP endpoint (docs/mcp-oauth.md); its
                                 client_secret is shown only in this answer
  oauth-client list TENANT_ID    the tenant's active OAuth clients (never their secrets)
  oauth-client revoke CLIENT_ID  the client, and every token it holds, stop working at once
  oauth-client initial-access-token --tenant ID [--sub-tenant ID] [--scopes a,b] [--expires-in SECONDS]
                                 a single-use token with which an application registers itself at
                                 /oauth/register (RFC 7591)

  corpus create --slug SLUG --name NAME --plans free,payg,standard,enterprise
                [--license TEXT] [--requires-dua true|false] [--dimensions N]
  corpus list
  corpus get SLUG
  corpus update SLUG [--name N] [--license TEXT] [--requires-dua true|false] [--plans a,b]
  corpus delete SLUG             the corpus, its records, chunks, jobs and DUA acceptances
  corpus ingest SLUG PATH        PATH: a folder (every .txt, .text, .md, .markdown, .html or .htm
                                 file below it is a record, Markdown and HTML as their text; its
                                 relative path the source_record_id) or a JSONL file of
                                 {source_record_id, content, metadata?}; waits until indexed
  corpus jobs SLUG

  vector-index reconcile         VECTOR_INDEX=qdrant: compare the collections with the chunk tables
                                 and repair every difference (after an outage or a restore)
  keyword-index rebuild          re-analyse every stored chunk's keyword index as ingestion does
                                 today (after an upgrade that improved it: docs/operations.md);
                                 prints progress to stderr; running it again rewrites nothing

Prints JSON. An error prints its code and message, and each field the API found at fault, on
stderr, and exits with status 1. With the embedded database and a Lore server running on the same DATA_DIR, the CLI
goes through that server's internal admin API (PGlite admits one process per data directory);
otherwise it opens the database itself.`;

/** The operations the CLI offers, implemented over HTTP or directly over the service layer. */
interface TenantAdmin {
  create(body: unknown): Promise<unknown>;
  list(): Promise<unknown>;
  get(id: string): Promise<unknown>;
  update(id: string, body: unknown): Promise<unknown>;
  issueKey(id: string): Promise<unknown>;
  oauthClients: OAuthClientAdmin;
  corpora: CorpusAdmin;
  close(): Promise<void>;
}

async function httpAdmin(baseUrl: string, token: string): Promise<TenantAdmin> {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}/internal/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (res.status === 204 ? {} : await res.json()) as { error?: string; message?: string };
    if (!res.ok) throw new AppError(res.status, json.error ?? 'error', json.message ?? res.statusText, json);
    return json;
  };
  return Promise.resolve({
    create: (body) => call('POST', '/tenants', body),
    list: () => call('GET', '/tenants'),
    get: (id) => call('GET', `/tenants/${id}`),
    update: (id, body) => call('PATCH', `/tenants/${id}`, body),
    issueKey: (id) => call('POST', `/tenants/${id}/api-keys`, {}),
    oauthClients: httpOAuthClientAdmin(call),
    corpora: httpCorpusAdmin(call),
    close: () => Promise.resolve(),
  });
}

async function directAdmin(config: Config): Promise<TenantAdmin> {
  const db = await openDatabase(config);
  if (config.migrateOnStart) await migrate(db);
  const runtime = await createRuntime(db, config, pino({ level: 'silent' }));
  const { tenants } = runtime.services;
  // The admin API's schemas, read as it reads them: a failure names the fields as its 422 does.
  return {
    create: async (body) => {
      const { tenant, apiKey, invitation } = await tenants.create(parseInput(createTenantSchema, body, 'body'));
      return { id: tenant.id, api_key: apiKey, portal_invitation: presentInvitation(invitation) };
    },
    list: async () => ({ tenants: (await tenants.list()).map(presentTenant) }),
    get: async (id) => presentTenant(await tenants.get(tenantScope(id))),
    update: async (id, body) => presentTenant(await tenants.update(tenantScope(id), parseInput(updateTenantSchema, body, 'body'))),
    issueKey: async (id) => presentCreatedKey(await tenants.issueAdminKey(tenantScope(id))),
    oauthClients: directOAuthClientAdmin(runtime),
    corpora: directCorpusAdmin(runtime),
    close: async () => {
      await runtime.close();
      await db.close();
    },
  };
}

async function connect(config: Config): Promise<TenantAdmin> {
  if (config.database.kind === 'embedded') {
    const server = await runningServer(config.dataDir);
    if (server) {
      const token = config.adminToken ?? (await readAdminToken(config.dataDir));
      if (!token) throw new Error(`No admin token: set ADMIN_TOKEN or keep ${config.dataDir}/admin-token.`);
      return httpAdmin(`http://127.0.0.1:${server.port}`, token);
    }
  }
  return directAdmin(config);
}

function tenantUpdateBody(values: Partial<Record<'name' | 'email' | 'plan' | 'status' | 'addons' | 'anonymize', string>>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (values.name) body.name = values.name;
  if (values.email) body.email = values.email;
  if (values.plan) body.plan = values.plan;
  if (values.status) body.status = values.status;
  if (values.addons !== undefined) body.addons = values.addons.split(',').filter(Boolean);
  if (values.anonymize !== undefined) body.anonymize_default = values.anonymize === 'true';
  return body;
}

/** Opens the database for maintenance the CLI does itself; with the embedded database, only while no server uses it. */
async function openForMaintenance(config: Config): Promise<Database> {
  if (config.database.kind === 'embedded' && (await runningServer(config.dataDir))) {
    throw new Error(`A Lore server is using ${config.dataDir}; stop it first (PGlite admits one process per data directory).`);
  }
  return openDatabase(config);
}

/** Repairs an external vector index (Qdrant) from the chunk tables, opening the database itself. */
async function reconcileVectorIndex(config: Config): Promise<unknown> {
  const db = await openForMaintenance(config);
  try {
    if (config.migrateOnStart) await migrate(db);
    const index = createVectorIndex(db, config, createEmbedder(config), pino({ level: 'warn' }));
    if (!index.reconcile) return { vector_index: index.kind, reconciled: false, reason: 'this index reads the chunk tables itself; there is nothing to repair' };
    return { vector_index: index.kind, ...(await index.reconcile()) };
  } finally {
    await db.close();
  }
}

/** Re-analyses every stored chunk's keyword index (rebuildKeywordIndex), opening the database itself. */
async function rebuildKeywords(config: Config): Promise<unknown> {
  const db = await openForMaintenance(config);
  try {
    if (config.migrateOnStart) await migrate(db);
    const started = Date.now();
    let reported = 0;
    const report = await rebuildKeywordIndex(db, new WordListDecompounder(config.wordLists), {
      onBatch: (table, read, rewritten) => {
        if (Date.now() - reported < 5_000) return;
        reported = Date.now();
        console.error(`${table}: ${read} read, ${rewritten} rewritten`);
      },
    });
    return { ...report, seconds: Math.round((Date.now() - started) / 100) / 10 };
  } finally {
    await db.close();
  }
}

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      email: { type: 'string' },
      status: { type: 'string' },
      addons: { type: 'string' },
      anonymize: { type: 'string' },
      slug: { type: 'string' },
      license: { type: 'string' },
      'requires-dua': { type: 'string' },
      plans: { type: 'string' },
      dimensions: { type: 'string' },
      tenant: { type: 'string' },
      'sub-tenant': { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, command, id] = positionals;
  if (values.help || !['tenant', 'oauth-client', 'corpus', 'vector-index', 'keyword-index'].includes(group ?? '') || !command) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  if (group === 'vector-index') {
    if (command !== 'reconcile') throw new Error(`unknown command: vector-index ${command}\n\n${USAGE}`);
    return reconcileVectorIndex(loadConfig());
  }
  if (group === 'keyword-index') {
    if (command !== 'rebuild') throw new Error(`unknown command: keyword-index ${command}\n\n${USAGE}`);
    return rebuildKeywords(loadConfig());
  }
  const admin = await connect(loadConfig());
  try {
    if (group === 'corpus') return await runCorpusCommand(admin.corpora, command, positionals.slice(2), values);
    if (group === 'oauth-client') return await runOAuthClientCommand(admin.oauthClients, command, positionals.slice(2), values);
    switch (command) {
      case 'create':
        return await admin.create({ name: values.name, plan: values.plan, ...(values.email ? { email: values.email } : {}) });
      case 'list':
        return await admin.list();
      case 'get':
      case 'update':
      case 'issue-key': {
        if (!id) throw new Error(`tenant ${command} needs a tenant id (tenant list shows them)`);
        if (command === 'get') return await admin.get(id);
        if (command === 'update') return await admin.update(id, tenantUpdateBody(values));
        return await admin.issueKey(id);
      }
      default:
        throw new Error(`unknown command: tenant ${command}\n\n${USAGE}`);
    }
  } finally {
    await admin.close();
  }
}

/**
 * An error as the CLI prints it: an API error's code and message, then each field at fault
 * (`body.plan: …`, from a 422's `fields`) and any other detail it carries, one a line.
 */
function describeError(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  if (!(err instanceof AppError)) return err instanceof Error ? err.message : String(err);
  const lines = [`${err.code}: ${err.message}`];
  const { fields, ...details } = err.extra as { fields?: Array<{ field: string; message: string }> } & Record<string, unknown>;
  for (const { field, message } of fields ?? []) lines.push(`  ${field}: ${message}`);
  for (const [name, value] of Object.entries(details)) {
    if (!['error', 'message', 'request_id'].includes(name)) lines.push(`  ${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return lines.join('\n');
}

try {
  console.log(JSON.stringify(await run(process.argv.slice(2)), null, 2));
} catch (err) {
  console.error(describeError(err));
  process.exit(1);
}
