import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Database } from '../db/database.js';
import type { RateLimitDecision, RateLimitStore } from '../ports/rate-limit-store.js';
import { LimiterCache } from './rate-limiter-flexible.js';

/**
 * Counters in the `rate_limits` table (created by a migration), so every API process on the same
 * database enforces one shared limit. Each consume is one atomic upsert.
 */
/** Expired counters are deleted at most this often, by whichever request comes along. */
const CLEANUP_INTERVAL_MS = 5 * 60_000;

export class PostgresRateLimitStore implements RateLimitStore {
  private readonly cache: LimiterCache;
  private lastCleanup = Date.now();

  constructor(private readonly db: Database) {
    // The library speaks to a node-postgres-like client; the Database port provides the query.
    const storeClient = {
      query: (q: { text: string; values?: unknown[] }) => db.query(q.text, (q.values ?? []) as never),
    };
    this.cache = new LimiterCache(
      (points, duration, keyPrefix) =>
        new RateLimiterPostgres({
          storeClient,
          storeType: 'pool',
          tableName: 'rate_limits',
          tableCreated: true,
          clearExpiredByTimeout: false,
          points,
          duration,
          keyPrefix,
        }),
    );
  }

  consume(key: string, limit: number, windowSeconds: number, points = 1): Promise<RateLimitDecision> {
    if (Date.now() - this.lastCleanup > CLEANUP_INTERVAL_MS) {
      this.lastCleanup = Date.now();
      // Best effort: a failed cleanup is retried at the next interval.
      this.db.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now()]).catch(() => undefined);
    }
    return this.cache.consume(key, limit, windowSeconds, points);
  }
}
