/**
 * BackgroundWork is what the Operation service's parts (the runner driving Operations, the
 * retention forgetting them) share about work that outlives the request starting it: the set of
 * promises close() waits for, whether the service is closed, and a signal that resolves on close
 * so work sleeping on a timer does not hold shutdown open.
 */
export class BackgroundWork {
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;
  #closing: () => void = () => undefined;
  /** closedSignal resolves when close() is called. */
  readonly closedSignal = new Promise<void>((resolve) => (this.#closing = resolve));

  /** closed is true once close() was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** track keeps `work` until it settles, its failure swallowed, so close() can wait for it. */
  track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  /** close marks the work closed and wakes whatever waits on closedSignal. */
  close(): void {
    this.#closed = true;
    this.#closing();
  }

  /** settled resolves once every tracked work has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }
}
