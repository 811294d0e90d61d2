import pg from 'pg';
import { closeTestDatabases } from './databases.js';

/**
 * Mocha's root hooks (`--require`), made once per process.
 *
 * Run serially, the suites share one PGlite and the PostgreSQL database DATABASE_URL names, each
 * opened and migrated once, and closed after every suite has run.
 *
 * Run in parallel (`npm test` does: `parallel` and `jobs` in .mocharc.json), every worker process
 * runs whole files, one at a time, and gets a PostgreSQL database of its own, `<database>_w<N>`
 * (N is Mocha's MOCHA_WORKER_ID), made afresh from nothing and named in DATABASE_URL before any
 * suite reads its configuration: the processes a suite starts are given that URL, and a job runner
 * in one worker never claims another worker's jobs. Root `afterAll` hooks run after every file in
 * parallel mode, so the databases stay open until the worker ends.
 */
export async function mochaHooks(): Promise<Mocha.RootHookObject> {
  const worker = process.env.MOCHA_WORKER_ID;
  if (worker === undefined) return { afterAll: closeTestDatabases };
  const shared = process.env.DATABASE_URL;
  if (shared) process.env.DATABASE_URL = await workerDatabase(shared, `_w${worker}`);
  return {};
}

/** Drops and creates the database named like `url`'s with `suffix`; returns its URL. */
async function workerDatabase(url: string, suffix: string): Promise<string> {
  const own = new URL(url);
  const name = `${decodeURIComponent(own.pathname.slice(1))}${suffix}`;
  own.pathname = `/${encodeURIComponent(name)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const quoted = client.escapeIdentifier(name);
    await client.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quoted}`);
  } finally {
    await client.end();
  }
  return own.toString();
}
