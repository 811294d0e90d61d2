import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openPgliteDatabase } from '../../core/db/pglite.database.js';
import { client, waitForJob } from '../support/app.js';
import { type ServerProcess, runCli, startServerProcess, stopServerProcess } from '../support/process.js';

describe('the keyword-index CLI', function () {
  this.timeout(300_000);
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-keyword-cli-'));
    env = { DATA_DIR: path.join(dir, 'data') };
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const cli = async (...args: string[]) => JSON.parse((await runCli(args, env)).stdout);
  /** Runs `fn` on the data directory's database, opened by this process (no server may hold it). */
  const onDatabase = async <T>(fn: (db: Awaited<ReturnType<typeof openPgliteDatabase>>) => Promise<T>): Promise<T> => {
    const db = await openPgliteDatabase(path.join(env.DATA_DIR!, 'pgdata'));
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };

  /** Waits until the server has loaded its vector index (from a snapshot or the tables), and returns the log line. */
  const loaded = async (server: ServerProcess): Promise<string> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const line = server.output().split('\n').find((l) => l.includes('"vector index loaded"'));
      if (line) return line;
      assert.ok(Date.now() < deadline, server.output());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("rewrites an embedded data directory's stale keyword indexes, refusing while a server uses it; the next start reads the tables, not the older snapshot", async () => {
    let server = await startServerProcess(env);
    let documentId: string;
    try {
      const tenant = await cli('tenant', 'create', '--name', 'Ayuda', '--plan', 'standard');
      const api = client(server.url, tenant.api_key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'ayuda' })).body.id as string;
      const created = await api('POST', '/v1/documents', {
        knowledge_base_id: kb,
        title: 'Impresión',
        content: 'La configuración de la impresora se guarda con el documento y vale para cada página.',
      });
      assert.equal(created.status, 202);
      assert.equal((await waitForJob({ url: server.url }, tenant.api_key, created.body.job_id)).status, 'completed');
      documentId = created.body.document_id as string;

      await assert.rejects(runCli(['keyword-index', 'rebuild'], env), (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 1);
        assert.match(err.stderr, /A Lore server is using .*; stop it first/);
        return true;
      });
    } finally {
      await stopServerProcess(server);
    }

    // What an older release left: its analysis in the table (no folded spellings), and a snapshot of it.
    const tsv = () => onDatabase(async (db) => (await db.query<{ tsv: string }>('SELECT tsv::text AS tsv FROM chunks WHERE document_id = $1', [documentId])).rows[0]!.tsv);
    const written = await tsv();
    assert.match(written, /'configuracion'/);
    await onDatabase((db) => db.query("UPDATE chunks SET tsv = setweight(to_tsvector('spanish', doc_title), 'A') || to_tsvector('spanish', content) WHERE document_id = $1", [documentId]));
    await fs.rm(path.join(env.DATA_DIR!, 'vector-index'), { recursive: true, force: true });
    server = await startServerProcess(env);
    try {
      assert.match(await loaded(server), /"from":"tables"/, 'the older state, read from the tables (and snapshotted at shutdown)');
    } finally {
      await stopServerProcess(server);
    }

    const { seconds, ...report } = await cli('keyword-index', 'rebuild');
    assert.deepEqual(report, { chunks: 1, rewritten: 1, corpus_chunks: 0, corpus_rewritten: 0 });
    assert.equal(typeof seconds, 'number');
    assert.equal(await tsv(), written, 'as ingestion writes it today');
    const again = await cli('keyword-index', 'rebuild');
    assert.deepEqual([again.rewritten, again.corpus_rewritten], [0, 0], 'a second run rewrites nothing');

    server = await startServerProcess(env);
    try {
      const line = await loaded(server);
      assert.match(line, /"from":"tables"/);
      assert.match(line, /"snapshotRefused":"taken at keyword index generation 0, before a rebuild \(now 1\)"/);
    } finally {
      await stopServerProcess(server);
    }
  });
});
