import type { Timers } from '../clock.ts';

/** StepTimers sleeps until `fire` is called; `sleepers` waits until enough work is asleep. For tests that step time by hand. */
export class StepTimers implements Timers {
  readonly #sleeping: { ms: number; wake: () => void }[] = [];
  #onSleep: (() => void)[] = [];

  delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#sleeping.push({ ms, wake: resolve });
      const listeners = this.#onSleep;
      this.#onSleep = [];
      for (const listener of listeners) listener();
    });
  }

  /** asleep lists the durations of the delays not yet fired. */
  get asleep(): number[] {
    return this.#sleeping.map((entry) => entry.ms);
  }

  async sleepers(count: number): Promise<void> {
    while (this.#sleeping.length < count) await new Promise<void>((resolve) => this.#onSleep.push(resolve));
  }

  /** fire ends every delay now pending. */
  fire(): void {
    for (const entry of this.#sleeping.splice(0)) entry.wake();
  }
}
