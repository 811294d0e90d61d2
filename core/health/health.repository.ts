import type { Queryable } from '../db/database.js';

/** One round trip to the database (readiness). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}

/**
 * Indexed chunks, across every tenant, whose vectors another embedder made (an instance-wide
 * start-up check after a model change). -- unscoped
 */
export async function chunkCountsOfOtherEmbedders(db: Queryable, embedderId: string): Promise<Array<{ embedder: string; chunks: number }>> {
  const { rows } = await db.query<{ embedder: string; chunks: number }>(
    'SELECT embedder, count(*)::int AS chunks FROM chunks WHERE embedder <> $1 GROUP BY embedder ORDER BY embedder',
    [embedderId],
  );
  return rows;
}
