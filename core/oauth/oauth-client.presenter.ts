import type { OAuthClientRow } from './oauth-client.repository.js';
import { type OAuthClientView, normalizeScopes } from './oauth.schema.js';

export function presentOAuthClient(row: OAuthClientRow): OAuthClientView {
  return {
    client_id: row.id,
    tenant_id: row.tenant_id,
    sub_tenant_id: row.sub_tenant_id,
    name: row.name,
    scopes: normalizeScopes(row.scopes),
    registered_by: row.registered_by,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}
