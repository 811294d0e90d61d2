import type { VectorIndex } from '../ports/vector-index.js';
import type { BillingService } from '../billing/billing.service.js';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import type { Database } from '../db/database.js';
import { storageUsage } from '../documents/document.repository.js';
import { errors } from '../errors.js';
import { listApiKeys } from '../keys/api-key.repository.js';
import { presentApiKey, type ApiKeyService } from '../keys/api-key.service.js';
import type { ApiKeyView } from '../keys/api-key.schema.js';
import { isUuid } from '../shared/ids.js';
import type { TranslationConfig } from '../translation/translation.schema.js';
import { queriesInPeriod } from '../usage/usage.repository.js';
import {
  type SubTenantRow,
  activeUsersBySubTenant,
  deleteSubTenant,
  findSubTenant,
  findSubTenantByExternalId,
  insertSubTenant,
  listSubTenants,
  subTenantFigures,
  updateSubTenant,
} from './sub-tenant.repository.js';
import { type CreateSubTenantInput, LIMIT_FIELDS, type SubTenantView, type UpdateSubTenantInput } from './sub-tenant.schema.js';

/**
 * Enterprise sub-tenants: isolated sub-accounts of a tenant with their own keys and limits, all
 * managed by the tenant's own admin keys. Limits apply inside the parent's (both must hold).
 */
export class SubTenantService {
  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeyService,
    private readonly billing: BillingService,
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

  /** A sub-tenant of the caller's tenant, or 404. */
  async get(tenantId: string, id: string): Promise<SubTenantRow> {
    const row = isUuid(id) ? await findSubTenant(this.db, tenantId, id) : undefined;
    if (!row) throw errors.notFound('sub-tenant');
    return row;
  }

  private async present(rows: SubTenantRow[], tenantId: string): Promise<SubTenantView[]> {
    const figures = await subTenantFigures(this.db, tenantId);
    const active = await activeUsersBySubTenant(this.db, tenantId, this.clock.now());
    const { period_start } = await this.billing.current(tenantId);
    const views: SubTenantView[] = [];
    for (const row of rows) {
      const f = figures.get(row.id) ?? { chunks: 0, documents: 0, storageBytes: 0, knowledgeBases: 0 };
      const queries = await queriesInPeriod(this.db, tenantId, row.id, period_start);
      views.push({
        id: row.id,
        name: row.name,
        external_id: row.external_id,
        ...Object.fromEntries(LIMIT_FIELDS.map((k) => [k, row[k]])),
        translation_config: row.translation_config,
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
        usage: {
          chunks: { used: f.chunks, limit: row.max_total_chunks },
          documents: { used: f.documents, limit: row.max_documents },
          queries_this_period: { used: queries, limit: row.included_queries_per_period },
          storage_bytes: { used: f.storageBytes, limit: row.storage_quota_bytes },
          knowledge_bases: f.knowledgeBases,
          active_users: active.get(row.id) ?? 0,
        },
      } as SubTenantView);
    }
    return views;
  }

  /**
   * Creates a sub-tenant. With an `external_id` the tenant already uses, answers the existing
   * record instead (`created: false`), also when several such requests race.
   */
  async create(tenantId: string, input: CreateSubTenantInput): Promise<{ created: boolean; subTenant: SubTenantView }> {
    const inserted = await insertSubTenant(this.db, tenantId, input);
    const row = inserted ?? (input.external_id ? await findSubTenantByExternalId(this.db, tenantId, input.external_id) : undefined);
    if (!row) throw errors.notFound('sub-tenant');
    const [view] = await this.present([row], tenantId);
    return { created: inserted !== undefined, subTenant: view! };
  }

  async list(tenantId: string): Promise<SubTenantView[]> {
    return this.present(await listSubTenants(this.db, tenantId), tenantId);
  }

  async view(tenantId: string, id: string): Promise<SubTenantView> {
    const [view] = await this.present([await this.get(tenantId, id)], tenantId);
    return view!;
  }

  async update(tenantId: string, id: string, patch: UpdateSubTenantInput): Promise<SubTenantView> {
    const row = isUuid(id) ? await updateSubTenant(this.db, tenantId, id, patch) : undefined;
    if (!row) throw errors.notFound('sub-tenant');
    const [view] = await this.present([row], tenantId);
    return view!;
  }

  /** Deletes the sub-tenant and all its data; the parent's quotas are freed at once. */
  async delete(tenantId: string, id: string): Promise<void> {
    await this.get(tenantId, id);
    await this.db.transaction(async (tx) => {
      if (!(await deleteSubTenant(tx, tenantId, id))) throw errors.notFound('sub-tenant');
    });
    await this.vectors.tenantRemoved({ tenantId, subTenantId: id });
  }

  async createKey(tenantId: string, id: string, input: { role: 'read' | 'write'; name?: string | undefined }) {
    const sub = await this.get(tenantId, id);
    const { key, row } = await this.keys.issue(this.db, {
      tenantId,
      subTenantId: sub.id,
      name: input.name ?? `${sub.name} ${input.role} key`,
      role: input.role,
    });
    return { key, id: row.id, role: row.role, sub_tenant_id: sub.id };
  }

  async listKeys(tenantId: string, id: string): Promise<ApiKeyView[]> {
    const sub = await this.get(tenantId, id);
    return (await listApiKeys(this.db, { tenantId, subTenantId: sub.id })).map(presentApiKey);
  }

  async revokeKey(tenantId: string, id: string, keyId: string): Promise<void> {
    const sub = await this.get(tenantId, id);
    await this.keys.revoke({ tenantId, subTenantId: sub.id }, keyId);
  }

  /** GET /v1/sub-tenants/{id}/usage. */
  async usage(tenantId: string, id: string) {
    const { usage } = await this.view(tenantId, id);
    const { knowledge_bases: _kbs, ...rest } = usage;
    return rest;
  }

  /** GET /v1/usage/breakdown: each sub-tenant's figures and the tenant's total chunks. */
  async breakdown(tenantId: string) {
    const views = await this.list(tenantId);
    const total = await storageUsage(this.db, { tenantId, subTenantId: null });
    return {
      sub_tenants: views.map((v) => ({
        sub_tenant_id: v.id,
        name: v.name,
        chunks: v.usage.chunks.used,
        queries_this_period: v.usage.queries_this_period.used,
        active_users: v.usage.active_users,
      })),
      total_chunks: total.chunks,
    };
  }

  /** GET /v1/usage/users: active end users of the current month, per sub-tenant. */
  async activeUsers(tenantId: string) {
    const subs = await listSubTenants(this.db, tenantId);
    const active = await activeUsersBySubTenant(this.db, tenantId, this.clock.now());
    return subs.map((s) => ({ sub_tenant_id: s.id, name: s.name, active_users: active.get(s.id) ?? 0 }));
  }

  /** Stores an end user's translation preferences (applied to queries carrying that X-User-Id). */
  async setUserPreferences(ctx: RequestContext, id: string, userId: string, config: TranslationConfig) {
    if (ctx.tenant.plan !== 'enterprise') throw errors.forbidden('enterprise_only', 'Per-user preferences require the Enterprise plan.');
    const sub = await this.get(ctx.tenantId, id);
    await this.db.query(
      `INSERT INTO end_user_preferences (tenant_id, sub_tenant_id, user_id, translation_config) VALUES ($1, $2, $3, $4)
       ON CONFLICT (sub_tenant_id, user_id) DO UPDATE SET translation_config = EXCLUDED.translation_config, updated_at = now()`,
      [ctx.tenantId, sub.id, userId, JSON.stringify(config)],
    );
    return { sub_tenant_id: sub.id, user_id: userId, translation_config: config };
  }

  /** An end user's stored translation preferences, if any. */
  async userPreferences(tenantId: string, subTenantId: string | null, userId: string): Promise<TranslationConfig | undefined> {
    if (!subTenantId) return undefined;
    const { rows } = await this.db.query<{ translation_config: TranslationConfig }>(
      'SELECT translation_config FROM end_user_preferences WHERE tenant_id = $1 AND sub_tenant_id = $2 AND user_id = $3',
      [tenantId, subTenantId, userId],
    );
    return rows[0]?.translation_config;
  }
}
