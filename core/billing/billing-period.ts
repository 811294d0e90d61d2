import type { PlanId } from '../plans.js';
import { PLANS } from '../plans.js';

export type BillingInterval = 'monthly' | 'annual';

const PLAN_RANK: Record<PlanId, number> = { free: 0, payg: 1, standard: 2, enterprise: 3 };

/** Plans in order of what they offer: an upgrade moves up this order, a downgrade down. */
export function comparePlans(a: PlanId, b: PlanId): number {
  return PLAN_RANK[a] - PLAN_RANK[b];
}

/** Adds calendar months in UTC; a day that does not exist in the target month becomes its last day. */
export function addMonths(date: Date, months: number): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(y, m, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
}

export function periodEnd(start: Date, interval: BillingInterval): Date {
  return addMonths(start, interval === 'annual' ? 12 : 1);
}

/** The fee of a whole period: the plan's monthly fee, times 12 for an annual period. */
export function subscriptionFee(plan: PlanId, interval: BillingInterval): number {
  return PLANS[plan].monthlyFeeMicrocents * (interval === 'annual' ? 12 : 1);
}

/** Queries included in a whole period: the plan's monthly amount, times 12 for an annual period. */
export function includedQueries(plan: PlanId, interval: BillingInterval): number {
  return PLANS[plan].includedQueriesPerMonth * (interval === 'annual' ? 12 : 1);
}

/**
 * Included queries an upgrade adds for the rest of the current period:
 * floor(target plan's included queries for a whole period × remaining time / period length).
 */
export function proratedQueries(plan: PlanId, interval: BillingInterval, start: Date, end: Date, now: Date): number {
  const total = end.getTime() - start.getTime();
  const remaining = Math.min(Math.max(end.getTime() - now.getTime(), 0), total);
  return total > 0 ? Math.floor((includedQueries(plan, interval) * remaining) / total) : 0;
}
