import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../core/config.js';
import { ROOT, run, runWorker, startServerProcess, stopServerProcess } from '../support/process.js';

/** Runs statements on the server DATABASE_URL names, through its database. */
async function onServer(url: string, ...statements: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const statement of statements) await admin.query(statement);
  } finally {
    await admin.end();
  }
}

interface Engine {
  name: string;
  /** A new, empty database: the variables that name it, and how to remove it. */
  empty(): Promise<{ env: Record<string, string>; remove(): Promise<void> }>;
}

const config = loadConfig();
const engines: Engine[] = [
  {
    name: 'pglite',
    empty: async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-unmigrated-'));
      return { env: { DATA_DIR: dataDir }, remove: () => fs.rm(dataDir, { recursive: true, force: true }) };
    },
  },
];
if (config.database.kind === 'postgres') {
  const { url } = config.database;
  engines.push({
    name: 'postgres',
    empty: async () => {
      const own = new URL(url);
      own.pathname = `${own.pathname}_unmigrated`;
      const name = pg.escapeIdentifier(own.pathname.slice(1));
      await onServer(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name}`);
      return { env: { DATABASE_URL: own.toString(), ADMIN_TOKEN: 'a'.repeat(32) }, remove: () => onServer(url, `DROP DATABASE ${name} WITH (FORCE)`) };
    },
  });
}

for (const engine of engines) {
  describe(`a process started on a database whose migrations were not run [${engine.name}]`, function () {
    this.timeout(120_000);

    let database: Awaited<ReturnType<Engine['empty']>>;
    before(async () => {
      database = await engine.empty();
    });
    after(() => database.remove());

    it('refuses to start, says how to apply them, and starts once `npm run migrate` has', async () => {
      const env = { ...database.env, MIGRATE_ON_START: 'false' };
      await assert.rejects(
        run(process.execPath, ['--import', 'tsx', 'api/main.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', PORT: '0', ...env } }),
        (err: { code: number; stderr: string }) => {
          assert.equal(err.code, 1);
          assert.match(err.stderr, /^Lore failed to start: the database has \d+ migration\(s\) not applied \(0001_foundation, .*`npm run migrate`.*MIGRATE_ON_START=true/);
          assert.doesNotMatch(err.stderr, /does not exist/);
          return true;
        },
      );
      if (engine.name === 'postgres') {
        await assert.rejects(runWorker({ ...env, WORKFLOW_ENGINE: 'temporal', TEMPORAL_ADDRESS: '127.0.0.1:1' }), (err: { code: number; stderr: string }) => {
          assert.equal(err.code, 1);
          assert.match(err.stderr, /migration\(s\) not applied.*`npm run migrate`/);
          return true;
        });
      }
      const migrated = await run(process.execPath, ['--import', 'tsx', 'core/db/migrate.cli.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
      assert.match(migrated.stdout, /^Applied: 0001_foundation/);
      const server = await startServerProcess(env);
      await stopServerProcess(server);
    });
  });
}
