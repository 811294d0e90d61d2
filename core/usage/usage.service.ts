import type { BillingPeriodService } from '../billing/billing-period.service.js';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import type { Database, Queryable } from '../db/database.js';
import { storageUsage } from '../documents/document.repository.js';
import { errors } from '../errors.js';
import { countKnowledgeBases } from '../knowledge-bases/knowledge-base.repository.js';
import { PLANS, type PlanId, limitsFor } from '../plans.js';
import type { QuotaService } from '../quotas/quota.service.js';
import { type Scope, scopeOf } from '../shared/scope.js';
import { recordActiveUser } from '../sub-tenants/sub-tenant.repository.js';
import { countQuery, insertUsageEvent, insertUsageEvents, queriesInPeriod, uncountQuery } from './usage.repository.js';

export interface Quota {
  used: number;
  limit: number | null;
  /** used / limit × 100, two decimals; null when no limit applies. */
  percent: number | null;
}

export interface UsageView {
  chunks: Quota;
  documents: Quota;
  storage_bytes: Quota;
  queries_this_period: Quota;
  knowledge_bases: { used: number; limit: number | null };
  query_rate_limit_per_min: number;
}

export function quota(used: number, limit: number | null): Quota {
  return { used, limit, percent: limit ? Math.round((used / limit) * 10_000) / 100 : null };
}

/** Rough token count of a text, for the billing usage object: one token per four characters. */
export function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Chunks of one document indexed, for the usage ledger. */
export interface IngestionUsage {
  tenantId: string;
  subTenantId: string | null;
  plan: PlanId;
  chunks: number;
}

/** A query counted against the period; `commit` records it in the ledger, `release` gives it back. */
export interface QueryReservation {
  commit(tokens: { input: number; output: number }): Promise<void>;
  release(): Promise<void>;
}

/**
 * Quotas and metering: counts queries against the period's allowance (a hard cap on Free), records
 * billable events in the usage ledger with their cost, and reports usage.
 */
export class UsageService {
  constructor(
    private readonly db: Database,
    private readonly periods: BillingPeriodService,
    private readonly quotas: QuotaService,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts a query before it runs. Suspended tenants get 402 payment_required; a Free tenant past
   * its included queries gets 402 quota_exhausted. The count is atomic, so concurrent queries can
   * never exceed the cap together; a query that then fails is given back.
   */
  async reserveQuery(ctx: RequestContext): Promise<QueryReservation> {
    if (ctx.tenant.status === 'suspended') {
      throw errors.paymentRequired('payment_required', 'The account is suspended; contact support to restore it.');
    }
    const scope = scopeOf(ctx);
    const tenant: Scope = { tenantId: ctx.tenantId, subTenantId: null };
    const state = await this.periods.ofRequest(ctx.tenant);
    const plan = PLANS[state.plan];
    const periodStart = state.period_start;
    const sub = ctx.subTenant;
    // A sub-tenant's included queries are a hard budget the parent sets for it.
    if (sub && (await countQuery(this.db, scope, { periodStart, cap: sub.includedQueriesPerPeriod })) === undefined) {
      throw errors.paymentRequired('quota_exhausted', `The sub-tenant's ${sub.includedQueriesPerPeriod} queries for this period are used up.`, {
        limit: sub.includedQueriesPerPeriod,
        period_end: state.period_end,
        scope: 'sub_tenant',
      });
    }
    const ordinal = await countQuery(this.db, tenant, { periodStart, cap: plan.hardQueryCap ? state.period_included_queries : null });
    if (ordinal === undefined) {
      if (sub) await uncountQuery(this.db, scope, periodStart);
      throw errors.paymentRequired(
        'quota_exhausted',
        `The ${state.plan} plan's ${state.period_included_queries} queries for this period are used up.`,
        { limit: state.period_included_queries, period_end: state.period_end },
      );
    }
    const overage = plan.overagePerQueryMicrocents !== null && ordinal > state.period_included_queries;
    return {
      commit: async (tokens) => {
        if (ctx.userId) await recordActiveUser(this.db, scope, ctx.userId, this.clock.now());
        await insertUsageEvent(this.db, {
          tenantId: ctx.tenantId,
          subTenantId: ctx.subTenantId,
          userId: ctx.userId,
          type: 'query',
          quantity: 1,
          costMicrocents: overage ? plan.overagePerQueryMicrocents! : 0,
          inputTokens: tokens.input,
          outputTokens: tokens.output,
          occurredAt: this.clock.now(),
        });
      },
      release: async () => {
        await uncountQuery(this.db, tenant, periodStart);
        if (sub) await uncountQuery(this.db, scope, periodStart);
      },
    };
  }

  /** Ledger entries for documents' chunks indexed, one per document (in the transaction that makes them searchable). */
  async recordIngestions(tx: Queryable, documents: readonly IngestionUsage[]): Promise<void> {
    const occurredAt = this.clock.now();
    await insertUsageEvents(
      tx,
      documents.map((d) => ({
        tenantId: d.tenantId,
        subTenantId: d.subTenantId,
        type: 'ingestion' as const,
        quantity: d.chunks,
        costMicrocents: d.chunks * PLANS[d.plan].ingestionPerChunkMicrocents,
        occurredAt,
      })),
    );
  }

  /**
   * GET /v1/usage: exact current figures. For a tenant-level key, the whole tenant against its
   * plan's limits; for a sub-tenant's key, that sub-tenant against its own limits where it has
   * them and the parent's otherwise.
   */
  async usage(scope: Scope): Promise<UsageView> {
    const state = await this.periods.current(scope);
    const limits = limitsFor(state.plan, state.limit_overrides);
    const sub = scope.subTenantId ? await this.quotas.subTenantLimits(this.db, scope, scope.subTenantId) : undefined;
    const stored = await storageUsage(this.db, scope);
    return {
      chunks: quota(stored.chunks, sub?.max_total_chunks ?? limits.maxChunks),
      documents: quota(stored.documents, sub?.max_documents ?? limits.maxDocuments),
      storage_bytes: quota(stored.storageBytes, sub?.storage_quota_bytes ?? limits.storageBytes),
      queries_this_period: quota(
        await queriesInPeriod(this.db, scope, state.period_start),
        sub?.included_queries_per_period ?? state.period_included_queries,
      ),
      knowledge_bases: { used: await countKnowledgeBases(this.db, scope), limit: sub?.max_knowledge_bases ?? limits.maxKnowledgeBases },
      query_rate_limit_per_min: sub?.query_rate_limit_per_min ?? limits.queryRateLimitPerMin,
    };
  }
}
