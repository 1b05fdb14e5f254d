/**
 * A security policy's history: each change the Operation executor applies (insert, addRule,
 * patchRule, removeRule, patch, setLabels) is recorded in the same transaction, with the policy
 * before and after, who asked, and when — what the web console shows as a diff per change. The
 * change feed alone cannot: it carries only new values and is compacted. Bounded per policy;
 * removed with the policy.
 */
import type { Transaction } from '../../../store/store.ts';
import type { StoredPolicy } from './policy.ts';

/** POLICY_HISTORY_KIND is the store kind; keys are `<policy key>/<revision, 16 digits>`, oldest first. */
export const POLICY_HISTORY_KIND = 'compute.securityPolicyHistory';

/** HISTORY_LIMIT is how many changes are kept per policy at least (the oldest go first; see HISTORY_TRIM_BATCH). */
export const HISTORY_LIMIT = 200;

/** PolicyHistoryEntry is one recorded change. */
export interface PolicyHistoryEntry {
  /** The API method that made it: `insert`, `addRule`, `patchRule`, `removeRule`, `patch`, `setLabels`. */
  readonly method: string;
  /** The rule priority the method named (patchRule, removeRule). */
  readonly priority?: number;
  /** When it was applied (epoch milliseconds, the server's clock). */
  readonly time: number;
  /** The email of the principal whose Operation applied it. */
  readonly user: string;
  /** The Operation's name. */
  readonly operation: string;
  readonly before: StoredPolicy | null;
  readonly after: StoredPolicy;
}

/** historyPrefix is the key prefix of one policy's history. */
export function historyPrefix(policyKey: string): string {
  return `${policyKey}/`;
}

/**
 * HISTORY_TRIM_BATCH is how far past HISTORY_LIMIT a history grows before the oldest entries are
 * dropped, all at once: one list and a few deletes per that many changes instead of on each.
 */
export const HISTORY_TRIM_BATCH = 50;

/** recordPolicyChange adds one entry for the write at `revision`, dropping the oldest beyond HISTORY_LIMIT once HISTORY_TRIM_BATCH more have gathered. */
export async function recordPolicyChange(tx: Transaction, policyKey: string, revision: number, entry: PolicyHistoryEntry): Promise<void> {
  await tx.put(POLICY_HISTORY_KIND, `${historyPrefix(policyKey)}${String(revision).padStart(16, '0')}`, entry);
  const count = await tx.count(POLICY_HISTORY_KIND, { prefix: historyPrefix(policyKey) });
  if (count <= HISTORY_LIMIT + HISTORY_TRIM_BATCH) return;
  for (const old of await tx.list(POLICY_HISTORY_KIND, { prefix: historyPrefix(policyKey), limit: count - HISTORY_LIMIT }))
    await tx.delete(POLICY_HISTORY_KIND, old.key);
}

/** forgetPolicyHistory removes a deleted policy's history. */
export async function forgetPolicyHistory(tx: Transaction, policyKey: string): Promise<void> {
  for (const old of await tx.list(POLICY_HISTORY_KIND, { prefix: historyPrefix(policyKey) })) await tx.delete(POLICY_HISTORY_KIND, old.key);
}
