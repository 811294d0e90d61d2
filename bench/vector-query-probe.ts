import type { Database, Queryable, SqlParam } from '../core/db/database.js';

/**
 * A view of the database for a PgVectorIndex that records the statement of its HNSW transaction
 * (to EXPLAIN it later). It recognises the HNSW transaction by the adapter's `SET LOCAL hnsw.…` statement.
 */
export class VectorQueryProbe {
  last: { settings: string; sql: string; params: readonly SqlParam[] } | undefined;

  constructor(private readonly db: Database) {}

  database(): Database {
    const db = this.db;
    return {
      kind: db.kind,
      query: (sql, params) => db.query(sql, params),
      exec: (sql) => db.exec(sql),
      close: () => db.close(),
      givingWay: () => db.givingWay(),
      transaction: (fn) =>
        db.transaction((tx) => {
          let settings = '';
          const probed: Queryable = {
            query: (sql, params) => {
              if (settings) this.last = { settings, sql, params: params ?? [] };
              return tx.query(sql, params);
            },
            exec: (sql) => {
              if (sql.startsWith('SET LOCAL hnsw.')) settings = sql;
              return tx.exec(sql);
            },
          };
          return fn(probed);
        }),
    };
  }

  /** The plan nodes of the last HNSW-mode statement on one line, e.g. "Sort > Limit > Index Scan using …". */
  async planSummary(): Promise<string> {
    const lines = await this.explain();
    const nodes = lines.filter((l) => /Scan|Sort|Limit/.test(l) && !/Sort (Key|Method)/.test(l)).map((l) => l.replace(/^\s*(->\s*)?/, '').replace(/\s*\(actual.*$/, ''));
    const time = lines.find((l) => l.includes('Execution Time'))?.trim() ?? '';
    return `${nodes.join(' > ')}; ${time}`;
  }

  /** EXPLAIN ANALYZE of the last HNSW-mode statement, reduced to its plan nodes and timings. */
  async explain(): Promise<string[]> {
    const last = this.last;
    if (!last) return ['(no HNSW-mode vector query was sent: the exact-scan threshold applied)'];
    const rows = await this.db.transaction(async (tx) => {
      await tx.exec(last.settings);
      return (await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${last.sql}`, last.params)).rows;
    });
    return rows
      .map((r) => r['QUERY PLAN'])
      .filter((line) => /Scan|Sort|Limit|Buffers: shared|Execution Time|Rows Removed/.test(line) && !/Sort (Key|Method)/.test(line))
      .map((line) => line.replace(/'\[[^\]]{40,}\]'/g, "'[…]'").replace(/\(cost=[^)]*\)\s*/g, '').trimEnd());
  }
}
