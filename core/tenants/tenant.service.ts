import type { BillingPeriodService } from '../billing/billing-period.service.js';
import type { Database } from '../db/database.js';
import { AppError, errors, ignoreNotFound } from '../errors.js';
import type { PortalAccountService } from '../portal/portal-account.service.js';
import type { ApiKeyService, IssuedKey } from '../keys/api-key.service.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, tenantScope } from '../shared/scope.js';
import { findTenant, findTenantByOperatorRef, insertTenant, listTenants, updateTenant } from './tenant.repository.js';
import type { CreateTenantInput, TenantRecord, UpdateTenantInput } from './tenant.schema.js';

/** The first portal user's set-password e-mail: to whom, and where it went (null: it could not be sent). */
export interface TenantInvitation {
  email: string;
  deliveredTo: string | null;
}

function ignoreEmailInUse(err: unknown): undefined {
  if (err instanceof AppError && err.code === 'email_in_use') return undefined;
  throw err;
}

/**
 * Tenant administration for the instance operator: the internal admin API, the CLI and (later)
 * the Kubernetes operator all call this service.
 */
export class TenantService {
  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeyService,
    private readonly periods: BillingPeriodService,
    private readonly portal: Pick<PortalAccountService, 'addUser' | 'sendInvitation'>,
  ) {}

  /**
   * Creates a tenant and its first admin key in one transaction. The tenant's e-mail address becomes
   * its first portal user (an admin), who is e-mailed a link to set their password after the commit;
   * an address that already has a portal account elsewhere gets none (`invitation` is null).
   * `operatorRef` links the tenant to the Kubernetes resource it was created for (its uid).
   */
  async create(
    input: CreateTenantInput,
    operatorRef?: string,
  ): Promise<{ tenant: TenantRecord; apiKey: string; apiKeyId: string; invitation: TenantInvitation | null }> {
    const { tenant, issued, pending } = await this.db.transaction(async (tx) => {
      const tenant = await insertTenant(tx, input, operatorRef);
      const scope = tenantScope(tenant.id);
      await this.periods.startFirstPeriod(tx, scope, tenant.plan);
      const issued = await this.keys.issue(tx, scope, { name: 'Initial admin key', role: 'admin' });
      const pending = input.email ? await this.portal.addUser(tx, scope, { email: input.email, role: 'admin' }, tenant.name).catch(ignoreEmailInUse) : undefined;
      return { tenant, issued, pending };
    });
    const created = { tenant, apiKey: issued.key, apiKeyId: issued.row.id };
    if (!pending) return { ...created, invitation: null };
    const deliveredTo = await this.portal.sendInvitation(pending);
    return { ...created, invitation: { email: pending.user.email, deliveredTo: deliveredTo ?? null } };
  }

  /** The tenant the Kubernetes operator created for a resource, if any. */
  findByOperatorRef(operatorRef: string): Promise<TenantRecord | undefined> {
    return findTenantByOperatorRef(this.db, operatorRef);
  }

  /** Every tenant of the instance, oldest first (the instance operator's view). */
  list(): Promise<TenantRecord[]> {
    return listTenants(this.db);
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

  /** Whether this key of the tenant (or of one of its sub-tenants, by scope) is still active. */
  async keyIsActive(scope: Scope, keyId: string): Promise<boolean> {
    return (await this.keys.list(scope)).some((key) => key.id === keyId);
  }

  /** Revokes a key the tenant no longer needs; one already revoked is fine. */
  async revokeKey(scope: Scope, keyId: string): Promise<void> {
    await this.keys.revoke(scope, keyId).catch(ignoreNotFound);
  }
}
