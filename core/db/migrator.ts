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

/** The migrations in `dir` this database has not applied (every one, on a new database). */
export async function pendingMigrations(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const { rows } = await db.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  const applied = new Set<number>();
  if (rows[0]?.present) {
    for (const r of (await db.query<{ version: number }>('SELECT version FROM schema_migrations')).rows) applied.add(r.version);
  }
  return (await readMigrations(dir)).filter((m) => !applied.has(m.version)).map((m) => m.name);
}

/** A process started on a database whose schema is behind its code: what to run is in the message. */
export class SchemaBehindError extends Error {}

/**
 * What every process that serves from the database does first: applies the pending migrations
 * (`migrateOnStart`: MIGRATE_ON_START, the embedded default), or refuses to start on a schema
 * that lacks some, saying how to apply them, instead of failing later on a missing table.
 */
export async function prepareSchema(db: Database, migrateOnStart: boolean): Promise<string[]> {
  if (migrateOnStart) return migrate(db);
  const pending = await pendingMigrations(db);
  if (pending.length) {
    const which = pending.length > 3 ? `${pending.slice(0, 3).join(', ')} and ${pending.length - 3} more` : pending.join(', ');
    throw new SchemaBehindError(
      `the database has ${pending.length} migration(s) not applied (${which}). Apply them with \`npm run migrate\` ` +
        '(the same DATABASE_URL), or start with MIGRATE_ON_START=true.',
    );
  }
  return [];
}
