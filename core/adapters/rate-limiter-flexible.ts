import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimitDecision } from '../ports/rate-limit-store.js';

/**
 * Shared by the memory and PostgreSQL stores: one rate-limiter-flexible limiter per (limit, window)
 * pair, created on first use (plans give tenants different limits), and its answer as a decision.
 */
export class LimiterCache {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly create: (points: number, duration: number, keyPrefix: string) => RateLimiterAbstract) {}

  async consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const id = `${limit}/${windowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.create(limit, windowSeconds, `rl:${id}`);
      this.limiters.set(id, limiter);
    }
    try {
      const res = await limiter.consume(key, 1);
      return { allowed: true, limit, remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
  }
}
