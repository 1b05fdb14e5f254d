/**
 * The clock a running fogbank is driven by: the machine's (or a given) clock that tests can
 * freeze, set and advance while the server runs, and timers measured on it, so moving the clock
 * fires what became due (realistic Operations finish, Event expiry sweeps run) without waiting.
 */
import type { Clock, Timers } from './clock.ts';

/** ClockChange is told after the clock was frozen, unfrozen, set or advanced. */
export type ClockChange = () => void;

/**
 * ControlledClock reads a base clock plus an offset, or stands still while frozen. Untouched it is
 * the base clock plus zero: one addition per read.
 */
export class ControlledClock implements Clock {
  readonly #base: Clock;
  #offset = 0;
  #frozenAt: number | undefined;
  readonly #listeners = new Set<ClockChange>();

  constructor(base: Clock) {
    this.#base = base;
  }

  /** now is the controlled time in milliseconds since the Unix epoch. */
  now(): number {
    return this.#frozenAt ?? this.#base.now() + this.#offset;
  }

  /** frozen is true while the clock stands still. */
  get frozen(): boolean {
    return this.#frozenAt !== undefined;
  }

  /** freeze stops the clock at the current time (a frozen clock stays where it is). */
  freeze(): void {
    if (this.#frozenAt !== undefined) return;
    this.#frozenAt = this.now();
    this.#changed();
  }

  /** unfreeze lets the clock run again from where it stood. */
  unfreeze(): void {
    if (this.#frozenAt === undefined) return;
    this.#offset = this.#frozenAt - this.#base.now();
    this.#frozenAt = undefined;
    this.#changed();
  }

  /** set jumps to `at` (earlier or later); a frozen clock stays frozen there. */
  set(at: number | Date): void {
    const ms = typeof at === 'number' ? at : at.getTime();
    if (!Number.isFinite(ms)) throw new RangeError('the time to set is not a valid date');
    if (this.#frozenAt !== undefined) this.#frozenAt = ms;
    else this.#offset = ms - this.#base.now();
    this.#changed();
  }

  /** advance moves the clock forward by `ms` (not negative). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only advances by a finite, non-negative duration');
    this.set(this.now() + ms);
  }

  /** onChange calls `listener` after every freeze, unfreeze, set and advance; the result stops it. */
  onChange(listener: ClockChange): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** Pending is one delay waiting for its due time on the controlled clock. */
interface Pending {
  readonly due: number;
  readonly resolve: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * ClockTimers are Timers whose delays are measured on a ControlledClock: a delay ends when the
 * clock reaches its due time, whether by running (a real timer for the rest), being set or being
 * advanced; while the clock is frozen it ends only when the clock is moved. A delay never holds
 * the process open.
 */
export class ClockTimers implements Timers {
  readonly #clock: ControlledClock;
  readonly #pending = new Set<Pending>();

  constructor(clock: ControlledClock) {
    this.#clock = clock;
    clock.onChange(() => this.#reschedule());
  }

  /** delay resolves once the clock reads `ms` milliseconds later than now. */
  delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const pending: Pending = { due: this.#clock.now() + Math.max(0, ms), resolve, timer: undefined };
      this.#pending.add(pending);
      this.#arm(pending);
    });
  }

  /** nextDue is the earliest due time of a waiting delay at or before `limit`, if any. */
  nextDue(limit: number): number | undefined {
    let next: number | undefined;
    for (const pending of this.#pending) if (pending.due <= limit && (next === undefined || pending.due < next)) next = pending.due;
    return next;
  }

  /** pendingCount is how many delays are still waiting (for tests). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  #arm(pending: Pending): void {
    if (pending.timer !== undefined) clearTimeout(pending.timer);
    pending.timer = undefined;
    const left = pending.due - this.#clock.now();
    if (left <= 0) {
      this.#fire(pending);
      return;
    }
    // Unreferenced: a waiting delay never holds the process open (a server that listens does).
    if (!this.#clock.frozen) pending.timer = setTimeout(() => this.#arm(pending), left).unref();
  }

  #fire(pending: Pending): void {
    this.#pending.delete(pending);
    pending.resolve();
  }

  #reschedule(): void {
    for (const pending of [...this.#pending]) this.#arm(pending);
  }
}

/** settleBriefly lets work woken by a fired delay run its next steps (store writes, the next delay) before time moves on. */
export async function settleBriefly(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * MAX_STEPS bounds the steps of one advance: periodic work (a sweep every minute) would otherwise
 * make a long advance cost a step per period. After it the clock jumps to the end, which still
 * fires everything then due once (the sweep runs with the final time).
 */
const MAX_STEPS = 40;

/**
 * advanceFiring moves `clock` forward by `ms` the way time would pass: it steps to each waiting
 * delay's due time in order, letting the work it wakes run (and schedule its next delay) before the
 * next step, so a chain of delays inside the span (an Operation's PENDING, then RUNNING) all
 * fire; then it lands exactly `ms` later than it started (after MAX_STEPS steps it jumps there,
 * firing what is then due at once). Without ClockTimers it simply advances.
 */
export async function advanceFiring(
  clock: ControlledClock,
  timers: ClockTimers | undefined,
  ms: number,
  settle: () => Promise<void> = settleBriefly,
): Promise<void> {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only advances by a finite, non-negative duration');
  const target = clock.now() + ms;
  if (timers === undefined) {
    clock.set(target);
    return;
  }
  for (let step = 0; step < MAX_STEPS; step++) {
    const due = timers.nextDue(target);
    if (due === undefined) break;
    // Setting the clock (even to now) fires every delay that is due.
    clock.set(Math.max(due, clock.now()));
    await settle();
  }
  clock.set(Math.max(target, clock.frozen ? target : clock.now()));
  await settle();
}
