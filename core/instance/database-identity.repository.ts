import type { Queryable } from '../db/database.js';

/** This database's id, made once by its migrations (migrations/0021_database_identity.sql). */
export async function readDatabaseId(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM database_identity');
  if (!rows[0]) throw new Error('database_identity holds no row: the database has no id');
  return rows[0].id;
}

/** How many times a rebuild rewrote stored chunks' keyword indexes (migrations/0022_keyword_index_generation.sql). */
export async function readKeywordIndexGeneration(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ generation: number }>('SELECT keyword_index_generation AS generation FROM database_identity');
  return rows[0]?.generation ?? 0;
}

/** Counts a rebuild's rewrite of stored keyword indexes, in the rewrite's transaction. */
export async function advanceKeywordIndexGeneration(tx: Queryable): Promise<void> {
  await tx.query('UPDATE database_identity SET keyword_index_generation = keyword_index_generation + 1');
}
