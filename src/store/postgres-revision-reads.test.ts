import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RevisionReads } from './postgres-revision-reads.ts';

/** manual is a revision query the test answers by hand, counting how often it was sent. */
function manual() {
  const pending: ((revision: number) => void)[] = [];
  return {
    pending,
    query: () => new Promise<number>((resolve) => pending.push(resolve)),
  };
}

describe('RevisionReads', () => {
  it('shares one query between readers that arrive before it is sent', async () => {
    const db = manual();
    const reads = new RevisionReads(db.query);
    const first = reads.read();
    assert.equal(db.pending.length, 1);
    // These arrive while the first query is in flight: they must not take its answer.
    const second = reads.read();
    const third = reads.read();
    assert.equal(db.pending.length, 1, 'one query in flight at a time');
    db.pending[0]!(5);
    assert.equal(await first, 5);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(db.pending.length, 2, 'the queued readers share the next query');
    db.pending[1]!(7);
    assert.deepEqual(await Promise.all([second, third]), [7, 7]);
  });

  it('starts afresh after a failed query, and the waiting readers see the failure of their own query only', async () => {
    let calls = 0;
    const reads = new RevisionReads(async () => {
      calls += 1;
      if (calls === 1) throw new Error('connection lost');
      return 3;
    });
    const failed = reads.read();
    const next = reads.read();
    await assert.rejects(failed, /connection lost/);
    assert.equal(await next, 3);
    assert.equal(await reads.read(), 3);
    assert.equal(calls, 3);
  });
});
