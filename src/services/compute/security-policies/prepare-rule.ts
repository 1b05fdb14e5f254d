import { invalidFieldValue } from '../shared/errors.ts';
import { applyRulePatch } from './apply-rule-patch.ts';
import { MAX_PRIORITY, MESSAGES } from './constants.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { OUTPUT_ONLY_RULE_FIELDS, RuleSchema, type SecurityPolicyRule } from './model.ts';
import type { RuleContext } from './rule-context.ts';
import { validateRule } from './validate-rule.ts';

/**
 * The two ways a rule enters a policy, as pure functions the handlers call inside their
 * transaction: decode the body strictly, build the rule to store, validate it whole. Both
 * return the rule in its stored form (server-filled `kind`, `description`, `preview`).
 */

/** StoredRule is a rule as the policy holds it and clients read it back. */
export type StoredRule = SecurityPolicyRule & { kind: 'compute#securityPolicyRule'; description: string; preview: boolean; priority: number };

/** RuleScope is the context minus what the rule itself decides (whether it is the default rule). */
export type RuleScope = Omit<RuleContext, 'isDefaultRule'>;

/** prepareNewRule decodes and validates an addRule body (or a rule of an insert body). */
export function prepareNewRule(body: unknown, scope: RuleScope): StoredRule {
  const rule = decodeRule(body, scope);
  validateRule(rule, { ...scope, isDefaultRule: rule.priority === MAX_PRIORITY });
  return toStored(rule);
}

/**
 * preparePatchedRule decodes a patchRule body, merges it into the stored rule under the update
 * mask and validates the result as a whole, so a patch is judged by the rule it would leave.
 */
export function preparePatchedRule(stored: SecurityPolicyRule, body: unknown, updateMask: string | undefined, scope: RuleScope): StoredRule {
  const patch = decodeRule(body, scope);
  const merged = applyRulePatch(stored, patch, updateMask);
  if (stored.priority === MAX_PRIORITY && merged.priority !== MAX_PRIORITY) {
    throw invalidFieldValue(`${scope.field ?? 'resource'}.priority`, String(merged.priority), MESSAGES.moveDefaultRule);
  }
  const context = { ...scope, isDefaultRule: stored.priority === MAX_PRIORITY };
  validateRule(merged, stored.action === undefined ? context : { ...context, previousAction: stored.action });
  return toStored(merged);
}

/** defaultRule is the rule insert adds when the body has none at the lowest priority: allow everything. */
export function defaultRule(): StoredRule {
  return toStored({
    action: 'allow',
    description: 'default rule',
    match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
    priority: MAX_PRIORITY,
  });
}

/** decodeRule reads a rule body strictly and drops what the server sets itself. */
export function decodeRule(body: unknown, scope: Pick<RuleScope, 'field'>): SecurityPolicyRule {
  const rule: Record<string, unknown> = decodeResource<SecurityPolicyRule>(RuleSchema, body, scope.field ?? 'resource');
  for (const name of OUTPUT_ONLY_RULE_FIELDS) delete rule[name];
  return rule as SecurityPolicyRule;
}

function toStored(rule: SecurityPolicyRule): StoredRule {
  return { description: '', preview: false, ...rule, kind: 'compute#securityPolicyRule', priority: rule.priority ?? 0 };
}
