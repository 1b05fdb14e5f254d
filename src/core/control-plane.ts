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
}
