import type { Clock } from '../../core/clock.js';

/** A clock the test moves by hand (billing periods, link expiry), instead of sleeping. */
export class TestClock implements Clock {
  private current: number;

  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(date: Date): void {
    this.current = date.getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** A clock that runs with real time, moved forward by `offsetMs` (session and link expiry). */
export class OffsetClock implements Clock {
  offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
