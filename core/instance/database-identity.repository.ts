import type { Queryable } from '../db/database.js';

/** This database's id, made once by its migrations (migrations/0021_database_identity.sql). */
export async function readDatabaseId(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM database_identity');
  if (!rows[0]) throw new Error('database_identity holds no row: the database has no id');
  return rows[0].id;
}
