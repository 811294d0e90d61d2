import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { PLANS, type PlanId } from '../plans.js';
import type { Scope } from '../shared/scope.js';
import { ledgerTotals, queriesInPeriod } from '../usage/usage.repository.js';
import type { BillingPeriodService } from './billing-period.service.js';
import type { BillingState } from './billing.repository.js';

const DAY_MS = 86_400_000;

/** The billing usage object of spec §2, as figures (billing.presenter.ts gives it its wire names). */
export interface BillingUsage {
  plan: PlanId;
  includedQueries: number;
  totalRequests: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCostMicrocents: number;
  queryCount: number;
  ingestionChunks: number;
  overageQueries: number;
  overageCostMicrocents: number;
}

/** What the tenant's billing looks like now: its state in the current period, and whether plan changes are open. */
export interface BillingStatus {
  state: BillingState;
  enabled: boolean;
}

/** Reports on billing: the current state and the usage that is billed. Changes are PlanChangeService's. */
export class BillingService {
  constructor(
    private readonly db: Database,
    private readonly periods: BillingPeriodService,
    private readonly clock: Clock,
    private readonly options: { enabled: boolean },
  ) {}

  async status(scope: Scope): Promise<BillingStatus> {
    return { state: await this.periods.current(scope), enabled: this.options.enabled };
  }

  /** The last 30 days of the ledger, plus the current period's query counters. */
  async usage(scope: Scope): Promise<BillingUsage> {
    const state = await this.periods.current(scope);
    const now = this.clock.now();
    const totals = await ledgerTotals(this.db, scope, new Date(now.getTime() - 30 * DAY_MS));
    const queries = await queriesInPeriod(this.db, { tenantId: scope.tenantId, subTenantId: null }, state.period_start);
    const overageRate = PLANS[state.plan].overagePerQueryMicrocents;
    const overage = overageRate === null ? 0 : Math.max(0, queries - state.period_included_queries);
    return {
      plan: state.plan,
      includedQueries: state.period_included_queries,
      totalRequests: totals.requests,
      totalInputTokens: totals.inputTokens,
      totalOutputTokens: totals.outputTokens,
      totalCostMicrocents: totals.costMicrocents,
      queryCount: queries,
      ingestionChunks: totals.ingestionChunks,
      overageQueries: overage,
      overageCostMicrocents: overage * (overageRate ?? 0),
    };
  }
}
