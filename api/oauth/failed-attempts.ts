import { type AttemptBudget, AttemptLimiter } from '../../core/shared/attempt-limiter.js';
import type { DomainMetrics } from '../../core/ports/metrics.js';
import type { RateLimitStore } from '../../core/ports/rate-limit-store.js';

const WINDOW_SECONDS = 60;
/** Points per minute: per client and address, and per address across clients. */
const BUDGET = { clientAndIp: 30, ip: 300 };
/** A failed authentication costs this many points, a successful one one point. */
const FAILURE_COST = 5;

/**
 * Failed client (or initial access token) authentication per client and IP address: a client and
 * address get about 6 wrong guesses a minute while a well-behaved client can still get 30 tokens a
 * minute. Keys include the address, so nobody can lock out a client from elsewhere.
 */
export class FailedAttemptLimiter {
  private readonly limiter: AttemptLimiter;

  constructor(store: RateLimitStore, metrics: Pick<DomainMetrics, 'rateLimited'>) {
    this.limiter = new AttemptLimiter(store, FAILURE_COST, 'oauth_authentication', metrics);
  }

  private budgets(ip: string, clientId: string | undefined): AttemptBudget[] {
    const budgets: AttemptBudget[] = [{ key: `oauth:ip:${ip}`, points: BUDGET.ip, windowSeconds: WINDOW_SECONDS }];
    if (clientId !== undefined) budgets.push({ key: `oauth:client:${clientId.slice(0, 64)}:${ip}`, points: BUDGET.clientAndIp, windowSeconds: WINDOW_SECONDS });
    return budgets;
  }

  admit(ip: string, clientId: string | undefined): Promise<void> {
    return this.limiter.admit(this.budgets(ip, clientId), 'Too many failed authentication attempts');
  }

  fail(ip: string, clientId: string | undefined): Promise<void> {
    return this.limiter.fail(this.budgets(ip, clientId));
  }
}
