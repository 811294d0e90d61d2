import fs from 'node:fs/promises';
import { PGlite, type QueryOptions, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { BinaryParam, type Database, type QueryResult, type Queryable, type SqlParam } from './database.js';

/**
 * PGlite serializes a parameter by its type's serializer, or as text when it has none; a
 * Uint8Array that reaches the wire is sent in binary format. Binary parameters get serializers
 * that pass their bytes through, whatever type the server gave them; others keep PGlite's.
 */
function binaryAware(pg: PGlite, params: readonly SqlParam[]): QueryOptions | undefined {
  if (!params.some((p) => p instanceof BinaryParam)) return undefined;
  const serializers = new Proxy({}, {
    get: (_target, oid: string) => (value: unknown) =>
      value instanceof BinaryParam ? value.bytes : (pg.serializers[oid] ?? String)(value),
  });
  return { serializers };
}

/** Of every this many turns in a row, one goes to work giving way when some waits. */
const GIVING_WAY_TURN_EVERY = 4;

/**
 * Statements and transactions one at a time, each after a turn of the event loop (a free connection
 * has had one since its last statement: what finds it free runs at once). PGlite runs a
 * statement synchronously on this thread and hands its lock to the next waiter in a promise
 * callback, so under load its queue would run back to back, for tens of milliseconds, without a
 * socket being read; with a turn before each, a health check or a small request is read between two
 * statements rather than after the queue. The next statement is chosen after that turn: the oldest
 * of other work's, before those of work giving way (Database.givingWay: queries, jobs), so a
 * request just read waits for one statement, not for several queries'; but every
 * GIVING_WAY_TURN_EVERY-th turn goes to the oldest statement giving way, so none is starved.
 */
class TurnTaking {
  private readonly waiting = { first: [] as Array<() => void>, givingWay: [] as Array<() => void> };
  private busy = false;
  private turnsSinceGivingWay = 0;

  async run<T>(work: () => Promise<T>, givingWay: boolean): Promise<T> {
    // A free connection has seen the loop turn since its last statement: the statement runs at once.
    if (this.busy) {
      await new Promise<void>((resolve) => (givingWay ? this.waiting.givingWay : this.waiting.first).push(resolve));
    } else {
      this.busy = true;
      this.count(givingWay);
    }
    try {
      return await work();
    } finally {
      this.next();
    }
  }

  /** Hands the connection to the next waiter after a turn of the event loop, or marks it free. */
  private next(): void {
    setImmediate(() => {
      const { first, givingWay } = this.waiting;
      const theirTurn = givingWay.length > 0 && (first.length === 0 || this.turnsSinceGivingWay >= GIVING_WAY_TURN_EVERY - 1);
      const resolve = theirTurn ? givingWay.shift() : first.shift();
      if (!resolve) {
        this.busy = false;
        return;
      }
      this.count(theirTurn);
      resolve();
    });
  }

  private count(givingWay: boolean): void {
    this.turnsSinceGivingWay = givingWay ? 0 : this.turnsSinceGivingWay + 1;
  }
}

type InTurn = <T>(work: () => Promise<T>) => Promise<T>;

function wrap(target: PGlite | Transaction, pg: PGlite, inTurn: InTurn = (work) => work()): Queryable {
  return {
    async query<T>(sql: string, params: readonly SqlParam[] = []): Promise<QueryResult<T>> {
      const res = await inTurn(() => target.query<T>(sql, params as unknown[], binaryAware(pg, params)));
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await inTurn(() => target.exec(sql));
    },
  };
}

export interface PgliteOptions {
  /**
   * PostgreSQL's buffer cache (`shared_buffers`, e.g. '128MB'), held in memory from the start.
   * Searches read the HNSW graph through it: the graph of 100,000 1024-dimension chunks takes
   * ~780 MB, and vector search there took 82 ms (p50) at 128MB and 31 ms at 1GB. WebAssembly
   * memory ends at 4 GB, so 2GB no longer starts.
   */
  sharedBuffers?: string;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) in a directory, with pgvector and pg_trgm.
 * `dataDir` `memory://` keeps everything in memory (tests, benchmarks).
 */
export async function openPgliteDatabase(dataDir: string, options: PgliteOptions = {}): Promise<Database> {
  if (!dataDir.startsWith('memory://')) await fs.mkdir(dataDir, { recursive: true });
  const pg = await PGlite.create({
    dataDir,
    extensions: { vector, pg_trgm },
    ...(options.sharedBuffers ? { postgresqlconf: [`shared_buffers = '${options.sharedBuffers}'`] } : {}),
  });
  const turns = new TurnTaking();
  // Statements inside a transaction run in its turn.
  const view = (givingWay: boolean): Database => {
    const inTurn: InTurn = (work) => turns.run(work, givingWay);
    return {
      kind: 'embedded',
      ...wrap(pg, pg, inTurn),
      transaction: (fn) => inTurn(() => pg.transaction((tx) => fn(wrap(tx, pg)))),
      givingWay: () => givingWayView,
      close: () => pg.close(),
    };
  };
  const givingWayView = view(true);
  return view(false);
}
