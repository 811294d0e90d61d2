import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { storageUsage } from '../documents/document.repository.js';
import { AppError, errors } from '../errors.js';
import { countKnowledgeBases } from '../knowledge-bases/knowledge-base.repository.js';
import { type PlanId, PLANS, isPlanId, limitsFor } from '../plans.js';
import type { WorkflowEngine } from '../ports/workflow-engine.js';
import { insertUsageEvent, ledgerTotals, queriesInPeriod } from '../usage/usage.repository.js';
import {
  type BillingInterval,
  comparePlans,
  includedQueries,
  periodEnd,
  proratedQueries,
} from './billing-period.js';
import {
  type BillingDetails,
  type BillingPatch,
  type BillingState,
  findBillingState,
  tenantsWithEndedPeriods,
  updateBillingState,
} from './billing.repository.js';

const DAY_MS = 86_400_000;

export interface BillingUsage {
  plan_type: PlanId;
  included_queries: number;
  total_requests: number;
  total_input_tokens: number;
  total_output_tokens: number;
  total_cost_microcents: number;
  query_count: number;
  ingestion_chunks: number;
  overage_queries: number;
  overage_cost_microcents: number;
}

function fee(plan: PlanId, interval: BillingInterval): number {
  return PLANS[plan].monthlyFeeMicrocents * (interval === 'annual' ? 12 : 1);
}

export function billingPeriodJobKey(tenantId: string, end: Date): string {
  return `billing_period:${tenantId}:${end.toISOString()}`;
}

/**
 * Plans, billing periods and plan changes. A period ends at `period_end`; the transition to the
 * next one (applying a scheduled downgrade, cancellation or interval change, renewing the
 * allowance) is a compare-and-set on `period_end` under the tenant's row lock, so it happens exactly
 * once per tenant and period whoever triggers it: the scheduled job, a request that notices the
 * period is over, or a catch-up after downtime.
 */
export class BillingService {
  constructor(
    private readonly db: Database,
    private readonly engine: WorkflowEngine,
    private readonly clock: Clock,
    private readonly options: { enabled: boolean },
  ) {}

  /** Starts a new tenant's first period (in the transaction that creates it). */
  async startFirstPeriod(tx: Queryable, tenantId: string, plan: PlanId): Promise<void> {
    const start = this.clock.now();
    const end = periodEnd(start, 'monthly');
    await updateBillingState(tx, tenantId, {
      period_start: start,
      period_end: end,
      period_included_queries: includedQueries(plan, 'monthly'),
    });
    await this.chargeSubscription(tx, tenantId, plan, 'monthly', start);
    await this.scheduleTransition(tx, tenantId, end);
  }

  private async chargeSubscription(tx: Queryable, tenantId: string, plan: PlanId, interval: BillingInterval, at: Date) {
    const cost = fee(plan, interval);
    if (cost > 0) await insertUsageEvent(tx, { tenantId, type: 'subscription', quantity: 1, costMicrocents: cost, occurredAt: at });
  }

  private async scheduleTransition(tx: Queryable, tenantId: string, end: Date): Promise<void> {
    await this.engine.enqueue(tx, {
      type: 'billing_period',
      tenantId,
      runAt: end,
      dedupeKey: billingPeriodJobKey(tenantId, end),
      payload: { period_end: end.toISOString() },
    });
  }

  /** The tenant's billing state with its current period, moving past any period that has ended. */
  async current(tenantId: string): Promise<BillingState> {
    const state = await findBillingState(this.db, tenantId);
    if (!state) throw errors.notFound('tenant');
    if (state.period_end.getTime() > this.clock.now().getTime()) return state;
    return this.rollover(tenantId);
  }

  /** Moves a tenant into the period containing now, applying scheduled changes once. */
  async rollover(tenantId: string): Promise<BillingState> {
    const now = this.clock.now();
    const result = await this.db.transaction(async (tx) => {
      const state = await findBillingState(tx, tenantId, true);
      if (!state) throw errors.notFound('tenant');
      if (state.period_end.getTime() > now.getTime()) return { state, changed: false };
      let { plan, billing_interval: interval } = state;
      if (state.cancellation_pending) plan = 'free';
      else if (state.scheduled_plan) plan = state.scheduled_plan;
      if (state.scheduled_interval) interval = state.scheduled_interval;
      else if (interval === 'annual' && !state.renewal_pending) interval = 'monthly';
      if (plan === 'free') interval = 'monthly';
      let start = state.period_end;
      let end = periodEnd(start, interval);
      await this.chargeSubscription(tx, tenantId, plan, interval, start);
      // After downtime several periods may have passed: each is entered (and charged) once.
      while (end.getTime() <= now.getTime()) {
        if (interval === 'annual') interval = 'monthly';
        start = end;
        end = periodEnd(start, interval);
        await this.chargeSubscription(tx, tenantId, plan, interval, start);
      }
      const patch: BillingPatch = {
        plan,
        billing_interval: interval,
        period_start: start,
        period_end: end,
        period_included_queries: includedQueries(plan, interval),
        scheduled_plan: null,
        scheduled_interval: null,
        cancellation_pending: false,
        renewal_pending: false,
      };
      await updateBillingState(tx, tenantId, patch);
      await this.scheduleTransition(tx, tenantId, end);
      return { state: { ...state, ...patch }, changed: true };
    });
    if (result.changed) this.engine.notify();
    return result.state;
  }

  /** Runs every transition that is due at the clock's now (catch-up after downtime; tests). */
  async runDueTransitions(): Promise<number> {
    const due = await tenantsWithEndedPeriods(this.db, this.clock.now());
    for (const id of due) await this.rollover(id);
    return due.length;
  }

  private requireEnabled(): void {
    if (!this.options.enabled) {
      throw errors.unavailable('billing_not_available', 'Plan changes are not available on this instance.');
    }
  }

  private parsePlan(plan: string): PlanId {
    if (!isPlanId(plan)) {
      throw errors.unprocessable('invalid_plan', `Unknown plan "${plan}"; use free, payg, standard or enterprise.`, [
        { field: 'body.plan', message: 'must be free, payg, standard or enterprise' },
      ]);
    }
    return plan;
  }

  private requireDetails(state: BillingState, why: string): void {
    if (!state.billing_details) {
      throw errors.conflict('billing_details_required', `Set billing details (PUT /v1/billing/details) before ${why}.`);
    }
  }

  /** Usage above a target plan's limits: the excess must be deleted before moving to it. */
  private async assertFitsPlan(tx: Queryable, state: BillingState, target: PlanId): Promise<void> {
    const limits = limitsFor(target, state.limit_overrides);
    const scope = { tenantId: state.id, subTenantId: null };
    const used = await storageUsage(tx, scope);
    const kbs = await countKnowledgeBases(tx, scope);
    const exceeded = [
      { resource: 'documents', used: used.documents, limit: limits.maxDocuments },
      { resource: 'storage_bytes', used: used.storageBytes, limit: limits.storageBytes },
      { resource: 'chunks', used: used.chunks, limit: limits.maxChunks },
      { resource: 'knowledge_bases', used: kbs, limit: limits.maxKnowledgeBases },
    ].filter((e): e is { resource: string; used: number; limit: number } => e.limit !== null && e.used > e.limit);
    if (exceeded.length) {
      throw errors.unprocessable(
        'exceeds_target_plan_limits',
        `Current usage exceeds the ${target} plan's limits (${exceeded.map((e) => e.resource).join(', ')}); delete the excess first.`,
        exceeded.map((e) => ({ field: `usage.${e.resource}`, message: `${e.used} used; the ${target} plan allows ${e.limit}` })),
        { plan: target, exceeded },
      );
    }
  }

  private async change<T>(tenantId: string, fn: (tx: Queryable, state: BillingState) => Promise<T>): Promise<T> {
    this.requireEnabled();
    await this.current(tenantId);
    return this.db.transaction(async (tx) => {
      const state = await findBillingState(tx, tenantId, true);
      if (!state) throw errors.notFound('tenant');
      return fn(tx, state);
    });
  }

  async upgrade(tenantId: string, planName: string): Promise<{ status: 'upgraded'; plan: PlanId; prorated_queries: number }> {
    const plan = this.parsePlan(planName);
    return this.change(tenantId, async (tx, state) => {
      if (plan === state.plan) throw errors.conflict('already_on_plan', `The tenant is already on the ${plan} plan.`);
      if (comparePlans(plan, state.plan) < 0) {
        throw errors.conflict('use_downgrade_endpoint', `${plan} is below ${state.plan}: use POST /v1/billing/downgrade.`);
      }
      if (state.cancellation_pending) {
        throw errors.conflict('cancellation_pending', 'A cancellation is pending: retract it (DELETE /v1/billing/cancel) first.');
      }
      this.requireDetails(state, `moving to the ${plan} plan`);
      const now = this.clock.now();
      const prorated = proratedQueries(plan, state.billing_interval, state.period_start, state.period_end, now);
      const used = await queriesInPeriod(tx, tenantId, null, state.period_start);
      // The queries already made stay counted; the prorated allowance comes on top of them.
      await updateBillingState(tx, tenantId, { plan, scheduled_plan: null, period_included_queries: used + prorated });
      const remaining = (state.period_end.getTime() - now.getTime()) / (state.period_end.getTime() - state.period_start.getTime());
      const feeDifference = Math.floor((fee(plan, state.billing_interval) - fee(state.plan, state.billing_interval)) * remaining);
      if (feeDifference > 0) {
        await insertUsageEvent(tx, { tenantId, type: 'subscription', quantity: 1, costMicrocents: feeDifference, occurredAt: now });
      }
      return { status: 'upgraded' as const, plan, prorated_queries: prorated };
    });
  }

  async downgrade(tenantId: string, planName: string): Promise<{ status: 'scheduled'; plan: PlanId; effective_at: string }> {
    const plan = this.parsePlan(planName);
    return this.change(tenantId, async (tx, state) => {
      if (plan === state.plan) throw errors.conflict('already_on_plan', `The tenant is already on the ${plan} plan.`);
      if (comparePlans(plan, state.plan) > 0) {
        throw errors.conflict('use_upgrade_endpoint', `${plan} is above ${state.plan}: use POST /v1/billing/upgrade.`);
      }
      if (state.cancellation_pending) {
        throw errors.conflict('cancellation_pending', 'A cancellation is pending: retract it (DELETE /v1/billing/cancel) first.');
      }
      await this.assertFitsPlan(tx, state, plan);
      await updateBillingState(tx, tenantId, { scheduled_plan: plan });
      return { status: 'scheduled' as const, plan, effective_at: state.period_end.toISOString() };
    });
  }

  async cancel(tenantId: string): Promise<{ status: 'cancellation_scheduled'; effective_at: string }> {
    return this.change(tenantId, async (tx, state) => {
      if (state.plan === 'free') throw errors.conflict('already_on_free', 'The tenant is on the free plan; there is nothing to cancel.');
      if (state.cancellation_pending) throw errors.conflict('cancellation_pending', 'A cancellation is already pending.');
      await this.assertFitsPlan(tx, state, 'free');
      await updateBillingState(tx, tenantId, { cancellation_pending: true, scheduled_plan: null });
      return { status: 'cancellation_scheduled' as const, effective_at: state.period_end.toISOString() };
    });
  }

  async retractCancellation(tenantId: string): Promise<{ status: 'cancellation_retracted' }> {
    return this.change(tenantId, async (tx, state) => {
      if (!state.cancellation_pending) throw new AppError(404, 'no_pending_cancellation', 'There is no pending cancellation.');
      await updateBillingState(tx, tenantId, { cancellation_pending: false });
      return { status: 'cancellation_retracted' as const };
    });
  }

  /** Switches between monthly and annual billing at the end of the current period. */
  async setInterval(
    tenantId: string,
    interval: BillingInterval,
  ): Promise<{ status: 'scheduled' | 'unchanged'; billing_interval: BillingInterval; effective_at: string | null }> {
    return this.change(tenantId, async (tx, state) => {
      const pending = state.scheduled_interval ?? state.billing_interval;
      if (pending === interval) return { status: 'unchanged' as const, billing_interval: interval, effective_at: null };
      if (interval === 'annual') {
        if (PLANS[state.plan].monthlyFeeMicrocents === 0) {
          throw errors.conflict('annual_not_available', `The ${state.plan} plan has no fee to bill annually.`);
        }
        this.requireDetails(state, 'switching to annual billing');
      }
      await updateBillingState(tx, tenantId, {
        scheduled_interval: interval === state.billing_interval ? null : interval,
      });
      if (interval === state.billing_interval) {
        return { status: 'unchanged' as const, billing_interval: interval, effective_at: null };
      }
      return { status: 'scheduled' as const, billing_interval: interval, effective_at: state.period_end.toISOString() };
    });
  }

  /** Renews an annual plan for another year from the end of the current one. */
  async renew(tenantId: string): Promise<{ status: 'renewed'; billing_interval: 'annual'; current_period_end: string; renewed_until: string }> {
    return this.change(tenantId, async (tx, state) => {
      if (state.billing_interval !== 'annual') throw errors.conflict('not_annual_plan', 'Only an annual plan can be renewed.');
      await updateBillingState(tx, tenantId, { renewal_pending: true });
      return {
        status: 'renewed' as const,
        billing_interval: 'annual' as const,
        current_period_end: state.period_end.toISOString(),
        renewed_until: periodEnd(state.period_end, 'annual').toISOString(),
      };
    });
  }

  async setDetails(tenantId: string, details: BillingDetails): Promise<BillingDetails> {
    await updateBillingState(this.db, tenantId, { billing_details: details });
    return details;
  }

  async status(tenantId: string) {
    const s = await this.current(tenantId);
    return {
      plan: s.plan,
      billing_interval: s.billing_interval,
      current_period_start: s.period_start.toISOString(),
      current_period_end: s.period_end.toISOString(),
      scheduled_plan: s.cancellation_pending ? 'free' : s.scheduled_plan,
      scheduled_interval: s.scheduled_interval,
      cancellation_pending: s.cancellation_pending,
      renewal_pending: s.renewal_pending,
      billing_details: s.billing_details,
      billing_enabled: this.options.enabled,
    };
  }

  /** The billing usage object of spec §2: the last 30 days, plus the current period's counters. */
  async usage(tenantId: string): Promise<BillingUsage> {
    const state = await this.current(tenantId);
    const now = this.clock.now();
    const totals = await ledgerTotals(this.db, tenantId, new Date(now.getTime() - 30 * DAY_MS));
    const queries = await queriesInPeriod(this.db, tenantId, null, state.period_start);
    const overageRate = PLANS[state.plan].overagePerQueryMicrocents;
    const overage = overageRate === null ? 0 : Math.max(0, queries - state.period_included_queries);
    return {
      plan_type: state.plan,
      included_queries: state.period_included_queries,
      total_requests: totals.requests,
      total_input_tokens: totals.inputTokens,
      total_output_tokens: totals.outputTokens,
      total_cost_microcents: totals.costMicrocents,
      query_count: queries,
      ingestion_chunks: totals.ingestionChunks,
      overage_queries: overage,
      overage_cost_microcents: overage * (overageRate ?? 0),
    };
  }
}
