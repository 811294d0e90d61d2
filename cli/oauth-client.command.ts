import { createInitialAccessTokenSchema, createOAuthClientSchema } from '../core/oauth/oauth.schema.js';
import { parseInput } from '../core/shared/input.js';
import { tenantScope } from '../core/shared/scope.js';
import type { Runtime } from '../runtime/runtime.js';

/** `lore oauth-client …`: support's side of OAuth for the MCP endpoint (docs/mcp-oauth.md), over HTTP or directly. */
export interface OAuthClientAdmin {
  create(body: unknown): Promise<unknown>;
  list(tenantId: string): Promise<unknown>;
  revoke(clientId: string): Promise<void>;
  issueInitialAccessToken(body: unknown): Promise<unknown>;
}

type Call = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Through a running server's internal admin API. */
export function httpOAuthClientAdmin(call: Call): OAuthClientAdmin {
  return {
    create: (body) => call('POST', '/oauth-clients', body),
    list: (tenantId) => call('GET', `/tenants/${encodeURIComponent(tenantId)}/oauth-clients`),
    revoke: async (clientId) => {
      await call('DELETE', `/oauth-clients/${encodeURIComponent(clientId)}`);
    },
    issueInitialAccessToken: (body) => call('POST', '/oauth-initial-access-tokens', body),
  };
}

/** On the database itself, through the same service and schemas as the admin API. */
export function directOAuthClientAdmin(runtime: Pick<Runtime, 'services'>): OAuthClientAdmin {
  const { oauthClients } = runtime.services;
  return {
    create: (body) => oauthClients.register(parseInput(createOAuthClientSchema, body, 'body')),
    list: (tenantId) => oauthClients.list(tenantScope(tenantId)),
    revoke: (clientId) => oauthClients.revoke(clientId),
    issueInitialAccessToken: (body) => oauthClients.issueInitialAccessToken(parseInput(createInitialAccessTokenSchema, body, 'body')),
  };
}

export type OAuthClientOptions = Partial<Record<'tenant' | 'sub-tenant' | 'name' | 'scopes' | 'expires-in', string>>;

/** The body the admin API takes, from the command's options (each only when given). */
function ownerBody(values: OAuthClientOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (values.tenant !== undefined) body.tenant_id = values.tenant;
  if (values['sub-tenant'] !== undefined) body.sub_tenant_id = values['sub-tenant'];
  if (values.name !== undefined) body.name = values.name;
  if (values.scopes !== undefined) body.scopes = values.scopes.split(',').filter(Boolean);
  if (values['expires-in'] !== undefined) body.expires_in = Number(values['expires-in']);
  return body;
}

/** Runs `oauth-client <command> [args]`. */
export async function runOAuthClientCommand(admin: OAuthClientAdmin, command: string, args: string[], values: OAuthClientOptions): Promise<unknown> {
  const [id] = args;
  switch (command) {
    case 'create':
      return admin.create(ownerBody(values));
    case 'initial-access-token':
      return admin.issueInitialAccessToken(ownerBody(values));
    case 'list':
      if (!id) throw new Error('oauth-client list needs a tenant id (npm run cli -- tenant list shows them)');
      return admin.list(id);
    case 'revoke':
      if (!id) throw new Error('oauth-client revoke needs a client id (oauth-client list TENANT_ID shows them)');
      await admin.revoke(id);
      return { revoked: id };
    default:
      throw new Error(`unknown command: oauth-client ${command}`);
  }
}
