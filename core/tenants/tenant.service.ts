import type { BillingService } from '../billing/billing.service.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import type { ApiKeyService } from '../keys/api-key.service.js';
import { isUuid } from '../shared/ids.js';
import { findTenant, insertTenant, updateTenant } from './tenant.repository.js';
import type { CreateTenantInput, TenantRecord, UpdateTenantInput } from './tenant.schema.js';

export interface TenantView extends Omit<TenantRecord, 'created_at' | 'updated_at'> {
  created_at: string;
  updated_at: string;
}

export function presentTenant(t: TenantRecord): TenantView {
  return { ...t, created_at: t.created_at.toISOString(), updated_at: t.updated_at.toISOString() };
}

/**
 * Tenant administration for the instance operator: the internal admin API, the CLI and (later)
 * the Kubernetes operator all call this service.
 */
export class TenantService {
  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeyService,
    private readonly billing: BillingService,
  ) {}

  /** Creates a tenant and its first admin key in one transaction. */
  async create(input: CreateTenantInput): Promise<{ id: string; api_key: string; tenant: TenantView }> {
    return this.db.transaction(async (tx) => {
      const tenant = await insertTenant(tx, input);
      await this.billing.startFirstPeriod(tx, tenant.id, tenant.plan);
      const { key } = await this.keys.issue(tx, {
        tenantId: tenant.id,
        subTenantId: null,
        name: 'Initial admin key',
        role: 'admin',
      });
      return { id: tenant.id, api_key: key, tenant: presentTenant(tenant) };
    });
  }

  async get(id: string): Promise<TenantView> {
    const tenant = isUuid(id) ? await findTenant(this.db, id) : undefined;
    if (!tenant) throw errors.notFound('tenant');
    return presentTenant(tenant);
  }

  async update(id: string, patch: UpdateTenantInput): Promise<TenantView> {
    const tenant = isUuid(id) ? await updateTenant(this.db, id, patch) : undefined;
    if (!tenant) throw errors.notFound('tenant');
    return presentTenant(tenant);
  }

  /** A fresh admin key for a tenant that lost access to its own (support recovery). */
  async issueAdminKey(id: string, name = 'Support-issued admin key'): Promise<{ id: string; key: string }> {
    await this.get(id);
    const { key, row } = await this.keys.issue(this.db, { tenantId: id, subTenantId: null, name, role: 'admin' });
    return { id: row.id, key };
  }
}
