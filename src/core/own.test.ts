import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dictionary, ownValue, recordFromEntries } from './own.ts';

describe('own-property helpers', () => {
  it('ownValue finds own members only', () => {
    const table: Record<string, number> = { a: 1 };
    assert.equal(ownValue(table, 'a'), 1);
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) assert.equal(ownValue(table, key), undefined);
  });

  it('recordFromEntries keeps "__proto__" an ordinary member', () => {
    const record = recordFromEntries([['__proto__', { polluted: true }] as const]);
    assert.equal(Object.getPrototypeOf(record), Object.prototype);
    assert.deepEqual(Object.keys(record), ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('dictionary has no prototype to reach', () => {
    const map = dictionary<string>();
    // biome-ignore lint/suspicious/noProto: the test is about a key named __proto__ kept as an own, plain key
    map['__proto__'] = 'x';
    assert.equal(Object.getPrototypeOf(map), null);
    assert.equal(map['constructor'], undefined);
    assert.deepEqual(Object.keys(map), ['__proto__']);
  });
});
