import pg from 'pg';
import { BinaryParam, type Database, type QueryResult, type Queryable, type SqlParam } from './database.js';

// int8 (counts, byte sizes) as numbers, as PGlite returns them; our values stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<T>> {
      // node-postgres sends a Buffer in binary format.
      const values = params.map((p) => (p instanceof BinaryParam ? Buffer.from(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength) : p));
      const res = await client.query(sql, values);
      return { rows: res.rows as T[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

/** A PostgreSQL server through a `pg` connection pool. */
export function openPgDatabase(url: string, poolSize = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const root = wrap(pool);
  const db: Database = {
    kind: 'postgres',
    ...root,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    givingWay: () => db,
    async close(): Promise<void> {
      await pool.end();
    },
  };
  return db;
}
