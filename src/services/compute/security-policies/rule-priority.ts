// The rule lookups the routes need before a change is validated, apart from the mutations (and
// the schemas and rules-language checker they load) so the routes stay out of start-up.
import { invalidPayload } from '../shared/decode-resource.ts';
import { invalidFieldValue } from '../shared/errors.ts';
import { MESSAGES } from './constants.ts';
import type { StoredPolicy } from './policy.ts';
import type { StoredRule } from './prepare-rule.ts';

/** findRule returns the rule at `priority` or throws the real 400. */
export function findRule(policy: StoredPolicy, priority: number): StoredRule {
  const rule = policy.rules.find((candidate) => candidate.priority === priority);
  if (rule === undefined) throw invalidFieldValue('priority', String(priority), MESSAGES.noRuleAtPriority(policy.name, priority));
  return rule;
}

/** parsePriority reads the `priority` query parameter of the rule methods; absent means 0, as proto defaults do. */
export function parsePriority(query: Record<string, unknown>): number {
  const raw = query['priority'];
  if (raw === undefined || raw === '') return 0;
  const text = String(raw);
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < -2147483648 || value > 2147483647) throw invalidPayload(`Invalid value at 'priority' (TYPE_INT32), "${text}"`);
  return value;
}
