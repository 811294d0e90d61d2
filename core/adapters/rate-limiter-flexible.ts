import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitDecision } from '../ports/rate-limit-store.js';

/** The counters' own ceiling (the PostgreSQL store keeps points in an integer column). */
const COUNTER_CEILING = 2_147_483_647;

/**
 * Shared by the memory and PostgreSQL stores: one rate-limiter-flexible limiter per window length,
 * used as a plain fixed-window counter; the limit is compared here, so tenants with different
 * limits (and a limit that support changes) share one count per key and window.
 */
export class LimiterCache {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(private readonly create: (points: number, duration: number, keyPrefix: string) => RateLimiterAbstract) {}

  async consume(key: string, limit: number, windowSeconds: number, points = 1): Promise<RateLimitDecision> {
    let limiter = this.limiters.get(windowSeconds);
    if (!limiter) {
      limiter = this.create(COUNTER_CEILING, windowSeconds, `rl:${windowSeconds}s`);
      this.limiters.set(windowSeconds, limiter);
    }
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(key, points);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      res = rejection;
    }
    const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    const allowed = res.consumedPoints <= limit;
    return { allowed, limit, remaining: Math.max(0, limit - res.consumedPoints), resetSeconds };
  }
}
