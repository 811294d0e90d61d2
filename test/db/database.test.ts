import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, migrate } from '../../core/db/migrator.js';
import type { Queryable } from '../../core/db/database.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { testDatabases } from '../support/databases.js';

for (const database of testDatabases()) {
  describe(`Database port [${database.name}]`, () => {
    it('commits a transaction that resolves and rolls back one that throws', async () => {
      const db = await database.get();
      const name = `tx-${Date.now()}`;
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO tenants (name, plan) VALUES ($1, 'free')", [`${name}-kept`]);
      });
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO tenants (name, plan) VALUES ($1, 'free')", [`${name}-dropped`]);
          throw new Error('boom');
        }),
        /boom/,
      );
      const { rows } = await db.query<{ name: string }>('SELECT name FROM tenants WHERE name LIKE $1 ORDER BY name', [`${name}%`]);
      assert.deepEqual(rows.map((r) => r.name), [`${name}-kept`]);
    });

    it('gives work giving way the same database: what one writes, the other reads', async () => {
      const db = await database.get();
      const name = `giving-way-${Date.now()}`;
      await db.givingWay().transaction(async (tx) => {
        await tx.query("INSERT INTO tenants (name, plan) VALUES ($1, 'free')", [name]);
      });
      const { rows } = await db.query<{ n: number }>('SELECT count(*) AS n FROM tenants WHERE name = $1', [name]);
      assert.equal(rows[0]!.n, 1);
      assert.equal(db.givingWay().kind, db.kind);
    });

    it('returns counts and bigints as numbers and timestamps as Dates on both engines', async () => {
      const db = await database.get();
      const { rows } = await db.query<{ n: number; b: number; t: Date; j: { a: number } }>(
        `SELECT count(*) AS n, 5000000000::bigint AS b, now() AS t, '{"a":1}'::jsonb AS j`,
      );
      assert.equal(rows[0]!.n, 1);
      assert.equal(rows[0]!.b, 5_000_000_000);
      assert.ok(rows[0]!.t instanceof Date);
      assert.deepEqual(rows[0]!.j, { a: 1 });
    });

    it('applies migrations once; re-running is a no-op', async () => {
      const db = await database.get();
      assert.deepEqual(await migrate(db), []);
      const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
      const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).map((f) => f.replace('.sql', ''));
      assert.deepEqual(rows.map((r) => r.name), files.sort());
    });

    it('refuses a migration whose file changed after it was applied', async () => {
      const db = await database.get();
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-migrations-'));
      try {
        for (const f of await fs.readdir(MIGRATIONS_DIR)) await fs.copyFile(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
        await fs.appendFile(path.join(dir, '0001_foundation.sql'), '\n-- edited\n');
        await assert.rejects(migrate(db, dir), /0001_foundation was changed after it was applied/);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    });
  });
}

describe('PGlite options', () => {
  it('sizes the buffer cache as configured', async function () {
    this.timeout(60_000);
    const db = await openPgliteDatabase('memory://', { sharedBuffers: '64MB' });
    try {
      const { rows } = await db.query<{ shared_buffers: string }>('SHOW shared_buffers');
      assert.equal(rows[0]!.shared_buffers, '64MB');
    } finally {
      await db.close();
    }
  });
});

describe('PGlite turn-taking', () => {
  let db: Awaited<ReturnType<typeof openPgliteDatabase>>;
  before(async function () {
    this.timeout(60_000);
    db = await openPgliteDatabase('memory://');
  });
  after(() => db.close());

  it('lets a timer that falls due run between two queued statements, not after the queue', async () => {
    const statements = 30;
    let done = 0;
    let doneWhenTimerRan = -1;
    const queue = Array.from({ length: statements }, () =>
      db.query('SELECT count(*) FROM generate_series(1, 30000)').then(() => {
        done += 1;
      }),
    );
    setTimeout(() => {
      doneWhenTimerRan = done;
    }, 0);
    await Promise.all(queue);
    assert.ok(doneWhenTimerRan >= 0 && doneWhenTimerRan < statements / 2, `the timer ran after ${doneWhenTimerRan} of ${statements} statements`);
  });

  it('runs statements and transactions in the order asked; one that fails does not hold up the next', async () => {
    await db.exec('CREATE TEMP TABLE turns (n int)');
    const insert = (n: number) => db.query('INSERT INTO turns (n) VALUES ($1)', [n]);
    const asked = [
      insert(1),
      db.query('SELECT 1 / 0'),
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO turns (n) VALUES (2)');
        await tx.query('INSERT INTO turns (n) VALUES (3)');
      }),
      insert(4),
    ];
    const settled = await Promise.allSettled(asked);
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const { rows } = await db.query<{ n: number }>('SELECT n FROM turns ORDER BY ctid');
    assert.deepEqual(rows.map((r) => r.n), [1, 2, 3, 4]);
  });

  it('runs a statement of other work before statements of work giving way that waited longer', async () => {
    const finished: string[] = [];
    const statement = (on: Queryable, name: string) =>
      on.query('SELECT count(*) FROM generate_series(1, 3000)').then(() => void finished.push(name));
    const givingWay = Array.from({ length: 8 }, (_, i) => statement(db.givingWay(), `giving way ${i}`));
    const other = statement(db, 'other');
    await Promise.all([...givingWay, other]);
    // The count of turns since work giving way last had one carries over from earlier statements.
    assert.ok(finished.indexOf('other') <= 1, `finished in the order ${finished.join(', ')}`);
  });

  it('gives work giving way one turn in four while other work keeps the connection busy', async () => {
    const finished: string[] = [];
    const statement = (on: Queryable, name: string) => on.query('SELECT 1').then(() => void finished.push(name));
    const givingWay = db.givingWay();
    await Promise.all([
      statement(givingWay, 'giving way 0'),
      givingWay.transaction(async (tx) => {
        await tx.query('SELECT 1');
        finished.push('giving way 1');
      }),
      statement(givingWay, 'giving way 2'),
      ...Array.from({ length: 12 }, (_, i) => statement(db, `other ${i}`)),
    ]);
    const [first, ...rest] = finished.flatMap((name, i) => (name.startsWith('giving way') ? [i] : []));
    assert.ok(first !== undefined && first <= 3, `finished in the order ${finished.join(', ')}`);
    assert.deepEqual(rest, [first + 4, first + 8], `finished in the order ${finished.join(', ')}`);
    assert.deepEqual(finished.filter((name) => name.startsWith('giving way')), ['giving way 0', 'giving way 1', 'giving way 2']);
  });
});
