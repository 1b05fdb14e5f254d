/**
 * Random is the fuzzer's one source of choices: a small seeded generator (sfc32), so a failing
 * run is replayed exactly by giving the printed seed back.
 */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(readonly seed: number) {
    this.a = 0x9e3779b9 ^ seed;
    this.b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
    this.c = 0xb7e15162;
    for (let i = 0; i < 16; i++) this.next();
  }

  /** next is a uniform float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** int is a uniform integer in [0, below). */
  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  /** pick is one element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** chance is true with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** text is `length` characters drawn from `alphabet`. */
  text(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-'): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}
