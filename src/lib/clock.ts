/** Clock is the one source of "now" for every service, so tests can freeze and step time. */
export interface Clock {
  /** now returns milliseconds since the Unix epoch. */
  now(): number;
}

/** systemClock reads the machine's clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** ManualClock only moves when told to: for deterministic tests. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start: number | Date = Date.UTC(2025, 0, 1)) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }
  now(): number {
    return this.#now;
  }
  /** advance moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }
  /** set jumps to an absolute time. */
  set(at: number | Date): void {
    this.#now = typeof at === 'number' ? at : at.getTime();
  }
}

/** Timers schedules callbacks; injected next to the clock so tests can run work without waiting. */
export interface Timers {
  /** delay resolves after `ms` milliseconds. */
  delay(ms: number): Promise<void>;
}

/** realTimers waits on the event loop's timers. */
export const realTimers: Timers = {
  delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
