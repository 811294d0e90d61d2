import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { client } from '../support/app.js';
import { ROOT, run, runCli, startServerProcess, stopServerProcess } from '../support/process.js';

describe('the embedded server process', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-process-'));
  });
  after(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('refuses a bad setting with a one-line message naming the variable', async () => {
    await assert.rejects(
      run(process.execPath, ['--import', 'tsx', 'api/main.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', PORT: 'eighty' } }),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 1);
        assert.equal(err.stderr.trim().split('\n').length, 1);
        assert.match(err.stderr, /^Invalid configuration: PORT: /);
        return true;
      },
    );
  });

  it('starts with no set-up, prints the admin token once, and keeps data across restarts', async () => {
    const env = { DATA_DIR: dataDir };
    const first = await startServerProcess(env);
    const token = (await fs.readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    assert.ok(first.output().includes(token), 'the generated token is printed on first start');

    // The CLI reaches the running server through its internal API (PGlite admits one process).
    const created = JSON.parse((await runCli(['tenant', 'create', '--name', 'Acme', '--plan', 'free'], env)).stdout);
    assert.match(created.api_key, /^lore_/);
    const api = client(first.url, created.api_key);
    assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'Handbook' })).status, 201);
    await stopServerProcess(first);

    const second = await startServerProcess(env);
    assert.ok(!second.output().includes(token), 'the token is printed only once');
    const kbs = await client(second.url, created.api_key)('GET', '/v1/knowledge-bases');
    assert.equal(kbs.status, 200);
    assert.deepEqual(kbs.body.map((kb: { name: string }) => kb.name), ['Handbook']);
    const tenant = await client(second.url, token)('GET', `/internal/v1/tenants/${created.id}`);
    assert.equal(tenant.body.name, 'Acme');
    await stopServerProcess(second);

    // With no server running, the CLI opens the database itself.
    const suspended = JSON.parse((await runCli(['tenant', 'update', created.id, '--status', 'suspended'], env)).stdout);
    assert.equal(suspended.status, 'suspended');
    const fetched = JSON.parse((await runCli(['tenant', 'get', created.id], env)).stdout);
    assert.equal(fetched.status, 'suspended');
  });
});
