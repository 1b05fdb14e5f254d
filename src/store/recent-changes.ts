import type { Change } from './store.ts';

/**
 * RecentChanges holds the newest committed changes of a single-process backend in memory, so
 * reading the tail of the feed costs no query. That is the common read: the RBAC authorizer
 * catches up on every request after any write, and a watch resumes from a recent revision.
 * It answers only when it holds every change after the asked revision; older reads go to the
 * database.
 */
export class RecentChanges {
  readonly #ring: (Change | undefined)[];
  /** Index of the oldest held change. */
  #start = 0;
  #size = 0;
  /** Every change after this revision is held. */
  #floor: number;

  constructor(
    readonly capacity: number,
    revision: number,
  ) {
    this.#ring = new Array<Change | undefined>(capacity);
    this.#floor = revision;
  }

  /** append records changes just committed, in revision order. */
  append(changes: readonly Change[]): void {
    if (this.capacity === 0) {
      const last = changes[changes.length - 1];
      if (last !== undefined) this.#floor = last.revision;
      return;
    }
    for (const change of changes) {
      if (this.#size === this.capacity) {
        this.#floor = this.#ring[this.#start]!.revision;
        this.#ring[this.#start] = undefined;
        this.#start = (this.#start + 1) % this.capacity;
        this.#size--;
      }
      this.#ring[(this.#start + this.#size) % this.capacity] = change;
      this.#size++;
    }
  }

  /** since returns the changes after `revision` (of `kinds`, at most `limit`), or undefined when they are not all held. */
  since(revision: number, options: { readonly kinds?: readonly string[]; readonly limit?: number }): Change[] | undefined {
    if (revision < this.#floor) return undefined;
    // Walk back from the newest to the first change after `revision`.
    let first = this.#size;
    while (first > 0 && this.#at(first - 1).revision > revision) first--;
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const kinds = options.kinds;
    const out: Change[] = [];
    for (let i = first; i < this.#size && out.length < limit; i++) {
      const change = this.#at(i);
      if (kinds === undefined || kinds.includes(change.kind)) out.push(change);
    }
    return out;
  }

  #at(offset: number): Change {
    return this.#ring[(this.#start + offset) % this.capacity]!;
  }
}
