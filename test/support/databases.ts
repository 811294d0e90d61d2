import { loadConfig } from '../../core/config.js';
import type { Database } from '../../core/db/database.js';
import { migrate } from '../../core/db/migrator.js';
import { openPgDatabase } from '../../core/db/pg.database.js';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';

/**
 * The databases the database-facing suites run against: PGlite always, and the PostgreSQL
 * server named by DATABASE_URL when it is set. Each is opened and migrated once per test run
 * (a new PGlite takes seconds to initialise); suites isolate themselves with fresh tenants.
 */
export interface TestDatabase {
  name: 'pglite' | 'postgres';
  get(): Promise<Database>;
}

const opened = new Map<string, Promise<Database>>();

function lazily(name: string, open: () => Promise<Database>): () => Promise<Database> {
  return () => {
    let db = opened.get(name);
    if (!db) {
      db = open().then(async (d) => {
        await migrate(d);
        return d;
      });
      opened.set(name, db);
    }
    return db;
  };
}

export function testDatabases(): TestDatabase[] {
  const list: TestDatabase[] = [{ name: 'pglite', get: lazily('pglite', () => openPgliteDatabase('memory://')) }];
  const config = loadConfig();
  if (config.database.kind === 'postgres') {
    const { url } = config.database;
    list.push({ name: 'postgres', get: lazily('postgres', () => Promise.resolve(openPgDatabase(url, 10))) });
  }
  return list;
}

export async function closeTestDatabases(): Promise<void> {
  const all = [...opened.values()];
  opened.clear();
  await Promise.all(all.map(async (p) => (await p).close()));
}
