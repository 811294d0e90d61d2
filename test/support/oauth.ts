import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as oauth from 'oauth4webapi';
import { TEST_ADMIN_TOKEN, type TestApp, client } from './app.js';

export type McpScope = 'mcp:read' | 'mcp:write' | 'mcp:admin';

export interface OAuthClientCredentials {
  client_id: string;
  client_secret: string;
}

/** Registers an OAuth application through the internal admin API, as support does. */
export async function registerOAuthClient(
  app: TestApp,
  tenantId: string,
  scopes: McpScope[],
  options: { subTenantId?: string; name?: string } = {},
): Promise<OAuthClientCredentials> {
  const res = await client(app.url, TEST_ADMIN_TOKEN)('POST', '/internal/v1/oauth-clients', {
    tenant_id: tenantId,
    ...(options.subTenantId ? { sub_tenant_id: options.subTenantId } : {}),
    name: options.name ?? 'Agent',
    scopes,
  });
  if (res.status !== 201) throw new Error(`OAuth client registration failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { client_id: res.body.client_id, client_secret: res.body.client_secret };
}

/**
 * fetch that, like a well-behaved client, waits and retries when the per-address limit of 100
 * requests a second refuses it (suites run fast enough to reach it). Other 429s are returned.
 */
export async function politeFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(input, init);
    if (response.status !== 429 || attempt >= 10) return response;
    if (!(await response.clone().text()).includes('from this address')) return response;
    await new Promise((r) => setTimeout(r, Number(response.headers.get('retry-after') ?? 1) * 1000));
  }
}

/** oauth4webapi options for a test server on plain http. */
export const insecure = { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: politeFetch } as const;

/** The authorization server's metadata, fetched and validated (issuer included) by oauth4webapi. */
export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  const response = await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...insecure });
  return oauth.processDiscoveryResponse(url, response);
}

/**
 * An access token from /oauth/token, obtained by a standard OAuth client library (oauth4webapi):
 * discovery, then the client credentials grant with client_secret_basic or client_secret_post.
 */
export async function fetchAccessToken(
  issuer: string,
  credentials: OAuthClientCredentials,
  options: { scope?: string; resource?: string; method?: 'basic' | 'post' } = {},
): Promise<oauth.TokenEndpointResponse> {
  const as = await discover(issuer);
  const params = new URLSearchParams();
  if (options.scope !== undefined) params.set('scope', options.scope);
  if (options.resource !== undefined) params.set('resource', options.resource);
  const auth = options.method === 'post' ? oauth.ClientSecretPost(credentials.client_secret) : oauth.ClientSecretBasic(credentials.client_secret);
  const response = await oauth.clientCredentialsGrantRequest(as, { client_id: credentials.client_id }, auth, params, insecure);
  return oauth.processClientCredentialsResponse(as, { client_id: credentials.client_id }, response);
}

export type McpTransportKind = 'streamable-http' | 'sse';
export const MCP_TRANSPORTS: McpTransportKind[] = ['streamable-http', 'sse'];

/**
 * An MCP SDK client connected over one of the two transports. With `credentials`, the SDK's own
 * OAuth support (ClientCredentialsProvider) discovers the authorization server from the 401 and
 * gets (and renews) the token; with `token`, that bearer token is sent as is.
 */
export async function connectMcp(
  app: TestApp,
  kind: McpTransportKind,
  auth: { credentials: OAuthClientCredentials; scope?: string } | { token: string },
  options: { headers?: Record<string, string>; onResponse?: (response: Response) => void } = {},
): Promise<Client> {
  const url = new URL(kind === 'sse' ? '/mcp/sse' : '/mcp', app.url);
  const authProvider =
    'credentials' in auth
      ? new ClientCredentialsProvider({
          clientId: auth.credentials.client_id,
          clientSecret: auth.credentials.client_secret,
          expectedIssuer: app.url,
          ...(auth.scope ? { scope: auth.scope } : {}),
        })
      : undefined;
  const headers = { ...('token' in auth ? { Authorization: `Bearer ${auth.token}` } : {}), ...options.headers };
  const observingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await politeFetch(input, init);
    options.onResponse?.(response);
    return response;
  };
  const transportOptions = { authProvider, requestInit: { headers }, fetch: observingFetch };
  const transport = kind === 'sse' ? new SSEClientTransport(url, transportOptions) : new StreamableHTTPClientTransport(url, transportOptions);
  const mcp = new Client({ name: 'lore-test', version: '1.0.0' });
  await mcp.connect(transport);
  return mcp;
}

/** Calls a tool; returns its structured result, or throws with the tool's error text. */
export async function callTool<T = any>(mcp: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`tool ${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** Calls a tool that must fail; returns the error text of its result. */
export async function toolErrorText(mcp: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`tool ${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
