/**
 * The Database port. Two adapters speak the same PostgreSQL dialect: PGlite (embedded, in
 * DATA_DIR) and a `pg` pool (DATABASE_URL). Only repositories and the migrator use it.
 */
export type SqlParam = string | number | boolean | null | Date | Buffer | BinaryParam | readonly unknown[] | object;

/**
 * A parameter sent in PostgreSQL's binary format: the bytes are what the parameter type's
 * receive function reads (e.g. pgvector's vector[]), so the server does not parse text.
 */
export class BinaryParam {
  constructor(readonly bytes: Uint8Array) {}
}

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<QueryResult<T>>;
  /** Runs a multi-statement script without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'embedded' | 'postgres';
  /** Runs `fn` in a transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * The same database, for work whose statements give way to other work's where statements run one
   * at a time (PGlite): queries and background work (jobs, loading indexes, maintenance), so that a
   * health check, a document upload or a list waits for one of their statements, not for a queue.
   * A pool (PostgreSQL) runs statements side by side and returns itself.
   */
  givingWay(): Database;
  close(): Promise<void>;
}
