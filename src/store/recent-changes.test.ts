import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentChanges } from './recent-changes.ts';
import type { Change } from './store.ts';

const change = (revision: number, kind = 'a'): Change => ({
  type: 'created',
  kind,
  key: `k${revision}`,
  value: { revision },
  revision,
  createRevision: revision,
});
const revisions = (changes: readonly Change[] | undefined) => changes?.map((c) => c.revision);

describe('recent changes (the in-memory tail of the SQLite change feed)', () => {
  it('answers for every revision from the one it started at, with kinds and limit', () => {
    const recent = new RecentChanges(8, 10);
    assert.deepEqual(recent.since(10, {}), []);
    assert.equal(recent.since(9, {}), undefined, 'changes before the start are not held');
    recent.append([change(11), change(12, 'b')]);
    recent.append([change(13)]);
    assert.deepEqual(revisions(recent.since(10, {})), [11, 12, 13]);
    assert.deepEqual(revisions(recent.since(11, {})), [12, 13]);
    assert.deepEqual(revisions(recent.since(13, {})), []);
    assert.deepEqual(revisions(recent.since(10, { kinds: ['a'] })), [11, 13]);
    assert.deepEqual(revisions(recent.since(10, { kinds: ['a', 'b'], limit: 2 })), [11, 12]);
    assert.deepEqual(revisions(recent.since(10, { kinds: [] })), []);
  });

  it('gives up on revisions older than what it still holds once it wraps around', () => {
    const recent = new RecentChanges(3, 0);
    for (let revision = 1; revision <= 7; revision++) recent.append([change(revision)]);
    assert.deepEqual(revisions(recent.since(4, {})), [5, 6, 7]);
    assert.deepEqual(revisions(recent.since(6, {})), [7]);
    assert.equal(recent.since(3, {}), undefined);
    assert.equal(recent.since(0, {}), undefined);
  });

  it('with no room holds nothing and answers only for the newest revision', () => {
    const recent = new RecentChanges(0, 5);
    recent.append([change(6), change(7)]);
    assert.deepEqual(recent.since(7, {}), []);
    assert.equal(recent.since(6, {}), undefined);
  });
});
