import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../db/database.js';
import { AppError, errors } from '../errors.js';
import { type PlanId, PLANS, isPlanId, limitsFor } from '../plans.js';
import type { QuotaService } from '../quotas/quota.service.js';
import type { Scope } from '../shared/scope.js';
import { insertUsageEvent, queriesInPeriod } from '../usage/usage.repository.js';
import { type BillingInterval, comparePlans, periodEnd, proratedQueries, subscriptionFee } from './billing-period.js';
import type { BillingPeriodService } from './billing-period.service.js';
import { type BillingDetails, type BillingState, findBillingState, updateBillingState } from './billing.repository.js';

/** The outcome of a plan change, for its presenter (billing.presenter.ts). */
export type PlanChange =
  | { status: 'upgraded'; plan: PlanId; proratedQueries: number }
  | { status: 'scheduled'; plan: PlanId; effectiveAt: Date }
  | { status: 'cancellation_scheduled'; effectiveAt: Date }
  | { status: 'cancellation_retracted' };

export interface IntervalChange {
  status: 'scheduled' | 'unchanged';
  billingInterval: BillingInterval;
  effectiveAt: Date | null;
}

export interface Renewal {
  status: 'renewed';
  billingInterval: 'annual';
  currentPeriodEnd: Date;
  renewedUntil: Date;
}

/**
 * Plan changes (spec §4, "Usage and billing"): an upgrade takes effect at once with prorated
 * included queries; a downgrade or cancellation is scheduled for the period's end and refused while
 * usage exceeds the target plan; annual billing starts with the next period. Each change runs under
 * the tenant's row lock, after any ended period has been moved past.
 */
export class PlanChangeService {
  constructor(
    private readonly db: Database,
    private readonly periods: BillingPeriodService,
    private readonly quotas: QuotaService,
    private readonly clock: Clock,
    private readonly options: { enabled: boolean },
  ) {}

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
  private async assertFitsPlan(tx: Queryable, scope: Scope, state: BillingState, target: PlanId): Promise<void> {
    const exceeded = await this.quotas.exceededLimits(tx, scope, limitsFor(target, state.limit_overrides));
    if (exceeded.length) {
      throw errors.unprocessable(
        'exceeds_target_plan_limits',
        `Current usage exceeds the ${target} plan's limits (${exceeded.map((e) => e.resource).join(', ')}); delete the excess first.`,
        exceeded.map((e) => ({ field: `usage.${e.resource}`, message: `${e.used} used; the ${target} plan allows ${e.limit}` })),
        { plan: target, exceeded },
      );
    }
  }

  private async change<T>(scope: Scope, fn: (tx: Queryable, state: BillingState) => Promise<T>): Promise<T> {
    this.requireEnabled();
    await this.periods.current(scope);
    return this.db.transaction(async (tx) => {
      const state = await findBillingState(tx, scope, true);
      if (!state) throw errors.notFound('tenant');
      return fn(tx, state);
    });
  }

  private refuseWhileCancelling(state: BillingState): void {
    if (state.cancellation_pending) {
      throw errors.conflict('cancellation_pending', 'A cancellation is pending: retract it (DELETE /v1/billing/cancel) first.');
    }
  }

  async upgrade(scope: Scope, planName: string): Promise<PlanChange> {
    const plan = this.parsePlan(planName);
    return this.change(scope, async (tx, state) => {
      if (plan === state.plan) throw errors.conflict('already_on_plan', `The tenant is already on the ${plan} plan.`);
      if (comparePlans(plan, state.plan) < 0) {
        throw errors.conflict('use_downgrade_endpoint', `${plan} is below ${state.plan}: use POST /v1/billing/downgrade.`);
      }
      this.refuseWhileCancelling(state);
      this.requireDetails(state, `moving to the ${plan} plan`);
      const now = this.clock.now();
      const prorated = proratedQueries(plan, state.billing_interval, state.period_start, state.period_end, now);
      const used = await queriesInPeriod(tx, scope, state.period_start);
      // The queries already made stay counted; the prorated allowance comes on top of them.
      await updateBillingState(tx, scope, { plan, scheduled_plan: null, period_included_queries: used + prorated });
      // The fee difference for the rest of the period.
      const remaining = (state.period_end.getTime() - now.getTime()) / (state.period_end.getTime() - state.period_start.getTime());
      const feeDifference = Math.floor((subscriptionFee(plan, state.billing_interval) - subscriptionFee(state.plan, state.billing_interval)) * remaining);
      if (feeDifference > 0) {
        await insertUsageEvent(tx, { tenantId: scope.tenantId, type: 'subscription', quantity: 1, costMicrocents: feeDifference, occurredAt: now });
      }
      return { status: 'upgraded' as const, plan, proratedQueries: prorated };
    });
  }

  async downgrade(scope: Scope, planName: string): Promise<PlanChange> {
    const plan = this.parsePlan(planName);
    return this.change(scope, async (tx, state) => {
      if (plan === state.plan) throw errors.conflict('already_on_plan', `The tenant is already on the ${plan} plan.`);
      if (comparePlans(plan, state.plan) > 0) {
        throw errors.conflict('use_upgrade_endpoint', `${plan} is above ${state.plan}: use POST /v1/billing/upgrade.`);
      }
      this.refuseWhileCancelling(state);
      await this.assertFitsPlan(tx, scope, state, plan);
      await updateBillingState(tx, scope, { scheduled_plan: plan });
      return { status: 'scheduled' as const, plan, effectiveAt: state.period_end };
    });
  }

  async cancel(scope: Scope): Promise<PlanChange> {
    return this.change(scope, async (tx, state) => {
      if (state.plan === 'free') throw errors.conflict('already_on_free', 'The tenant is on the free plan; there is nothing to cancel.');
      if (state.cancellation_pending) throw errors.conflict('cancellation_pending', 'A cancellation is already pending.');
      await this.assertFitsPlan(tx, scope, state, 'free');
      await updateBillingState(tx, scope, { cancellation_pending: true, scheduled_plan: null });
      return { status: 'cancellation_scheduled' as const, effectiveAt: state.period_end };
    });
  }

  async retractCancellation(scope: Scope): Promise<PlanChange> {
    return this.change(scope, async (tx, state) => {
      if (!state.cancellation_pending) throw new AppError(404, 'no_pending_cancellation', 'There is no pending cancellation.');
      await updateBillingState(tx, scope, { cancellation_pending: false });
      return { status: 'cancellation_retracted' as const };
    });
  }

  /** Switches between monthly and annual billing at the end of the current period. */
  async setInterval(scope: Scope, interval: BillingInterval): Promise<IntervalChange> {
    return this.change(scope, async (tx, state) => {
      const unchanged = { status: 'unchanged' as const, billingInterval: interval, effectiveAt: null };
      if ((state.scheduled_interval ?? state.billing_interval) === interval) return unchanged;
      if (interval === 'annual') {
        if (PLANS[state.plan].monthlyFeeMicrocents === 0) {
          throw errors.conflict('annual_not_available', `The ${state.plan} plan has no fee to bill annually.`);
        }
        this.requireDetails(state, 'switching to annual billing');
      }
      await updateBillingState(tx, scope, { scheduled_interval: interval === state.billing_interval ? null : interval });
      if (interval === state.billing_interval) return unchanged;
      return { status: 'scheduled' as const, billingInterval: interval, effectiveAt: state.period_end };
    });
  }

  /** Renews an annual plan for another year from the end of the current one. */
  async renew(scope: Scope): Promise<Renewal> {
    return this.change(scope, async (tx, state) => {
      if (state.billing_interval !== 'annual') throw errors.conflict('not_annual_plan', 'Only an annual plan can be renewed.');
      await updateBillingState(tx, scope, { renewal_pending: true });
      return {
        status: 'renewed' as const,
        billingInterval: 'annual' as const,
        currentPeriodEnd: state.period_end,
        renewedUntil: periodEnd(state.period_end, 'annual'),
      };
    });
  }

  async setDetails(scope: Scope, details: BillingDetails): Promise<BillingDetails> {
    await updateBillingState(this.db, scope, { billing_details: details });
    return details;
  }
}
