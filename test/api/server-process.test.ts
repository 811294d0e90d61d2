import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { client } from '../support/app.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

interface Started {
  child: ChildProcess;
  port: number;
  stdout: string;
}

/** Starts `api/main.ts` as `npm start` does, and waits for its "listening" log line. */
async function startServer(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.includes('Lore is listening'));
      if (line) resolve({ child, port: (JSON.parse(line) as { port: number }).port, stdout });
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stdout}`)));
  });
}

async function stopServer(s: Started): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}

function cli(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', 'cli/lore.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

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
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    const first = await startServer(env);
    const token = (await fs.readFile(path.join(dataDir, 'admin-token'), 'utf8')).trim();
    assert.ok(first.stdout.includes(token), 'the generated token is printed on first start');

    // The CLI reaches the running server through its internal API (PGlite admits one process).
    const created = JSON.parse((await cli(['tenant', 'create', '--name', 'Acme', '--plan', 'free'], env)).stdout);
    assert.match(created.api_key, /^lore_/);
    const api = client(`http://127.0.0.1:${first.port}`, created.api_key);
    assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'Handbook' })).status, 201);
    await stopServer(first);

    const second = await startServer(env);
    assert.ok(!second.stdout.includes(token), 'the token is printed only once');
    const again = client(`http://127.0.0.1:${second.port}`, created.api_key);
    const kbs = await again('GET', '/v1/knowledge-bases');
    assert.equal(kbs.status, 200);
    assert.deepEqual(kbs.body.map((kb: { name: string }) => kb.name), ['Handbook']);
    const tenant = await client(`http://127.0.0.1:${second.port}`, token)('GET', `/internal/v1/tenants/${created.id}`);
    assert.equal(tenant.body.name, 'Acme');
    await stopServer(second);

    // With no server running, the CLI opens the database itself.
    const suspended = JSON.parse((await cli(['tenant', 'update', created.id, '--status', 'suspended'], env)).stdout);
    assert.equal(suspended.status, 'suspended');
    const fetched = JSON.parse((await cli(['tenant', 'get', created.id], env)).stdout);
    assert.equal(fetched.status, 'suspended');
  });
});
