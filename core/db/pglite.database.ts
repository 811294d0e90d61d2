import fs from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Database, QueryResult, Queryable, SqlParam } from './database.js';

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<T>> {
      const res = await target.query<T>(sql, params as unknown[]);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
  };
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in a directory, with pgvector and pg_trgm.
 * `dataDir` `memory://` keeps everything in memory (tests, benchmarks).
 */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith('memory://')) await fs.mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create({ dataDir, extensions: { vector, pg_trgm } });
  const root = wrap(pg);
  return {
    kind: 'embedded',
    ...root,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    async close(): Promise<void> {
      await pg.close();
    },
  };
}
