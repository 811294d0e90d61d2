import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { Database } from '../../core/db/database.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { TableMaintenance } from '../../core/db/table-maintenance.js';
import { pollUntil } from '../support/poll.js';

interface TableState {
  reltuples: number;
  last_analyze: Date | null;
  last_vacuum: Date | null;
  n_dead_tup: number;
}

async function state(db: Database): Promise<TableState> {
  const { rows } = await db.query<TableState>(
    `SELECT c.reltuples, s.last_analyze, s.last_vacuum, s.n_dead_tup
     FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'notes'`,
  );
  return rows[0]!;
}

describe('TableMaintenance (the embedded database has no autovacuum)', () => {
  let db: Database;
  let maintenance: TableMaintenance;

  before(async () => {
    db = await openPgliteDatabase('memory://');
    await db.exec('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)');
    maintenance = new TableMaintenance(db, pino({ level: 'silent' }));
  });

  after(async () => {
    await maintenance.stop();
    await db.close();
  });

  it('analyzes a table once enough rows changed, and leaves it alone until more do', async () => {
    await db.query(`INSERT INTO notes SELECT g, repeat('x', 100) FROM generate_series(1, 1000) g`);
    assert.equal((await state(db)).last_analyze, null);
    await maintenance.run();
    const analyzed = await state(db);
    assert.equal(analyzed.reltuples, 1000, 'the planner now knows the row count');
    assert.ok(analyzed.last_analyze);

    await db.query(`INSERT INTO notes SELECT g, 'y' FROM generate_series(1001, 1040) g`);
    await maintenance.run();
    assert.deepEqual((await state(db)).last_analyze, analyzed.last_analyze, '40 new rows are under 50 + 10%');

    await db.query(`INSERT INTO notes SELECT g, 'z' FROM generate_series(1041, 1200) g`);
    await maintenance.run();
    assert.equal((await state(db)).reltuples, 1200);
  });

  it('vacuums a table once enough rows are dead', async () => {
    await db.query('DELETE FROM notes WHERE id > 200');
    assert.equal((await state(db)).last_vacuum, null);
    await maintenance.run();
    const vacuumed = await state(db);
    assert.ok(vacuumed.last_vacuum);
    assert.equal(vacuumed.n_dead_tup, 0);
    assert.equal(vacuumed.reltuples, 200);
  });

  it('runs on a timer once started, and one pass at a time', async () => {
    await db.query(`INSERT INTO notes SELECT g, 'w' FROM generate_series(5000, 6000) g`);
    const timed = new TableMaintenance(db, pino({ level: 'silent' }), 20);
    timed.start();
    try {
      let reltuples: number | undefined;
      await pollUntil(
        'a timed pass to analyse the table',
        async () => {
          reltuples = (await state(db)).reltuples;
          return reltuples === 1201;
        },
        { timeoutMs: 10_000, intervalMs: 20, lastSeen: () => `reltuples ${reltuples}` },
      );
      assert.equal((await state(db)).reltuples, 1201);
      assert.equal(timed.run(), timed.run(), 'a pass in progress is shared, not started twice');
    } finally {
      await timed.stop();
    }
  });
});

/** A fresh in-memory database for one test, closed afterwards. */
async function withDatabase(test: (db: Database) => Promise<void>): Promise<void> {
  const db = await openPgliteDatabase('memory://');
  try {
    await test(db);
  } finally {
    await db.close();
  }
}

describe('TableMaintenance with its own database per test', () => {
  it('vacuums a table that only grew, which merges its GIN pending list', () =>
    withDatabase(async (db) => {
      await db.exec(`CREATE TABLE docs (id int PRIMARY KEY, tsv tsvector NOT NULL);
                     CREATE INDEX docs_tsv ON docs USING gin (tsv) WITH (fastupdate = on, gin_pending_list_limit = 4096)`);
      await db.query(`INSERT INTO docs SELECT g, to_tsvector('simple', 'word' || g || ' shared text') FROM generate_series(1, 3000) g`);
      const vacuumed = async () =>
        (await db.query<{ v: Date | null }>("SELECT last_vacuum AS v FROM pg_stat_user_tables WHERE relname = 'docs'")).rows[0]!.v;
      assert.equal(await vacuumed(), null, 'no row is dead');
      await new TableMaintenance(db, pino({ level: 'silent' })).run();
      assert.ok(await vacuumed(), '3,000 inserts are over 1,000 + 20%');
      const { rows } = await db.query<{ merged: number }>("SELECT gin_clean_pending_list('docs_tsv') AS merged");
      assert.equal(Number(rows[0]!.merged), 0, 'nothing was left in the pending list');
    }));

  it('vacuums a queue table at its own fixed threshold of dead rows', () =>
    withDatabase(async (db) => {
      await db.exec(`CREATE TABLE queue (id int PRIMARY KEY, done boolean NOT NULL DEFAULT false);
                     ALTER TABLE queue SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 100)`);
      await db.query('INSERT INTO queue SELECT g FROM generate_series(1, 900) g');
      const maintenance = new TableMaintenance(db, pino({ level: 'silent' }));
      await maintenance.run();
      const vacuums = async () =>
        (await db.query<{ n: number }>("SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname = 'queue'")).rows[0]!.n;
      const before = await vacuums();
      // 150 dead rows: under the default 50 + 20% of 900 (230), over the table's own 100.
      await db.query('UPDATE queue SET done = true WHERE id <= 150');
      await maintenance.run();
      assert.equal(await vacuums(), before + 1);
    }));
});
