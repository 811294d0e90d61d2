import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The embedded topology's files in DATA_DIR: the generated admin token and a record of the running
 * server (PGlite allows one process per data directory, so a second one must not open it).
 */
const ADMIN_TOKEN_FILE = 'admin-token';
const SERVER_FILE = 'server.json';

export interface RunningServer {
  pid: number;
  port: number;
}

/** Reads the admin token kept in DATA_DIR (`file`), creating it on first start; `created` tells which. */
export async function ensureAdminToken(dataDir: string): Promise<{ token: string; created: boolean; file: string }> {
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  await fs.mkdir(dataDir, { recursive: true });
  try {
    return { token: (await fs.readFile(file, 'utf8')).trim(), created: false, file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = `lore_admin_${randomBytes(32).toString('base64url')}`;
  // 'wx' fails if another process created it meanwhile; 0600 keeps it from other users.
  await fs.writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, created: true, file };
}

export async function readAdminToken(dataDir: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(path.join(dataDir, ADMIN_TOKEN_FILE), 'utf8')).trim();
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The Lore server currently running on this DATA_DIR, if any. */
export async function runningServer(dataDir: string): Promise<RunningServer | undefined> {
  try {
    const info = JSON.parse(await fs.readFile(path.join(dataDir, SERVER_FILE), 'utf8')) as RunningServer;
    return info.pid !== process.pid && isAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export async function recordServer(dataDir: string, info: RunningServer): Promise<void> {
  await fs.writeFile(path.join(dataDir, SERVER_FILE), JSON.stringify(info), { mode: 0o600 });
}

export async function forgetServer(dataDir: string): Promise<void> {
  await fs.rm(path.join(dataDir, SERVER_FILE), { force: true });
}
