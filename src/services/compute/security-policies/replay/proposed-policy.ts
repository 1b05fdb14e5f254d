/**
 * The policy a replay compares with the one in force: a whole policy as given (a file
 * `gcloud compute security-policies export` wrote, in either spelling of its type), or the current
 * policy with rule edits applied on a copy exactly as the API applies them (`addRule` for a free
 * priority, `patchRule` merging into the rule at a taken one, `removeRule` for `"rule": null`), so
 * an edit the API would refuse is refused with the API's own message.
 */
import { ComputeError } from '../../shared/errors.ts';
import { addRule, patchRule, removeRule } from '../policy-mutations.ts';
import type { StoredPolicy } from '../policy.ts';
import { badInput } from '../what-if-body.ts';
import type { RuleEdit } from './replay-body.ts';

/** EDIT_FINGERPRINT is the fingerprint of the edited copy (it is never stored). */
const EDIT_FINGERPRINT = 'cmVwbGF5ZWQ=';

/** editedPolicy applies the edits in order to a copy of `current`, or throws the evaluation's 400 naming the edit. */
export function editedPolicy(current: StoredPolicy, edits: readonly RuleEdit[]): StoredPolicy {
  let next = current;
  const env = { fingerprint: EDIT_FINGERPRINT };
  for (const [i, edit] of edits.entries()) {
    try {
      if (edit.rule === null) next = removeRule(next, edit.priority, EDIT_FINGERPRINT);
      else if (next.rules.some((rule) => rule.priority === edit.priority)) next = patchRule(next, edit.priority, edit.rule, undefined, env);
      else next = addRule(next, { ...edit.rule, priority: edit.priority }, env);
    } catch (error) {
      if (error instanceof ComputeError) throw badInput(`"rules[${i}]" (priority ${edit.priority}): ${error.message}`);
      throw error;
    }
  }
  return next;
}
