/**
 * The controllers' work queue, after client-go's: keys (`namespace/name`) rather than events, so
 * many changes to one object collapse into one reconcile; one object is never reconciled by two
 * workers at once (a key added while it is being processed runs again afterwards); a failed key is
 * retried with per-key exponential backoff, and forgotten on success.
 */
export interface WorkQueueOptions {
  concurrency: number;
  /** First retry delay; doubles with each consecutive failure of the key. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Reconciles one key; a returned delay asks to look again later (not a failure). */
  process: (key: string) => Promise<{ requeueAfterMs?: number } | void>;
  onFailure: (key: string, err: unknown, failures: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys added while they were being processed: they go back in the queue when that ends. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private paused = true;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: WorkQueueOptions) {}

  add(key: string): void {
    if (this.closed) return;
    this.clearTimer(key);
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds the key after a delay (a later add of the same key replaces the timer). */
  addAfter(key: string, delayMs: number): void {
    if (this.closed) return;
    this.clearTimer(key);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, timer);
  }

  /** Keys waiting to be processed (including those waiting for a retry). */
  depth(): number {
    return this.queue.length + this.timers.size;
  }

  /** Starts (or resumes) processing. */
  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Stops taking keys (those in progress finish); keys added meanwhile wait. */
  pause(): void {
    this.paused = true;
  }

  /** Resolves when nothing is queued, processing or waiting for a retry (for tests and shutdown). */
  async idle(): Promise<void> {
    if (this.isIdle()) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Pauses, drops pending retries and waits for the keys in progress. */
  async shutDown(): Promise<void> {
    this.pause();
    this.closed = true;
    for (const key of [...this.timers.keys()]) this.clearTimer(key);
    this.queue.length = 0;
    this.queued.clear();
    this.dirty.clear();
    await this.idle();
  }

  private isIdle(): boolean {
    return this.active === 0 && this.queue.length === 0 && this.timers.size === 0;
  }

  private clearTimer(key: string): void {
    const timer = this.timers.get(key);
    if (timer) clearTimeout(timer);
    this.timers.delete(key);
  }

  private pump(): void {
    while (!this.paused && this.active < this.options.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.run(key);
    }
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async run(key: string): Promise<void> {
    try {
      const result = await this.options.process(key);
      this.failures.delete(key);
      if (result?.requeueAfterMs !== undefined && !this.dirty.has(key)) this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      this.options.onFailure(key, err, failures);
      if (!this.dirty.has(key)) this.addAfter(key, this.backoff(failures));
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }

  private backoff(failures: number): number {
    const exponential = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (failures - 1));
    // Jitter (±20 %) keeps many failing objects from retrying in lockstep.
    return Math.round(exponential * (0.8 + Math.random() * 0.4));
  }
}
