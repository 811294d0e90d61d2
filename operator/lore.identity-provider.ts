import { ignoreNotFound } from '../core/errors.js';
import type { OAuthClientService } from '../core/oauth/oauth-client.service.js';
import type { IdentityProvider, McpClientCredentials, McpClientSpec } from './identity-provider.js';

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join(' ') === [...b].sort().join(' ');
}

/**
 * MCP clients in Lore's built-in authorization server (when no Keycloak is configured). Lore keeps
 * only a digest of a client's secret, so the credentials in the operator's Secret are the only copy:
 * while they authenticate, for the right owner and scopes, nothing changes; otherwise the old client
 * is revoked and a new one registered. Client ids are Lore's (UUIDs), not the spec's name, which
 * becomes the client's display name.
 */
export class LoreIdentityProvider implements IdentityProvider {
  readonly kind = 'lore';

  constructor(
    private readonly clients: OAuthClientService,
    /** The built-in token endpoint, `{auth_url}/oauth/token`. */
    private readonly tokenUrl: string,
  ) {}

  async ensureClient(spec: McpClientSpec, current?: McpClientCredentials): Promise<{ credentials: McpClientCredentials; changed: boolean }> {
    if (current) {
      const client = await this.clients.authenticate(current.clientId, current.clientSecret);
      const matches = client && client.tenantId === spec.tenantId && client.subTenantId === spec.subTenantId && sameScopes(client.scopes, spec.scopes);
      if (matches && current.tokenUrl === this.tokenUrl) return { credentials: current, changed: false };
      if (client) await this.deleteClient(current.clientId);
    }
    const registered = await this.clients.register({
      tenant_id: spec.tenantId,
      sub_tenant_id: spec.subTenantId,
      name: spec.displayName,
      scopes: [...spec.scopes],
    });
    return { credentials: { clientId: registered.client_id, clientSecret: registered.client_secret, tokenUrl: this.tokenUrl }, changed: true };
  }

  async deleteClient(clientId: string): Promise<void> {
    await this.clients.revoke(clientId).catch(ignoreNotFound);
  }
}
