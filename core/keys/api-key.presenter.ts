import type { ApiKeyRow } from './api-key.repository.js';
import type { ApiKeyView } from './api-key.schema.js';
import type { IssuedKey } from './api-key.service.js';

export function presentApiKey(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    sub_tenant_id: row.sub_tenant_id,
    key_hint: row.key_hint,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}

/** POST /v1/auth/keys: the secret, shown this once, and the key's id. */
export function presentCreatedKey({ key, row }: IssuedKey): { key: string; id: string } {
  return { key, id: row.id };
}

/** POST /v1/sub-tenants/{id}/api-keys: as `presentCreatedKey`, with the role and the sub-tenant. */
export function presentSubTenantKey({ key, row }: IssuedKey) {
  return { key, id: row.id, role: row.role, sub_tenant_id: row.sub_tenant_id };
}
