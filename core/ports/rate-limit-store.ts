export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends (and the limit is available again). */
  resetSeconds: number;
}

/**
 * Fixed-window counters: `consume` adds `points` (default 1) to `key`'s count in its current
 * window of `windowSeconds`, and allows the request while the count stays within `limit`. The
 * count belongs to the key and window, not to the limit, so changing a limit keeps what was
 * counted. The embedded topology counts in memory; several API processes share a store
 * (PostgreSQL) so they enforce one limit together.
 */
export interface RateLimitStore {
  consume(key: string, limit: number, windowSeconds: number, points?: number): Promise<RateLimitDecision>;
}
