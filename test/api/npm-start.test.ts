import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pollUntil } from '../support/poll.js';
import { startServerCommand, stopServerProcess } from '../support/process.js';

/** Whether a process of this id still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start under a service manager', function () {
  this.timeout(120_000);

  it('stops Lore when the npm process it started gets SIGTERM, leaving no server behind', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lore-npm-start-'));
    const started = await startServerCommand('npm', ['start', '--silent'], { DATA_DIR: dataDir });
    try {
      const line = started.output().split('\n').find((l) => l.includes('Lore is listening'))!;
      const server = (JSON.parse(line) as { pid: number }).pid;
      assert.notEqual(server, started.child.pid);
      started.child.kill('SIGTERM');
      await pollUntil('the server to stop after npm got SIGTERM', () => !alive(server) || undefined, { timeoutMs: 20_000, intervalMs: 100, lastSeen: () => started.output() });
      assert.match(started.output(), /"reason":"SIGTERM","msg":"shutting down"/);
    } finally {
      await stopServerProcess(started, 'SIGKILL');
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
