import { AppError } from '../errors.js';
import type { DomainMetrics, RateLimitScope } from '../ports/metrics.js';
import type { RateLimitStore } from '../ports/rate-limit-store.js';

/** One counter: a key's budget of points in a window. */
export interface AttemptBudget {
  key: string;
  points: number;
  windowSeconds: number;
}

/**
 * Limits failed authentication (OAuth client secrets, portal passwords) through the shared
 * rate-limit store: every attempt takes a point from each budget before any secret is checked, and a
 * failure takes `failureCost` points in all. So a budget of 5 × failureCost allows about five wrong
 * guesses in its window (after which even the right secret waits for the window to end) while
 * successes stay cheap. Several budgets over growing windows give a delay that grows with the
 * failures.
 */
export class AttemptLimiter {
  constructor(
    private readonly store: RateLimitStore,
    private readonly failureCost: number,
    /** Refusals are reported as this scope's. */
    private readonly scope: RateLimitScope,
    private readonly metrics: Pick<DomainMetrics, 'rateLimited'>,
  ) {}

  /** Takes the attempt's point; 429 with Retry-After once failures have used up a budget. */
  async admit(budgets: AttemptBudget[], message = 'Too many failed attempts'): Promise<void> {
    for (const budget of budgets) {
      const decision = await this.store.consume(budget.key, budget.points, budget.windowSeconds);
      if (!decision.allowed) {
        this.metrics.rateLimited(this.scope);
        throw new AppError(
          429,
          'rate_limit_exceeded',
          `${message}; retry after ${decision.resetSeconds} s.`,
          {},
          { 'Retry-After': String(decision.resetSeconds) },
        );
      }
    }
  }

  /** Charges a failed attempt the rest of its cost. */
  async fail(budgets: AttemptBudget[]): Promise<void> {
    for (const budget of budgets) await this.store.consume(budget.key, budget.points, budget.windowSeconds, this.failureCost - 1);
  }
}
