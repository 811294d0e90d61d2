import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PortalVisitor } from '../support/portal.js';
import { ROOT, run, type ServerProcess, startServerProcess, stopServerProcess } from '../support/process.js';

/**
 * The shell blocks of a page, in order, without those marked `<!-- not run by the test: why -->`
 * (the ones that start Lore, or need the repository or a database of the reader's).
 */
export function runnableShellBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const match of markdown.matchAll(/(<!--[^>]*-->\s*\n)?```sh\n([\s\S]*?)```/g)) {
    if (match[1]?.includes('not run by the test')) continue;
    blocks.push(match[2]!);
  }
  return blocks;
}

describe('the README quick start and docs/getting-started.md, run as written', function () {
  this.timeout(180_000);
  let server: ServerProcess;
  let dir: string;

  before(async () => {
    // A reader's second terminal: the directory Lore was started in, so `data/admin-token` is there.
    dir = await mkdtemp(path.join(tmpdir(), 'lore-getting-started-'));
    server = await startServerProcess({ DATA_DIR: path.join(dir, 'data') });
  });
  after(async () => {
    await stopServerProcess(server);
    await rm(dir, { recursive: true, force: true });
  });

  for (const page of ['README.md', 'docs/getting-started.md']) {
    it(`runs every command of ${page} against a started Lore and finds the document`, async () => {
      const blocks = runnableShellBlocks(await readFile(path.join(ROOT, page), 'utf8'));
      assert.ok(blocks.length >= 1, `${page} has no runnable shell block`);
      // The one change: the port the test's Lore listens on instead of 8080.
      const script = blocks.join('\n').replaceAll('localhost:8080', `127.0.0.1:${server.port}`);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, timeout: 150_000 });
      assert.match(stdout, /"results":\[\{[^\]]*Staff get 25 days of paid leave a year\./, stdout);
      assert.match(stdout, /The job is completed\.$/m);
      if (page !== 'README.md') return;
      // The README also shows the portal's set-password link from the mail folder: the newest one,
      // also after a reset link went to the same address.
      const link = /http:\/\/localhost:\d+\/portal\/password\?token=[A-Za-z0-9_-]{43}$/m;
      const invitation = link.exec(stdout)?.[0];
      assert.ok(invitation, stdout);
      const grep = /^grep -ho .*$/m.exec(blocks.join('\n'))![0];
      const reset = await new PortalVisitor(server.url).postForm('/portal/forgot', '/portal/forgot', { email: 'you@example.com' });
      assert.ok(reset.status < 400, String(reset.status));
      const newest = (await run('bash', ['-euo', 'pipefail', '-c', grep], { cwd: dir })).stdout.trim();
      assert.match(newest, link);
      assert.notEqual(newest, invitation);
    });
  }

  it("stops the quick start's wait for a job that failed, and for one that never ends", async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const loop = /^for _ in .*\n(?:.*\n)*?done\necho .*$/m.exec(readme)?.[0];
    assert.ok(loop, 'the README waits for its job in a for loop');
    // curl answers as Lore would for a job in that state; sleep takes no time.
    const wait = (status: string) =>
      run('bash', ['-euo', 'pipefail', '-c', `JOB=j KEY=k\ncurl() { echo '{"id":"j","status":"${status}","processed_chunks":0}'; }\nsleep() { :; }\n${loop}`], { timeout: 20_000 });
    assert.match((await wait('failed')).stdout, /^The job is failed\.$/m);
    assert.match((await wait('queued')).stdout, /^The job is queued\.$/m);
  });

  it('skips only the blocks it says it skips', () => {
    const page = '```sh\necho a\n```\n<!-- not run by the test: it starts Lore -->\n```sh\nnpm start\n```\n```js\nx\n```\n```sh\necho b\n```\n';
    assert.deepEqual(runnableShellBlocks(page), ['echo a\n', 'echo b\n']);
  });
});
