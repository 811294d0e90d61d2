export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (and the limit is available again). */
  resetSeconds: number;
}

/**
 * Fixed-window counters: `consume` takes one point from `key`'s window of `windowSeconds` that
 * admits `limit` points. The embedded topology counts in memory; several API processes share a
 * store (PostgreSQL) so they enforce one limit together.
 */
export interface RateLimitStore {
  consume(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
}
