import type { BillingStatus, BillingUsage } from './billing.service.js';
import type { IntervalChange, PlanChange, Renewal } from './plan-change.service.js';

export function presentBillingUsage(u: BillingUsage) {
  return {
    plan_type: u.plan,
    included_queries: u.includedQueries,
    total_requests: u.totalRequests,
    total_input_tokens: u.totalInputTokens,
    total_output_tokens: u.totalOutputTokens,
    total_cost_microcents: u.totalCostMicrocents,
    query_count: u.queryCount,
    ingestion_chunks: u.ingestionChunks,
    overage_queries: u.overageQueries,
    overage_cost_microcents: u.overageCostMicrocents,
  };
}

export function presentBillingStatus({ state: s, enabled }: BillingStatus) {
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
    billing_enabled: enabled,
  };
}

export function presentPlanChange(change: PlanChange) {
  switch (change.status) {
    case 'upgraded':
      return { status: change.status, plan: change.plan, prorated_queries: change.proratedQueries };
    case 'scheduled':
      return { status: change.status, plan: change.plan, effective_at: change.effectiveAt.toISOString() };
    case 'cancellation_scheduled':
      return { status: change.status, effective_at: change.effectiveAt.toISOString() };
    case 'cancellation_retracted':
      return { status: change.status };
  }
}

export function presentIntervalChange(change: IntervalChange) {
  return { status: change.status, billing_interval: change.billingInterval, effective_at: change.effectiveAt?.toISOString() ?? null };
}

export function presentRenewal(r: Renewal) {
  return {
    status: r.status,
    billing_interval: r.billingInterval,
    current_period_end: r.currentPeriodEnd.toISOString(),
    renewed_until: r.renewedUntil.toISOString(),
  };
}
