import type { BillingPeriodService } from '../billing/billing-period.service.js';
import type { Database } from '../db/database.js';
import { errors } from '../errors.js';
import type { ApiKeyService, IssuedKey } from '../keys/api-key.service.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, tenantScope } from '../shared/scope.js';
import { findTenant, insertTenant, updateTenant } from './tenant.repository.js';
import type { CreateTenantInput, TenantRecord, UpdateTenantInput } from './tenant.schema.js';

/**
 * Tenant administration for the instance operator: the internal admin API, the CLI and (later)
 * the Kubernetes operator all call this service.
 */
export class TenantService {
  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeyService,
    private readonly periods: BillingPeriodService,
  ) {}

  /** Creates a tenant and its first admin key in one transaction. */
  async create(input: CreateTenantInput): Promise<{ tenant: TenantRecord; apiKey: string }> {
    return this.db.transaction(async (tx) => {
      const tenant = await insertTenant(tx, input);
      const scope = tenantScope(tenant.id);
      await this.periods.startFirstPeriod(tx, scope, tenant.plan);
      const { key } = await this.keys.issue(tx, scope, { name: 'Initial admin key', role: 'admin' });
      return { tenant, apiKey: key };
    });
  }

  async get(scope: Scope): Promise<TenantRecord> {
    const tenant = isUuid(scope.tenantId) ? await findTenant(this.db, scope) : undefined;
    if (!tenant) throw errors.notFound('tenant');
    return tenant;
  }

  async update(scope: Scope, patch: UpdateTenantInput): Promise<TenantRecord> {
    const tenant = isUuid(scope.tenantId) ? await updateTenant(this.db, scope, patch) : undefined;
    if (!tenant) throw errors.notFound('tenant');
    return tenant;
  }

  /** A fresh admin key for a tenant that lost access to its own (support recovery). */
  async issueAdminKey(scope: Scope, name = 'Support-issued admin key'): Promise<IssuedKey> {
    await this.get(scope);
    return this.keys.issue(this.db, scope, { name, role: 'admin' });
  }
}
