/** Mutex serialises async critical sections in arrival order (one writer at a time). */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();

  /** run waits for every earlier holder, then runs `fn` alone. */
  run<R>(fn: () => Promise<R>): Promise<R> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
