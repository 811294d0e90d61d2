import { type ChildProcess, spawn } from 'node:child_process';

/**
 * The exit code of a server that stopped itself after an uncaught exception and wants a restart.
 * A start-up failure (bad configuration, DATA_DIR in use) exits with 1 and is not restarted.
 */
export const EXIT_RESTART = 70;

export interface SupervisorOptions {
  /** The command that runs one server process. */
  command: string;
  args: string[];
  /** Longest wait between restarts; the wait doubles from 1 s up to it. Default 30 s. */
  maxBackoffMs?: number;
  /** Restarts allowed within `windowMs` before the supervisor gives up. Default 10 in 10 minutes. */
  maxRestarts?: number;
  windowMs?: number;
  log?: (message: string) => void;
}

/**
 * Runs the server as a child process and restarts it when it stops unexpectedly: after an uncaught
 * exception (exit code EXIT_RESTART) or when a signal it did not ask for killed it (the kernel's
 * out-of-memory killer, a crash). Nothing is lost on a restart: the database is durable and the job
 * engine resumes interrupted jobs when it starts. SIGTERM and SIGINT are passed on to the server,
 * and the supervisor exits with its exit code. Under an orchestrator (Kubernetes) the server runs
 * without this supervisor and the orchestrator restarts it.
 */
export function supervise(options: SupervisorOptions): Promise<number> {
  const log = options.log ?? ((message: string) => console.error(`[lore supervisor] ${message}`));
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const maxRestarts = options.maxRestarts ?? 10;
  const windowMs = options.windowMs ?? 10 * 60_000;
  const restarts: number[] = [];
  let child: ChildProcess | undefined;
  let stopping = false;
  let backoffMs = 1_000;

  const forward = (signal: NodeJS.Signals) => {
    stopping = true;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGTERM', () => forward('SIGTERM'));
  process.on('SIGINT', () => forward('SIGINT'));

  return new Promise((resolve) => {
    const start = () => {
      const started = Date.now();
      child = spawn(options.command, options.args, { stdio: 'inherit' });
      child.once('exit', (code, signal) => {
        const unexpected = code === EXIT_RESTART || (code === null && signal !== null);
        if (stopping || !unexpected) {
          resolve(code ?? 1);
          return;
        }
        const now = Date.now();
        // A server that ran a while before failing starts the backoff over.
        if (now - started > windowMs) backoffMs = 1_000;
        while (restarts.length && now - restarts[0]! > windowMs) restarts.shift();
        if (restarts.length >= maxRestarts) {
          log(`the server stopped ${restarts.length + 1} times within ${windowMs / 60_000} minutes; giving up`);
          resolve(EXIT_RESTART);
          return;
        }
        restarts.push(now);
        log(`the server stopped unexpectedly (${signal ?? `exit code ${code}`}); restarting in ${backoffMs / 1000} s`);
        setTimeout(() => (stopping ? resolve(code ?? 1) : start()), backoffMs);
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      });
    };
    start();
  });
}
