import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MemoryStore } from '../../../store/memory-store.ts';
import { HISTORY_LIMIT, HISTORY_TRIM_BATCH, POLICY_HISTORY_KIND, historyPrefix, recordPolicyChange, type PolicyHistoryEntry } from './history.ts';
import type { StoredPolicy } from './policy.ts';

it('keeps the newest HISTORY_LIMIT changes of a policy, dropping the oldest once HISTORY_TRIM_BATCH more have gathered', async () => {
  const store = new MemoryStore();
  const policy = { name: 'pol' } as unknown as StoredPolicy;
  const entry = (i: number): PolicyHistoryEntry => ({
    method: 'patchRule',
    priority: i,
    time: i,
    user: 'u',
    operation: `op-${i}`,
    before: null,
    after: policy,
  });
  const keys = async () => (await store.list<PolicyHistoryEntry>(POLICY_HISTORY_KIND, { prefix: historyPrefix('p/pol') })).map((r) => r.value.priority);
  try {
    const limit = HISTORY_LIMIT + HISTORY_TRIM_BATCH;
    for (let i = 1; i <= limit; i++) await store.transact((tx) => recordPolicyChange(tx, 'p/pol', i, entry(i)));
    assert.equal((await keys()).length, limit);
    await store.transact((tx) => recordPolicyChange(tx, 'p/pol', limit + 1, entry(limit + 1)));
    const kept = await keys();
    assert.equal(kept.length, HISTORY_LIMIT);
    assert.deepEqual([kept[0], kept.at(-1)], [limit + 2 - HISTORY_LIMIT, limit + 1]);
    // Another policy's history is its own.
    await store.transact((tx) => recordPolicyChange(tx, 'p/other', 1, entry(1)));
    assert.equal((await keys()).length, HISTORY_LIMIT);
  } finally {
    await store.close();
  }
});
