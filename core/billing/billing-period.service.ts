import type { Clock } from '../clock.js';
import type { TenantSnapshot } from '../context.js';
import type { Database, Queryable } from '../db/database.js';
import { errors } from '../errors.js';
import type { PlanId } from '../plans.js';
import type { WorkflowEngine } from '../ports/workflow-engine.js';
import type { Scope } from '../shared/scope.js';
import { insertUsageEvent } from '../usage/usage.repository.js';
import { type BillingInterval, includedQueries, periodEnd, subscriptionFee } from './billing-period.js';
import { type BillingPatch, type BillingState, findBillingState, tenantsWithEndedPeriods, updateBillingState } from './billing.repository.js';

export function billingPeriodJobKey(scope: Scope, end: Date): string {
  return `billing_period:${scope.tenantId}:${end.toISOString()}`;
}

/**
 * Billing periods. A period ends at `period_end`; the transition to the next one (applying a
 * scheduled downgrade, cancellation or interval change, renewing the allowance) is a compare-and-set
 * on `period_end` under the tenant's row lock, so it happens exactly once per tenant and period
 * whoever triggers it: the scheduled job, a request that notices the period is over, or a catch-up
 * after downtime.
 */
export class BillingPeriodService {
  constructor(
    private readonly db: Database,
    private readonly engine: WorkflowEngine,
    private readonly clock: Clock,
  ) {}

  /** Starts a new tenant's first period (in the transaction that creates it). */
  async startFirstPeriod(tx: Queryable, scope: Scope, plan: PlanId): Promise<void> {
    const start = this.clock.now();
    const end = periodEnd(start, 'monthly');
    await updateBillingState(tx, scope, {
      period_start: start,
      period_end: end,
      period_included_queries: includedQueries(plan, 'monthly'),
    });
    await this.chargeSubscription(tx, scope, plan, 'monthly', start);
    await this.scheduleTransition(tx, scope, end);
  }

  /** The fee of a period, as a ledger entry. */
  private async chargeSubscription(tx: Queryable, scope: Scope, plan: PlanId, interval: BillingInterval, at: Date): Promise<void> {
    const cost = subscriptionFee(plan, interval);
    if (cost > 0) await insertUsageEvent(tx, { tenantId: scope.tenantId, type: 'subscription', quantity: 1, costMicrocents: cost, occurredAt: at });
  }

  private async scheduleTransition(tx: Queryable, scope: Scope, end: Date): Promise<void> {
    await this.engine.enqueue(tx, {
      type: 'billing_period',
      tenantId: scope.tenantId,
      runAt: end,
      dedupeKey: billingPeriodJobKey(scope, end),
      payload: { period_end: end.toISOString() },
    });
  }

  /** The tenant's billing state with its current period, moving past any period that has ended. */
  async current(scope: Scope): Promise<BillingState> {
    const state = await findBillingState(this.db, scope);
    if (!state) throw errors.notFound('tenant');
    if (state.period_end.getTime() > this.clock.now().getTime()) return state;
    return this.rollover(scope);
  }

  /**
   * The period a request's tenant is in: as its authentication read it (no statement), or, once
   * that period has ended, `current`'s. Reading it in a statement of its own instead gave no more
   * certainty: a transition committed between that statement and the query's count is as possible.
   */
  async ofRequest(tenant: TenantSnapshot): Promise<Pick<BillingState, 'plan' | 'period_start' | 'period_end' | 'period_included_queries'>> {
    if (tenant.period.end.getTime() > this.clock.now().getTime()) {
      return { plan: tenant.plan, period_start: tenant.period.start, period_end: tenant.period.end, period_included_queries: tenant.period.includedQueries };
    }
    return this.current({ tenantId: tenant.id, subTenantId: null });
  }

  /** Moves a tenant into the period containing now, applying scheduled changes once. */
  async rollover(scope: Scope): Promise<BillingState> {
    const now = this.clock.now();
    const result = await this.db.transaction(async (tx) => {
      const state = await findBillingState(tx, scope, true);
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
      await this.chargeSubscription(tx, scope, plan, interval, start);
      // After downtime several periods may have passed: each is entered (and charged) once.
      while (end.getTime() <= now.getTime()) {
        if (interval === 'annual') interval = 'monthly';
        start = end;
        end = periodEnd(start, interval);
        await this.chargeSubscription(tx, scope, plan, interval, start);
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
      await updateBillingState(tx, scope, patch);
      await this.scheduleTransition(tx, scope, end);
      return { state: { ...state, ...patch }, changed: true };
    });
    if (result.changed) this.engine.notify();
    return result.state;
  }

  /** Runs every transition that is due at the clock's now (catch-up after downtime; tests). */
  async runDueTransitions(): Promise<number> {
    const due = await tenantsWithEndedPeriods(this.db, this.clock.now());
    for (const scope of due) await this.rollover(scope);
    return due.length;
  }
}
