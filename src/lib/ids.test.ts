import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cryptoIds, hexId, seededIds, uint64Id } from './ids.ts';

describe('ids', () => {
  it('seeded sources repeat exactly, and differ by seed', () => {
    const a = seededIds('s');
    const b = seededIds('s');
    assert.equal(hexId(a, 40), hexId(b, 40));
    assert.notEqual(hexId(seededIds('s'), 8), hexId(seededIds('t'), 8));
  });
  it('uint64 ids are large unsigned decimals', () => {
    for (let i = 0; i < 100; i++) {
      const id = uint64Id(cryptoIds);
      assert.match(id, /^\d{19,20}$/);
      assert.ok(BigInt(id) < 1n << 64n);
    }
  });
  it('the pooled source hands out fresh bytes, also across pool refills and for large requests', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) seen.add(hexId(cryptoIds, 8));
    assert.equal(seen.size, 5000);
    assert.equal(cryptoIds.bytes(64 * 1024).length, 64 * 1024);
  });
});
