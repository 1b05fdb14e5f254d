import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommit } from './group-commit.ts';
import type { QueuedTransaction } from './queued-transaction.ts';
import { StoreClosedError, type Transaction } from './store.ts';

/** A stand-in backend: commits a group by running its jobs in order, and records the groups it saw. */
function backend(options: { readonly maxGroup?: number; readonly turns?: number } = {}) {
  const groups: string[][] = [];
  let closed = false;
  let failNext: Error | undefined;
  const commits = new GroupCommit({
    maxGroup: options.maxGroup ?? 64,
    ...(options.turns === undefined ? {} : { turns: options.turns }),
    isClosed: () => closed,
    commit: async (group: readonly QueuedTransaction[]) => {
      const results: unknown[] = [];
      const names: string[] = [];
      for (const job of group) {
        const result = await job.fn({} as Transaction);
        names.push(String(result));
        results.push(result);
      }
      groups.push(names);
      if (failNext !== undefined) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      for (const [index, job] of group.entries()) job.resolve(results[index]);
    },
  });
  const submit = (name: string): Promise<unknown> => commits.submit(async () => name);
  return {
    commits,
    groups,
    submit,
    close: () => {
      closed = true;
    },
    failNextCommit: (error: Error) => {
      failNext = error;
    },
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('commits the transactions of one turn together, in order, each settling with its own result', async () => {
    const store = backend();
    assert.deepEqual(await Promise.all([store.submit('a'), store.submit('b'), store.submit('c')]), ['a', 'b', 'c']);
    assert.deepEqual(store.groups, [['a', 'b', 'c']]);
  });

  it('lets transactions of the next turns join a group that waits for them', async () => {
    const store = backend({ turns: 2 });
    const first = store.submit('a');
    await nextTurn();
    const second = store.submit('b');
    await Promise.all([first, second]);
    assert.deepEqual(store.groups, [['a', 'b']]);
  });

  it('without turns to wait, commits a later transaction in a group of its own', async () => {
    const store = backend();
    const first = store.submit('a');
    await nextTurn();
    await Promise.all([first, store.submit('b')]);
    assert.deepEqual(store.groups, [['a'], ['b']]);
  });

  it('takes at most maxGroup transactions a commit, and the rest in the groups that follow', async () => {
    const store = backend({ maxGroup: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(store.submit));
    assert.deepEqual(store.groups, [['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('fails the jobs a throwing commit left unsettled, and commits the next group', async () => {
    const store = backend({ maxGroup: 1 });
    store.failNextCommit(new Error('disk full'));
    const [failed, served] = await Promise.allSettled([store.submit('a'), store.submit('b')]);
    assert.deepEqual(failed, { status: 'rejected', reason: new Error('disk full') });
    assert.deepEqual(served, { status: 'fulfilled', value: 'b' });
  });

  it('runs exclusive work after every transaction queued before it, and fails what is queued once the store closed', async () => {
    const store = backend({ turns: 2 });
    const queued = store.submit('a');
    const closing = store.commits.exclusive(async () => {
      store.close();
      return [...store.groups];
    });
    assert.deepEqual(await closing, [['a']]);
    assert.equal(await queued, 'a');
    await assert.rejects(store.submit('late'), StoreClosedError);
    assert.deepEqual(store.groups, [['a']]);
  });
});
