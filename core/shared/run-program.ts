import { spawn } from 'node:child_process';

export interface RunProgramOptions {
  /** Written to the program's standard input, which is then closed. */
  input?: Buffer | string;
  timeoutMs: number;
  /** Standard output beyond this is refused (the program is killed): a bound on memory. */
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
}

export interface ProgramResult {
  code: number | null;
  stdout: Buffer;
  /** The last few kilobytes of standard error, for messages. */
  stderr: string;
}

export class ProgramError extends Error {
  override name = 'ProgramError';
  constructor(
    readonly reason: 'not_found' | 'timeout' | 'output_too_large' | 'aborted' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a program without a shell, feeding it `input` and collecting its output, with a time
 * limit, an output cap and cancellation; the program is killed when any of them ends the run.
 * A non-zero exit is returned (callers decide what it means); failing to run at all throws.
 */
export function runProgram(binary: string, args: readonly string[], options: RunProgramOptions): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new ProgramError('aborted', `${binary} was cancelled before it started.`));
      return;
    }
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const stop = (reason: ProgramError['reason'], message: string) => {
      child.kill('SIGKILL');
      finish(() => reject(new ProgramError(reason, message)));
    };
    const timer = setTimeout(() => stop('timeout', `${binary} did not finish within ${options.timeoutMs} ms.`), options.timeoutMs);
    const onAbort = () => stop('aborted', `${binary} was cancelled.`);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish(() =>
        reject(e.code === 'ENOENT' ? new ProgramError('not_found', `${binary} is not installed.`) : new ProgramError('failed', `${binary} could not run.`)),
      ),
    );
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > options.maxOutputBytes) stop('output_too_large', `${binary} produced more than ${options.maxOutputBytes} bytes.`);
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-4096);
    });
    // The program may exit without reading all of its input; that is its answer, not an error.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => finish(() => resolve({ code, stdout: Buffer.concat(out), stderr: err })));
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}
