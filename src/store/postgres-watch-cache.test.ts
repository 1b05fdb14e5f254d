import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WatchCache } from './postgres-watch-cache.ts';
import type { StoredRecord } from './store.ts';

const record = (key: string, revision: number, value: unknown = key): StoredRecord => ({ kind: 'k', key, value, createRevision: revision, revision });

describe('WatchCache', () => {
  it('follows changes in revision order and ignores ones it already holds', () => {
    const cache = new WatchCache();
    cache.load(2, [record('a', 1), record('b', 2)]);
    cache.apply([
      { type: 'updated', kind: 'k', key: 'a', value: 'stale', revision: 2, createRevision: 1 },
      { type: 'updated', kind: 'k', key: 'a', value: 'a2', revision: 3, createRevision: 1 },
      { type: 'deleted', kind: 'k', key: 'b', value: 'b', revision: 4, createRevision: 2 },
      { type: 'created', kind: 'k', key: 'c', value: 'c', revision: 5, createRevision: 5 },
    ]);
    assert.equal(cache.revision, 5);
    assert.deepEqual(cache.list('k', {}), [
      { kind: 'k', key: 'a', value: 'a2', createRevision: 1, revision: 3 },
      { kind: 'k', key: 'c', value: 'c', createRevision: 5, revision: 5 },
    ]);
    assert.equal(cache.get('k', 'b'), undefined);
  });

  it('lists and counts with staged writes over the cached state, innermost first', () => {
    const cache = new WatchCache();
    cache.load(3, [record('p/a', 1), record('p/b', 2), record('q/a', 3)]);
    const group = new Map([
      [
        'k',
        new Map<string, StoredRecord | null>([
          ['p/b', null],
          ['p/c', record('p/c', 4)],
        ]),
      ],
    ]);
    const own = new Map([
      [
        'k',
        new Map<string, StoredRecord | null>([
          ['p/c', record('p/c', 5, 'mine')],
          ['p/0', record('p/0', 6)],
        ]),
      ],
    ]);
    const layers = [own, group];
    assert.deepEqual(
      cache.list('k', { prefix: 'p/' }, layers).map((r) => [r.key, r.value]),
      [
        ['p/0', 'p/0'],
        ['p/a', 'p/a'],
        ['p/c', 'mine'],
      ],
    );
    assert.deepEqual(
      cache.list('k', { prefix: 'p/', after: 'p/0', limit: 1 }, layers).map((r) => r.key),
      ['p/a'],
    );
    assert.equal(cache.count('k', 'p/', layers), 3);
    assert.equal(cache.count('k', undefined), 3, 'the cached state itself is unchanged');
    assert.equal(cache.get('k', 'p/b', layers), undefined);
  });

  it('makes a read wait until it holds the revision asked for, and says when it is behind', async () => {
    const cache = new WatchCache();
    cache.load(1, []);
    let behind = 0;
    const reached = cache.reached(
      2,
      () => behind++,
      10_000,
      () => new Error('timeout'),
    );
    assert.equal(behind, 1);
    cache.apply([{ type: 'created', kind: 'k', key: 'x', value: 1, revision: 2, createRevision: 2 }]);
    await reached;
    await cache.reached(
      2,
      () => behind++,
      10_000,
      () => new Error('timeout'),
    );
    assert.equal(behind, 1, 'a revision it holds needs no catching up');
    await assert.rejects(
      cache.reached(
        3,
        () => undefined,
        10,
        () => new Error('the cache fell behind'),
      ),
      /the cache fell behind/,
    );
  });
});
