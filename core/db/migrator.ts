import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

// Any constant works; it only has to be the same for every Lore process sharing a database.
const MIGRATION_LOCK_KEY = 7_311_042;

interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(dir: string): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const sql = await fs.readFile(path.join(dir, file), 'utf8');
    migrations.push({
      version: Number.parseInt(file.slice(0, 4), 10),
      name: file.replace(/\.sql$/, ''),
      sql,
      checksum: createHash('sha256').update(sql).digest('hex'),
    });
  }
  return migrations;
}

/**
 * Applies the forward-only migrations in `migrations/` that the database has not seen, each in
 * its own transaction under an advisory lock, so concurrent starters apply each exactly once.
 * An applied migration whose file changed since is refused: history is never rewritten.
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const applied: string[] = [];
  for (const m of await readMigrations(dir)) {
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const { rows } = await tx.query<{ checksum: string }>(
        'SELECT checksum FROM schema_migrations WHERE version = $1',
        [m.version],
      );
      const existing = rows[0];
      if (existing) {
        if (existing.checksum !== m.checksum) {
          throw new Error(`Migration ${m.name} was changed after it was applied; add a new migration instead.`);
        }
        return;
      }
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        m.checksum,
      ]);
      applied.push(m.name);
    });
  }
  return applied;
}
