/**
 * The plural names of the custom resources served at the moment, held for the parts of the
 * family that exist before its runtime loads (fault rules name resources when they are set). The
 * runtime's CRD catalog keeps it current.
 */

/** ServedCustomResourceNames is the set of served custom resource plurals, replaced whole on every change. */
export class ServedCustomResourceNames {
  #names: ReadonlySet<string> = new Set();

  /** replace sets the served plurals. */
  replace(names: Iterable<string>): void {
    this.#names = new Set(names);
  }

  /** has tells whether a custom resource of that plural is served. */
  has(name: string): boolean {
    return this.#names.has(name);
  }

  /** names lists the served plurals. */
  names(): string[] {
    return [...this.#names];
  }
}
