import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../testing/seeded-random.ts';
import { compareKeys, SortedKeys } from './sorted-keys.ts';

/** The model: every key in one sorted array, read the obvious way. */
class Model {
  keys: string[] = [];
  add(key: string): void {
    if (!this.keys.includes(key)) this.keys = [...this.keys, key].sort(compareKeys);
  }
  remove(key: string): void {
    this.keys = this.keys.filter((k) => k !== key);
  }
  range(prefix: string | undefined, after: string | undefined, limit: number | undefined): string[] {
    const all = this.keys.filter((k) => (prefix === undefined || k.startsWith(prefix)) && (after === undefined || compareKeys(k, after) > 0));
    return limit === undefined ? all : all.slice(0, limit);
  }
  count(prefix: string | undefined): number {
    return this.keys.filter((k) => prefix === undefined || k.startsWith(prefix)).length;
  }
}

const ALPHABET = ['a', 'b', 'ab', '/', 'z', '\uffff', 'é'];

function keyOf(next: () => number): string {
  let key = '';
  const length = 1 + Math.floor(next() * 4);
  for (let i = 0; i < length; i++) key += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return key;
}

describe("sorted keys (a kind's keys in list order, in blocks)", () => {
  for (const blockSize of [1, 2, 3, 8]) {
    it(`answers range and count as one sorted array does, through adds and removes (blocks of ${blockSize})`, () => {
      for (let seed = 1; seed <= 20; seed++) {
        const next = seededRandom(seed * 7919 + blockSize);
        const keys = new SortedKeys(blockSize);
        const model = new Model();
        for (let step = 0; step < 300; step++) {
          const key = keyOf(next);
          if (next() < 0.65) {
            keys.add(key);
            model.add(key);
          } else {
            keys.remove(key);
            model.remove(key);
          }
          const prefix = next() < 0.3 ? undefined : keyOf(next).slice(0, 1 + Math.floor(next() * 2));
          const after = next() < 0.5 ? undefined : keyOf(next);
          const limit = next() < 0.5 ? undefined : Math.floor(next() * 6);
          const context = `seed ${seed}, step ${step}, prefix ${JSON.stringify(prefix)}, after ${JSON.stringify(after)}, limit ${limit}`;
          assert.deepEqual(keys.range(prefix, after, limit), model.range(prefix, after, limit), context);
          assert.equal(keys.count(prefix), model.count(prefix), context);
          assert.equal(keys.size, model.keys.length, context);
        }
      }
    });
  }

  it('keeps many keys added in order and out of order, and lets them all go', () => {
    const keys = new SortedKeys(4);
    const names = Array.from({ length: 1000 }, (_, i) => `k${String(i).padStart(4, '0')}`);
    for (const name of names.filter((_, i) => i % 2 === 0)) keys.add(name);
    for (const name of names.filter((_, i) => i % 2 === 1).reverse()) keys.add(name);
    assert.deepEqual(keys.range(undefined, undefined, undefined), names);
    assert.deepEqual(keys.range('k09', 'k0995', 3), ['k0996', 'k0997', 'k0998']);
    assert.equal(keys.count('k01'), 100);
    for (const name of names) keys.remove(name);
    assert.equal(keys.size, 0);
    assert.deepEqual(keys.range(undefined, undefined, undefined), []);
    assert.equal(keys.count('k'), 0);
  });

  it('refuses a block size that is not a positive integer', () => {
    assert.throws(() => new SortedKeys(0), /blockSize must be a positive integer, got 0/);
  });
});
