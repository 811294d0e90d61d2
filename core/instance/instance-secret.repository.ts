import type { Queryable } from '../db/database.js';

/**
 * An instance-wide secret shared by every API process on the database: the stored one, or
 * `candidate` if there was none (concurrent first starters agree on whichever was stored first).
 */
export async function ensureInstanceSecret(db: Queryable, name: string, candidate: Buffer): Promise<Buffer> {
  await db.query('INSERT INTO instance_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, candidate]);
  const { rows } = await db.query<{ secret: Uint8Array }>('SELECT secret FROM instance_secrets WHERE name = $1', [name]);
  return Buffer.from(rows[0]!.secret);
}
