import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedMap } from './bounded-map.ts';

describe('BoundedMap', () => {
  it('drops the entry set longest ago once past capacity', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    assert.equal(map.size, 2);
    assert.equal(map.has('a'), false);
    assert.equal(map.get('b'), 2);
    assert.equal(map.get('c'), 3);
  });

  it('counts a key set again as newest, and its earlier setting no longer as anything', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('a', 10);
    map.set('c', 3);
    assert.deepEqual([map.get('a'), map.has('b'), map.get('c')], [10, false, 3]);
  });

  it('holds undefined values, forgets deleted keys, and empties on clear', () => {
    const map = new BoundedMap<string, string | undefined>(3);
    map.set('fine', undefined);
    assert.equal(map.has('fine'), true);
    map.set('x', 'bad');
    assert.equal(map.delete('x'), true);
    assert.equal(map.has('x'), false);
    map.set('y', 'y');
    map.set('z', 'z');
    // 'x' was deleted, so three entries fit without dropping 'fine'.
    assert.equal(map.has('fine'), true);
    map.clear();
    assert.equal(map.size, 0);
    map.set('after', 'clear');
    assert.equal(map.get('after'), 'clear');
  });

  it('keeps the order of setting across many settings of a few hot keys', () => {
    const map = new BoundedMap<string, number>(3);
    for (let round = 0; round < 10_000; round++) for (const key of ['p', 'q', 'r']) map.set(key, round);
    map.set('q', -1);
    map.set('new', 0);
    // 'p' was set longest ago ('r' after it, then 'q' again).
    assert.deepEqual([map.has('p'), map.get('r'), map.get('q'), map.get('new')], [false, 9_999, -1, 0]);
  });

  it('holds nothing with a capacity of zero', () => {
    const map = new BoundedMap<string, number>(0);
    map.set('a', 1);
    assert.equal(map.size, 0);
  });
});
