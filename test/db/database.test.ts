import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR, migrate } from '../../core/db/migrator.js';
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
