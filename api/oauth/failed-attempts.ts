import { AppError } from '../../core/errors.js';
import type { RateLimitStore } from '../../core/ports/rate-limit-store.js';

const WINDOW_SECONDS = 60;
/** Points per minute: per client and address, and per address across clients. */
const BUDGET = { clientAndIp: 30, ip: 300 };
/** A failed authentication costs this many points, a successful one one point. */
const FAILURE_COST = 5;

/**
 * Rate limits failed client (or initial access token) authentication per client and IP address,
 * through the shared rate-limit store: every attempt takes a point before any secret is checked, and
 * a failure takes FAILURE_COST in all. So a client and address get about 6 wrong guesses a minute
 * (after which even the right secret waits for the window to end) while a well-behaved client can
 * still get 30 tokens a minute. Keys include the address, so nobody can lock out a client from
 * elsewhere.
 */
export class FailedAttemptLimiter {
  constructor(private readonly store: RateLimitStore) {}

  private keys(ip: string, clientId: string | undefined): Array<[string, number]> {
    const keys: Array<[string, number]> = [[`oauth:ip:${ip}`, BUDGET.ip]];
    if (clientId !== undefined) keys.push([`oauth:client:${clientId.slice(0, 64)}:${ip}`, BUDGET.clientAndIp]);
    return keys;
  }

  /** Takes the attempt's point; 429 once failures have used up the budget of the window. */
  async admit(ip: string, clientId: string | undefined): Promise<void> {
    for (const [key, limit] of this.keys(ip, clientId)) {
      const decision = await this.store.consume(key, limit, WINDOW_SECONDS);
      if (!decision.allowed) {
        throw new AppError(
          429,
          'rate_limit_exceeded',
          `Too many failed authentication attempts; retry after ${decision.resetSeconds} s.`,
          {},
          { 'Retry-After': String(decision.resetSeconds) },
        );
      }
    }
  }

  /** Charges a failed attempt the rest of its cost. */
  async fail(ip: string, clientId: string | undefined): Promise<void> {
    for (const [key, limit] of this.keys(ip, clientId)) {
      await this.store.consume(key, limit, WINDOW_SECONDS, FAILURE_COST - 1);
    }
  }
}
