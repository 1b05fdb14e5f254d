/**
 * SortedKeys is one kind's keys in list order, kept sorted as records come and go, so a list page
 * (`prefix`, `after`, `limit`) costs a binary search plus the page, not a sort of every key.
 * Insertion and removal shift the array (a memmove), which stays cheap far beyond the record
 * counts an emulator holds.
 */
export class SortedKeys {
  readonly #keys: string[] = [];

  /** add inserts a key that is not present yet. */
  add(key: string): void {
    const at = this.#lowerBound(key);
    if (this.#keys[at] !== key) this.#keys.splice(at, 0, key);
  }

  /** remove drops a key if present. */
  remove(key: string): void {
    const at = this.#lowerBound(key);
    if (this.#keys[at] === key) this.#keys.splice(at, 1);
  }

  /** range returns, in order, the keys with `prefix` strictly after `after`, at most `limit` of them. */
  range(prefix: string | undefined, after: string | undefined, limit: number | undefined): string[] {
    let at = prefix === undefined ? 0 : this.#lowerBound(prefix);
    if (after !== undefined) {
      const past = this.#upperBound(after);
      if (past > at) at = past;
    }
    const out: string[] = [];
    const max = limit ?? Number.POSITIVE_INFINITY;
    for (; at < this.#keys.length && out.length < max; at++) {
      const key = this.#keys[at]!;
      if (prefix !== undefined && !key.startsWith(prefix)) break;
      out.push(key);
    }
    return out;
  }

  /** count is how many keys start with `prefix` (all keys without one). */
  count(prefix: string | undefined): number {
    if (prefix === undefined) return this.#keys.length;
    const start = this.#lowerBound(prefix);
    let end = start;
    // Keys with the prefix are contiguous; find the end by binary search on "starts with".
    let hi = this.#keys.length;
    while (end < hi) {
      const mid = (end + hi) >>> 1;
      if (this.#keys[mid]!.startsWith(prefix)) end = mid + 1;
      else hi = mid;
    }
    return end - start;
  }

  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.#keys[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #upperBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.#keys[mid]!, key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** compareKeys orders keys by UTF-16 code units, the same order every backend uses. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
