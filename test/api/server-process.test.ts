import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { client, waitForJob } from '../support/app.js';
import { pollUntil } from '../support/poll.js';
import { ROOT, type ServerProcess, run, runCli, startServerProcess, stopServerProcess } from '../support/process.js';
import { startSmtpServer } from '../support/smtp.js';

/** The JSON log lines a server process printed (anything else it printed is left out). */
function logLines(server: ServerProcess): Array<Record<string, unknown>> {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
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

  it('starts with no set-up, writes the admin token to its file and never to its output, and keeps data across restarts', async () => {
    const env = { DATA_DIR: dataDir };
    const first = await startServerProcess(env);
    const file = path.join(dataDir, 'admin-token');
    const token = (await fs.readFile(file, 'utf8')).trim();
    assert.match(token, /^lore_admin_/);
    assert.ok(!first.output().includes(token), 'the generated token is not printed');
    assert.ok(logLines(first).some((l) => l.msg === `admin token written to ${file}` && l.file === file), first.output());

    // The CLI reaches the running server through its internal API (PGlite admits one process).
    const created = JSON.parse((await runCli(['tenant', 'create', '--name', 'Acme', '--plan', 'free'], env)).stdout);
    assert.match(created.api_key, /^lore_/);
    const api = client(first.url, created.api_key);
    assert.equal((await api('POST', '/v1/knowledge-bases', { name: 'Handbook' })).status, 201);
    await stopServerProcess(first);

    const second = await startServerProcess(env);
    assert.ok(!second.output().includes(token), 'the token is not printed');
    assert.ok(!second.output().includes('admin token written'), 'the token is written once');
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

  it("keeps recipients' e-mail addresses out of its output, for a mail written to the folder and one an SMTP server refuses", async () => {
    const refusing = await startSmtpServer({ refuse: () => true });
    const folder = { DATA_DIR: await fs.mkdtemp(path.join(os.tmpdir(), 'lore-mail-folder-')) };
    const smtp = { DATA_DIR: await fs.mkdtemp(path.join(os.tmpdir(), 'lore-mail-smtp-')), SMTP_URL: refusing.url, MAIL_FROM: 'lore@lore.example' };
    try {
      for (const [env, logged] of [
        [folder, 'e-mail written to the mail folder (SMTP_URL is not set)'],
        [smtp, 'an e-mail could not be sent'],
      ] as const) {
        const server = await startServerProcess(env);
        try {
          const token = (await fs.readFile(path.join(env.DATA_DIR, 'admin-token'), 'utf8')).trim();
          const email = `ops-${randomUUID()}@acme.example`;
          const res = await client(server.url, token)('POST', '/internal/v1/tenants', { name: 'Acme', plan: 'standard', email });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          const line = await pollUntil(`the log line "${logged}"`, () => logLines(server).find((l) => l.msg === logged), { lastSeen: () => server.output() });
          assert.ok(!server.output().includes(email), server.output());
          assert.ok(!server.output().includes(email.split('@')[0]!), 'not even the local part');
          assert.match(JSON.stringify(line), /\[redacted\]@acme\.example/);
        } finally {
          await stopServerProcess(server);
        }
      }
      assert.equal(refusing.mails.length, 0);
    } finally {
      await refusing.close();
      await fs.rm(folder.DATA_DIR, { recursive: true, force: true });
      await fs.rm(smtp.DATA_DIR, { recursive: true, force: true });
    }
  });

  it('restarts itself under npm start after the server is killed, and finishes the jobs it had queued', async () => {
    const env = { DATA_DIR: await fs.mkdtemp(path.join(os.tmpdir(), 'lore-supervised-')) };
    const supervised = await startServerProcess(env, 'api/start.ts');
    try {
      const listening = () => supervised.output().split('\n').filter((l) => l.includes('Lore is listening')).map((l) => JSON.parse(l) as { pid: number; port: number });
      const [first] = listening();
      const token = (await fs.readFile(path.join(env.DATA_DIR, 'admin-token'), 'utf8')).trim();
      const created = (await client(supervised.url, token)('POST', '/internal/v1/tenants', { name: 'Acme', plan: 'standard' })).body;
      const api = client(supervised.url, created.api_key);
      const kb = (await api('POST', '/v1/knowledge-bases', { name: 'Handbook' })).body.id;
      const jobs: string[] = [];
      for (let i = 0; i < 8; i++) {
        const content = `Section ${i}. ${'Tea is brewed from leaves of the tea plant; steeping time matters. '.repeat(200)}`;
        jobs.push((await api('POST', '/v1/documents', { knowledge_base_id: kb, title: `Doc ${i}`, content })).body.job_id);
      }
      // What the kernel's out-of-memory killer would do.
      process.kill(first!.pid, 'SIGKILL');
      const second = await pollUntil('the supervisor to restart the killed server', () => listening()[1], {
        timeoutMs: 60_000,
        intervalMs: 100,
        lastSeen: () => supervised.output(),
      });
      assert.notEqual(second.pid, first!.pid);
      assert.match(supervised.output(), /restarting in 1 s/);
      const again = { url: `http://127.0.0.1:${second.port}` };
      for (const id of jobs) assert.equal((await waitForJob(again, created.api_key, id)).status, 'completed');
    } finally {
      await stopServerProcess(supervised);
      await fs.rm(env.DATA_DIR, { recursive: true, force: true });
    }
    assert.equal(supervised.child.exitCode, 0, 'SIGTERM stops the server and the supervisor cleanly');
  });
});
