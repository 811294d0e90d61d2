import type { OAuthScope } from '../core/oauth/oauth.schema.js';

/** The MCP OAuth client the operator keeps for a tenant (or a sub-tenant), as it should be. */
export interface McpClientSpec {
  /** Deterministic: derived from the custom resource, so a retry finds what an earlier attempt made. */
  clientId: string;
  /** Shown in the identity provider's console. */
  displayName: string;
  tenantId: string;
  subTenantId: string | null;
  /** The scopes the client is granted (every token it gets carries them). */
  scopes: readonly OAuthScope[];
  /** The MCP resource identifiers tokens must name as audience. */
  audiences: readonly string[];
}

/** What an MCP client needs to get a token: written to the tenant's Secret. */
export interface McpClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The token endpoint (client credentials grant). */
  tokenUrl: string;
}

/**
 * Where MCP clients live: Keycloak in the cluster topology (`KEYCLOAK_URL`), or Lore's built-in
 * authorization server. Both are idempotent: `ensureClient` creates what is missing, repairs what
 * differs, writes nothing when the client already matches, and reports whether it changed anything.
 */
export interface IdentityProvider {
  readonly kind: 'keycloak' | 'lore';
  /**
   * `current`: the credentials the operator holds (from its Secret), if any. A provider that can
   * read a client's secret back (Keycloak) may ignore them; one that cannot (Lore's, which stores
   * only a digest) keeps the client while they still work and replaces it otherwise.
   */
  ensureClient(spec: McpClientSpec, current?: McpClientCredentials): Promise<{ credentials: McpClientCredentials; changed: boolean }>;
  /** Deletes the client; one that does not exist is not an error. */
  deleteClient(clientId: string): Promise<void>;
}
