/**
 * The test controls of one server, assembled for the admin API and `start()` (core/control-plane.ts's
 * ControlPlane): the clock and its timers, the request journal's reader, snapshots, the fault
 * rules, the reset that empties the store and drops the rules and the journal, then tells its
 * listeners (the what-if counters), and the clock's advance that waits for the families' work
 * between its steps.
 */
import type { Authenticator } from '../core/auth.ts';
import type { ControlPlane } from '../core/control-plane.ts';
import type { Faults } from '../core/faults/faults.ts';
import type { RequestJournal } from '../core/journal.ts';
import { JournalReader } from '../core/journal-view.ts';
import type { ServiceDefinition } from '../core/service.ts';
import type { Timers } from '../lib/clock.ts';
import { advanceFiring, ClockTimers, type ControlledClock, settleBriefly } from '../lib/controlled-clock.ts';
import type { Snapshots } from '../store/snapshots.ts';

/**
 * STEP_WAIT_MS bounds, in real time, how long an advance waits after one step for the work the
 * step started: work that other clients keep making (writes that never let a controller go idle)
 * must not hold a clock request open; the step's work then goes on after the advance.
 */
const STEP_WAIT_MS = 2000;

/** settledWithin resolves when `work` settles (its failure is the work's own to report) or after `ms`, whichever is first. */
async function settledWithin(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work.catch(() => undefined), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** ControlPlaneParts are what a start made that the control plane drives. */
export interface ControlPlaneParts {
  readonly clock: ControlledClock;
  readonly timers: Timers;
  readonly journal: RequestJournal;
  readonly services: readonly ServiceDefinition[];
  readonly auth: Authenticator;
  readonly snapshots: Snapshots;
  readonly faults: Faults;
}

/** controlPlaneOf assembles the server's ControlPlane. */
export function controlPlaneOf(parts: ControlPlaneParts): ControlPlane {
  const { clock, timers, journal, snapshots, faults } = parts;
  const resetListeners = new Set<() => void>();
  const stepListeners = new Set<() => Promise<void>>();
  const clockTimers = timers instanceof ClockTimers ? timers : undefined;
  return {
    clock,
    timers: clockTimers,
    requests: new JournalReader(journal, parts.services, parts.auth),
    snapshots,
    faults,
    async reset() {
      const revision = await snapshots.reset();
      faults.clear();
      journal.clear();
      for (const listener of resetListeners) listener();
      return revision;
    },
    onReset(listener) {
      resetListeners.add(listener);
      return () => resetListeners.delete(listener);
    },
    advance(ms) {
      return advanceFiring(clock, clockTimers, ms, async () => {
        await settleBriefly();
        for (const listener of stepListeners) await settledWithin(listener(), STEP_WAIT_MS);
      });
    },
    onClockStep(listener) {
      stepListeners.add(listener);
      return () => stepListeners.delete(listener);
    },
  };
}
