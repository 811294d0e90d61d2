import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateLimitDecision, RateLimitStore } from '../ports/rate-limit-store.js';
import { LimiterCache } from './rate-limiter-flexible.js';

/** Counters in this process's memory: the embedded topology, where one process serves everything. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly cache = new LimiterCache((points, duration, keyPrefix) => new RateLimiterMemory({ points, duration, keyPrefix }));

  consume(key: string, limit: number, windowSeconds: number, points = 1): Promise<RateLimitDecision> {
    return this.cache.consume(key, limit, windowSeconds, points);
  }
}
