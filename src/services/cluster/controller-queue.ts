/**
 * ControllerQueue is a controller's work queue (client-go's workqueue, as the change-feed
 * controllers use it): keys are deduplicated while they wait, one worker handles them in
 * arrival order, and a key queued again while it is being handled is handled once more after.
 * A failing key does not stop the others; the failure is kept for diagnostics.
 */
export class ControllerQueue<K> {
  readonly #pending = new Set<K>();
  #running: Promise<void> | undefined;
  #stopped = false;

  /** lastError is the last failure a key's handling threw (a later change retries it). */
  lastError: unknown;

  constructor(readonly handle: (key: K) => Promise<void>) {}

  /** add queues a key (once, however often it is added before it is handled). */
  add(key: K): void {
    if (this.#stopped) return;
    this.#pending.add(key);
    this.#running ??= this.#work().finally(() => {
      this.#running = undefined;
    });
  }

  /** length is how many keys wait. */
  get length(): number {
    return this.#pending.size;
  }

  /** idle resolves once no key waits and none is being handled. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** stop drops the waiting keys and waits for the one being handled. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pending.clear();
    await this.#running;
  }

  async #work(): Promise<void> {
    // Start on a later turn, so a burst of changes is queued (and deduplicated) first.
    await new Promise((resolve) => setImmediate(resolve));
    while (!this.#stopped) {
      const next = this.#pending.values().next();
      if (next.done === true) return;
      this.#pending.delete(next.value);
      try {
        await this.handle(next.value);
      } catch (error) {
        // Background work never takes the server down (the store may be closing).
        this.lastError = error;
      }
    }
  }
}
