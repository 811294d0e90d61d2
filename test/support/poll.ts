import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions {
  /** How long to keep asking before failing (default 30 000 ms, under mocha's 60 s test timeout). */
  timeoutMs?: number;
  /** The wait between two checks (default 50 ms); 0 waits for the next turn of the event loop only. */
  intervalMs?: number;
  /** What was last seen, for the failure message (e.g. a job's status). */
  lastSeen?: () => string;
}

/**
 * Calls `check` until it returns something other than undefined, null or false, and returns that.
 * When the deadline passes first, fails naming what it waited for (and what it last saw), rather
 * than leaving the test to mocha's timeout. The deadline only ends the wait: it is never a result.
 */
export async function pollUntil<T>(
  description: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: PollOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50, lastSeen } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await check();
    if (result !== undefined && result !== null && result !== false) return result;
    if (Date.now() > deadline) {
      throw new Error(`gave up after ${timeoutMs} ms waiting for ${description}${lastSeen ? ` (last seen: ${lastSeen()})` : ''}`);
    }
    await (intervalMs === 0 ? nextTurn() : sleep(intervalMs));
  }
}
