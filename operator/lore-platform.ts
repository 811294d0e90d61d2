import { DEFAULT_DIMENSIONS } from '../core/knowledge-bases/knowledge-base.schema.js';
import type { SubTenantRow } from '../core/sub-tenants/sub-tenant.repository.js';
import type { CreateSubTenantInput, UpdateSubTenantInput } from '../core/sub-tenants/sub-tenant.schema.js';
import { type Scope, tenantScope } from '../core/shared/scope.js';
import type { CreateTenantInput, TenantRecord, UpdateTenantInput } from '../core/tenants/tenant.schema.js';
import type { Services } from '../runtime/services.js';

/**
 * What the controllers ask of Lore, over its service layer (the same services the internal admin
 * API and the CLI use): tenants and sub-tenants found by the custom resource's uid, their keys,
 * and the vector storage kept outside PostgreSQL.
 */
export interface LorePlatform {
  findTenant(resourceUid: string): Promise<TenantRecord | undefined>;
  createTenant(input: CreateTenantInput, resourceUid: string): Promise<{ tenant: TenantRecord; apiKey: string; apiKeyId: string }>;
  updateTenant(tenantId: string, patch: UpdateTenantInput): Promise<TenantRecord>;
  /** Removes the tenant and all its data: Lore's account deletion. */
  removeTenant(tenantId: string): Promise<void>;
  keyIsActive(scope: Scope, keyId: string): Promise<boolean>;
  issueKey(scope: Scope, name: string): Promise<{ key: string; id: string }>;
  revokeKey(scope: Scope, keyId: string): Promise<void>;
  /** Creates the tenant's vector collection where the index keeps one per tenant: 'created', 'exists', or 'shared' (no per-tenant storage). */
  ensureTenantVectors(tenantId: string): Promise<'created' | 'exists' | 'shared'>;
  findSubTenant(tenantId: string, resourceUid: string): Promise<SubTenantRow | undefined>;
  createSubTenant(tenantId: string, input: CreateSubTenantInput, resourceUid: string): Promise<SubTenantRow>;
  updateSubTenant(tenantId: string, subTenantId: string, patch: UpdateSubTenantInput): Promise<SubTenantRow>;
  removeSubTenant(tenantId: string, subTenantId: string): Promise<void>;
}

export function lorePlatform(services: Services): LorePlatform {
  const { tenants, subTenants, accounts, keys, adapters } = services;
  return {
    findTenant: (uid) => tenants.findByOperatorRef(uid),
    createTenant: (input, uid) => tenants.create(input, uid),
    updateTenant: (tenantId, patch) => tenants.update(tenantScope(tenantId), patch),
    removeTenant: (tenantId) => accounts.remove(tenantScope(tenantId)),
    keyIsActive: (scope, keyId) => tenants.keyIsActive(scope, keyId),
    async issueKey(scope, name) {
      // Sub-tenant keys are at most `write` (spec §2); a tenant's key is its admin key.
      const issued = await keys.issue(services.db, scope, { name, role: scope.subTenantId ? 'write' : 'admin' });
      return { key: issued.key, id: issued.row.id };
    },
    revokeKey: (scope, keyId) => tenants.revokeKey(scope, keyId),
    async ensureTenantVectors(tenantId) {
      const index = adapters.vectorIndex;
      if (!index.ensureTenant) return 'shared';
      return (await index.ensureTenant(tenantId, DEFAULT_DIMENSIONS)) ? 'created' : 'exists';
    },
    findSubTenant: (tenantId, uid) => subTenants.findByOperatorRef(tenantScope(tenantId), uid),
    async createSubTenant(tenantId, input, uid) {
      return (await subTenants.create(tenantScope(tenantId), input, uid)).subTenant.row;
    },
    async updateSubTenant(tenantId, subTenantId, patch) {
      return (await subTenants.update(tenantScope(tenantId), subTenantId, patch)).row;
    },
    removeSubTenant: (tenantId, subTenantId) => subTenants.delete(tenantScope(tenantId), subTenantId),
  };
}

