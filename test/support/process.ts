import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const run = promisify(execFile);

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
}

/**
 * Starts `api/main.ts` (or another entry, such as `npm start`'s supervisor) with tsx, or a compiled
 * entry (`.js`) with plain node, and waits for its "listening" log line.
 */
export function startServerProcess(env: Record<string, string>, entry = 'api/main.ts'): Promise<ServerProcess> {
  return startServerCommand(process.execPath, entry.endsWith('.js') ? [entry] : ['--import', 'tsx', entry], env);
}

/** Starts a command that runs a Lore server (`npm start`, say) and waits for the server's "listening" log line. */
export async function startServerCommand(command: string, args: string[], env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('Lore is listening'));
      if (line) {
        const port = (JSON.parse(line) as { port: number }).port;
        resolve({ child, port, url: `http://127.0.0.1:${port}`, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

export async function stopServerProcess(s: ServerProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill(signal);
  await exited;
}

/** Runs `npm run cli -- ...args` the way the README shows. */
export function runCli(args: string[], env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', 'cli/lore.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
}

/** Runs `npm run worker`'s entry point with only these variables; rejects with the exit code and output when it fails. */
export function runWorker(env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', 'workflows/worker.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env } });
}
