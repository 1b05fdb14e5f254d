import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredRecord } from '../../../store/index.ts';
import { EncodedObjects } from './encoded-objects.ts';

const record = (key: string, revision: number): StoredRecord => ({ kind: 'k', key, value: { key }, revision, createRevision: revision });

describe('EncodedObjects', () => {
  it('encodes a record once per form and answers later reads from what it kept', () => {
    const cache = new EncodedObjects();
    const calls: string[] = [];
    const encode = (text: string) => () => {
      calls.push(text);
      return text;
    };
    const first = record('a', 1);
    assert.equal(cache.encoded(first, 'v1', encode('a@1 v1')), 'a@1 v1');
    assert.equal(cache.encoded(first, 'v1', encode('never')), 'a@1 v1');
    assert.equal(cache.encoded(first, 'v2', encode('a@1 v2')), 'a@1 v2');
    // The next revision is another record: it misses, whatever the earlier one kept.
    assert.equal(cache.encoded(record('a', 2), 'v1', encode('a@2 v1')), 'a@2 v1');
    assert.deepEqual(calls, ['a@1 v1', 'a@1 v2', 'a@2 v1']);
  });

  it('keeps at most its capacity of records, dropping the oldest first', () => {
    const cache = new EncodedObjects(2);
    const [a, b, c] = [record('a', 1), record('b', 2), record('c', 3)];
    cache.encoded(a, 'f', () => 'a');
    cache.encoded(b, 'f', () => 'b');
    cache.encoded(c, 'f', () => 'c');
    assert.equal(cache.size, 2);
    assert.equal(
      cache.encoded(a, 'f', () => 'a again'),
      'a again',
    );
    assert.equal(
      cache.encoded(c, 'f', () => 'never'),
      'c',
    );
  });
});
