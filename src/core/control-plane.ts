/**
 * What the admin API (the `control` family) drives, handed to families through
 * ServiceContext.control: the server's controllable clock, its request journal and its snapshots.
 * Faults join here as they are built, so the control family never imports another family.
 */
import type { ClockTimers, ControlledClock } from '../lib/controlled-clock.ts';
import type { Snapshots } from '../store/snapshots.ts';
import type { JournalReader } from './journal-view.ts';
import type { Faults } from './faults/faults.ts';

/** ControlPlane is the test controls of one running server. */
export interface ControlPlane {
  /** The clock every family reads; moving it fires the timers that became due. */
  readonly clock: ControlledClock;
  /** The families' timers when they run on that clock (not when the server was given timers of its own). */
  readonly timers: ClockTimers | undefined;
  /** The journal of answered requests, with its reader (method ids, principals, filters). */
  readonly requests: JournalReader;
  /** Saves, restores and resets the whole state of every family (store/snapshots.ts). */
  readonly snapshots: Snapshots;
  /** The fault rules requests are matched against (core/faults/): add, list, remove, clear. */
  readonly faults: Faults;
  /**
   * reset empties everything a test leaves behind, as a fresh server starts: every family's state,
   * the fault rules, the request journal and what the onReset listeners keep (the admin token, the
   * tokens file and the clock are kept). Resolves with the store's revision afterwards.
   */
  reset(): Promise<number>;
  /** onReset hears each reset once it is done (what a family keeps outside the store, such as the what-if counters); the result stops it. */
  onReset(listener: () => void): () => void;
  /**
   * advance moves the clock `ms` on, firing the timers in order; after each step it waits for the
   * work the step started (each onClockStep listener: a family's controllers until they are idle)
   * before time moves on, so a chain of steps within the advance runs within it.
   */
  advance(ms: number): Promise<void>;
  /** onClockStep adds work an advance waits for after each step it fires; the result removes it. */
  onClockStep(listener: () => Promise<void>): () => void;
}
