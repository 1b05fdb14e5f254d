/**
 * SortedKeys is one kind's keys in list order, kept sorted as records come and go, so a list page
 * (`prefix`, `after`, `limit`) costs a binary search plus the page, not a sort of every key.
 *
 * The keys sit in blocks of at most 2 × `blockSize`, each sorted, each block's keys before the
 * next block's: an insertion or removal shifts one block, not every key. One flat array made a
 * send to three mailboxes shift tens of thousands of keys per row once a few thousand messages
 * were held (16% of the memory store's CPU in bench/mail-send.ts, growing with the mailbox).
 */
export class SortedKeys {
  /** Never an empty block: a block left empty is dropped. */
  readonly #blocks: string[][] = [];
  readonly #blockSize: number;
  #size = 0;

  constructor(blockSize = 512) {
    if (!Number.isInteger(blockSize) || blockSize < 1) throw new RangeError(`blockSize must be a positive integer, got ${blockSize}`);
    this.#blockSize = blockSize;
  }

  /** size is how many keys are held. */
  get size(): number {
    return this.#size;
  }

  /** add inserts a key that is not present yet (a present key is left as it is). */
  add(key: string): void {
    const blocks = this.#blocks;
    if (blocks.length === 0) {
      blocks.push([key]);
      this.#size = 1;
      return;
    }
    // The first block whose last key is not before `key`, or the last block (the key goes at its end).
    let b = this.#blockAtOrAfter(key, false);
    if (b === blocks.length) b--;
    const block = blocks[b]!;
    const at = lowerBound(block, key, false);
    if (block[at] === key) return;
    block.splice(at, 0, key);
    this.#size++;
    if (block.length > 2 * this.#blockSize) blocks.splice(b + 1, 0, block.splice(this.#blockSize));
  }

  /** remove drops a key if present. */
  remove(key: string): void {
    const b = this.#blockAtOrAfter(key, false);
    const block = this.#blocks[b];
    if (block === undefined) return;
    const at = lowerBound(block, key, false);
    if (block[at] !== key) return;
    block.splice(at, 1);
    this.#size--;
    if (block.length === 0) this.#blocks.splice(b, 1);
  }

  /** range returns, in order, the keys with `prefix` strictly after `after`, at most `limit` of them. */
  range(prefix: string | undefined, after: string | undefined, limit: number | undefined): string[] {
    let [b, i] = prefix === undefined ? [0, 0] : this.#position(prefix, false);
    if (after !== undefined) {
      const [pb, pi] = this.#position(after, true);
      if (pb > b || (pb === b && pi > i)) [b, i] = [pb, pi];
    }
    const out: string[] = [];
    const max = limit ?? Number.POSITIVE_INFINITY;
    const blocks = this.#blocks;
    for (; b < blocks.length; b++, i = 0) {
      const block = blocks[b]!;
      for (; i < block.length; i++) {
        if (out.length >= max) return out;
        const key = block[i]!;
        if (prefix !== undefined && !key.startsWith(prefix)) return out;
        out.push(key);
      }
    }
    return out;
  }

  /** count is how many keys start with `prefix` (all keys without one). */
  count(prefix: string | undefined): number {
    if (prefix === undefined) return this.#size;
    let [b, i] = this.#position(prefix, false);
    let total = 0;
    const blocks = this.#blocks;
    // Keys with the prefix are contiguous from the first one: whole blocks while a block's last key
    // has it, then a binary search on "starts with" in the block where they end.
    for (; b < blocks.length; b++, i = 0) {
      const block = blocks[b]!;
      if (block[block.length - 1]!.startsWith(prefix)) {
        total += block.length - i;
        continue;
      }
      let lo = i;
      let hi = block.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (block[mid]!.startsWith(prefix)) lo = mid + 1;
        else hi = mid;
      }
      return total + lo - i;
    }
    return total;
  }

  /**
   * #position is where the first key not before `key` is (or, with `strict`, the first key after
   * it): a block and an index in it; past the end is (blocks, 0).
   */
  #position(key: string, strict: boolean): [number, number] {
    const b = this.#blockAtOrAfter(key, strict);
    const block = this.#blocks[b];
    return block === undefined ? [b, 0] : [b, lowerBound(block, key, strict)];
  }

  /** #blockAtOrAfter is the first block whose last key is not before `key` (with `strict`, after it). */
  #blockAtOrAfter(key: string, strict: boolean): number {
    const blocks = this.#blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = blocks[mid]!;
      const order = compareKeys(block[block.length - 1]!, key);
      if (order < 0 || (strict && order === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** lowerBound is the index of the first key in `keys` not before `key` (with `strict`, after it). */
function lowerBound(keys: readonly string[], key: string, strict: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = compareKeys(keys[mid]!, key);
    if (order < 0 || (strict && order === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** compareKeys orders keys by UTF-16 code units, the same order every backend uses. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
