import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
      // The README also shows the portal's set-password link from the mail folder.
      if (page === 'README.md') assert.match(stdout, /http:\/\/localhost:\d+\/portal\/password\?token=[A-Za-z0-9_-]{43}$/m, stdout);
    });
  }

  it('skips only the blocks it says it skips', () => {
    const page = '```sh\necho a\n```\n<!-- not run by the test: it starts Lore -->\n```sh\nnpm start\n```\n```js\nx\n```\n```sh\necho b\n```\n';
    assert.deepEqual(runnableShellBlocks(page), ['echo a\n', 'echo b\n']);
  });
});
