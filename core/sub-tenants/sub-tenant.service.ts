import type { VectorIndex } from '../ports/vector-index.js';
import type { BillingPeriodService } from '../billing/billing-period.service.js';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { storageUsage } from '../documents/document.repository.js';
import { errors } from '../errors.js';
import { type ApiKeyRow, listApiKeys } from '../keys/api-key.repository.js';
import type { ApiKeyService, IssuedKey } from '../keys/api-key.service.js';
import { isUuid } from '../shared/ids.js';
import { type Scope, scopeOf } from '../shared/scope.js';
import type { TranslationConfig } from '../translation/translation.schema.js';
import { queriesInPeriod } from '../usage/usage.repository.js';
import {
  type SubTenantRow,
  activeUsersBySubTenant,
  deleteSubTenant,
  findSubTenant,
  findSubTenantByExternalId,
  findSubTenantByOperatorRef,
  findUserPreferences,
  insertSubTenant,
  listSubTenants,
  subTenantFigures,
  updateSubTenant,
  upsertUserPreferences,
} from './sub-tenant.repository.js';
import type { CreateSubTenantInput, UpdateSubTenantInput } from './sub-tenant.schema.js';

/** What a sub-tenant holds and did this period, beside its record. */
export interface SubTenantUsage {
  chunks: number;
  documents: number;
  storageBytes: number;
  knowledgeBases: number;
  queriesThisPeriod: number;
  activeUsers: number;
}

/** A sub-tenant with its current usage (presented by sub-tenant.presenter.ts). */
export interface SubTenant {
  row: SubTenantRow;
  usage: SubTenantUsage;
}

/**
 * Enterprise sub-tenants: isolated sub-accounts of a tenant with their own keys and limits, all
 * managed by the tenant's own admin keys (a tenant-level scope). Limits apply inside the parent's
 * (both must hold).
 */
export class SubTenantService {
  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeyService,
    private readonly periods: BillingPeriodService,
    private readonly clock: Clock,
    private readonly vectors: VectorIndex,
  ) {}

  /** Who may manage sub-tenants: a tenant-level key of an Enterprise tenant (the role is checked by the route). */
  assertManager(ctx: RequestContext): void {
    if (ctx.subTenantId) {
      throw errors.forbidden('sub_tenant_keys_cannot_manage_sub_tenants', 'Keys of a sub-tenant cannot manage sub-tenants.');
    }
    if (ctx.tenant.plan !== 'enterprise') {
      throw errors.forbidden('enterprise_plan_required', 'Sub-tenants require the Enterprise plan.');
    }
  }

  /** A sub-tenant of the scope's tenant, or 404. */
  async get(scope: Scope, id: string): Promise<SubTenantRow> {
    const row = isUuid(id) ? await findSubTenant(this.db, scope, id) : undefined;
    if (!row) throw errors.notFound('sub-tenant');
    return row;
  }

  private async withUsage(scope: Scope, rows: SubTenantRow[]): Promise<SubTenant[]> {
    const figures = await subTenantFigures(this.db, scope);
    const active = await activeUsersBySubTenant(this.db, scope, this.clock.now());
    const { period_start } = await this.periods.current(scope);
    const out: SubTenant[] = [];
    for (const row of rows) {
      const f = figures.get(row.id) ?? { chunks: 0, documents: 0, storageBytes: 0, knowledgeBases: 0 };
      const queriesThisPeriod = await queriesInPeriod(this.db, { tenantId: scope.tenantId, subTenantId: row.id }, period_start);
      out.push({ row, usage: { ...f, queriesThisPeriod, activeUsers: active.get(row.id) ?? 0 } });
    }
    return out;
  }

  /**
   * Creates a sub-tenant. With an `external_id` the tenant already uses, answers the existing
   * record instead (`created: false`), also when several such requests race. `operatorRef` links it
   * to the Kubernetes resource it was created for (its uid).
   */
  async create(scope: Scope, input: CreateSubTenantInput, operatorRef?: string): Promise<{ created: boolean; subTenant: SubTenant }> {
    const inserted = await insertSubTenant(this.db, scope, input, operatorRef);
    const row = inserted ?? (input.external_id ? await findSubTenantByExternalId(this.db, scope, input.external_id) : undefined);
    if (!row) throw errors.notFound('sub-tenant');
    const [subTenant] = await this.withUsage(scope, [row]);
    return { created: inserted !== undefined, subTenant: subTenant! };
  }

  /** The sub-tenant the Kubernetes operator created for a resource, if any. */
  findByOperatorRef(scope: Scope, operatorRef: string): Promise<SubTenantRow | undefined> {
    return findSubTenantByOperatorRef(this.db, scope, operatorRef);
  }

  async list(scope: Scope): Promise<SubTenant[]> {
    return this.withUsage(scope, await listSubTenants(this.db, scope));
  }

  async view(scope: Scope, id: string): Promise<SubTenant> {
    const [subTenant] = await this.withUsage(scope, [await this.get(scope, id)]);
    return subTenant!;
  }

  async update(scope: Scope, id: string, patch: UpdateSubTenantInput): Promise<SubTenant> {
    const row = isUuid(id) ? await updateSubTenant(this.db, scope, id, patch) : undefined;
    if (!row) throw errors.notFound('sub-tenant');
    const [subTenant] = await this.withUsage(scope, [row]);
    return subTenant!;
  }

  /** Deletes the sub-tenant and all its data; the parent's quotas are freed at once. */
  async delete(scope: Scope, id: string): Promise<void> {
    await this.get(scope, id);
    await this.db.transaction(async (tx) => {
      if (!(await deleteSubTenant(tx, scope, id))) throw errors.notFound('sub-tenant');
    });
    await this.vectors.tenantRemoved({ tenantId: scope.tenantId, subTenantId: id });
  }

  async createKey(scope: Scope, id: string, input: { role: 'read' | 'write'; name?: string | undefined }): Promise<IssuedKey> {
    const sub = await this.get(scope, id);
    return this.keys.issue(this.db, { tenantId: scope.tenantId, subTenantId: sub.id }, { name: input.name ?? `${sub.name} ${input.role} key`, role: input.role });
  }

  async listKeys(scope: Scope, id: string): Promise<ApiKeyRow[]> {
    const sub = await this.get(scope, id);
    return listApiKeys(this.db, { tenantId: scope.tenantId, subTenantId: sub.id });
  }

  async revokeKey(scope: Scope, id: string, keyId: string): Promise<void> {
    const sub = await this.get(scope, id);
    await this.keys.revoke({ tenantId: scope.tenantId, subTenantId: sub.id }, keyId);
  }

  /** GET /v1/usage/breakdown: each sub-tenant with its figures, and the tenant's total chunks. */
  async breakdown(scope: Scope): Promise<{ subTenants: SubTenant[]; totalChunks: number }> {
    const subTenants = await this.list(scope);
    const total = await storageUsage(this.db, { tenantId: scope.tenantId, subTenantId: null });
    return { subTenants, totalChunks: total.chunks };
  }

  /** GET /v1/usage/users: active end users of the current month, per sub-tenant. */
  async activeUsers(scope: Scope): Promise<Array<{ subTenant: SubTenantRow; activeUsers: number }>> {
    const subs = await listSubTenants(this.db, scope);
    const active = await activeUsersBySubTenant(this.db, scope, this.clock.now());
    return subs.map((s) => ({ subTenant: s, activeUsers: active.get(s.id) ?? 0 }));
  }

  /** Stores an end user's translation preferences (applied to queries carrying that X-User-Id). */
  async setUserPreferences(ctx: RequestContext, id: string, userId: string, config: TranslationConfig) {
    if (ctx.tenant.plan !== 'enterprise') throw errors.forbidden('enterprise_only', 'Per-user preferences require the Enterprise plan.');
    const scope = scopeOf(ctx);
    const sub = await this.get(scope, id);
    await upsertUserPreferences(this.db, scope, sub.id, userId, config);
    return { sub_tenant_id: sub.id, user_id: userId, translation_config: config };
  }

  /** The stored translation preferences of the end user a query names (X-User-Id), within its key's sub-tenant. */
  async userPreferences(ctx: Pick<RequestContext, 'tenantId' | 'subTenantId' | 'userId'>): Promise<TranslationConfig | undefined> {
    if (!ctx.subTenantId || !ctx.userId) return undefined;
    return findUserPreferences(this.db, scopeOf(ctx), ctx.subTenantId, ctx.userId);
  }
}
