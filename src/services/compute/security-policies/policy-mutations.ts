import { INSPECTION_SIZES } from './waf/inspection-limit.ts';
import type { Reading } from '../../../core/identifiers.ts';
import { SECURITY_POLICY_TYPES } from '../identifiers.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { conditionNotMet, invalidFieldValue } from '../shared/errors.ts';
import { sameFingerprint } from '../shared/fingerprint.ts';
import type { Scope } from '../shared/locations.ts';
import { checkLabels } from '../shared/labels.ts';
import { checkResourceName } from '../shared/names.ts';
import { checkDescription } from '../shared/string-limits.ts';
import { applyPatch } from './apply-rule-patch.ts';
import type { ExpressionCache } from './expression-cache.ts';
import { DEFAULT_POLICY_TYPE, MAX_PRIORITY, MESSAGES, REGIONAL_POLICY_TYPES, type PolicyType } from './constants.ts';
import { OUTPUT_ONLY_POLICY_FIELDS, PolicySchema, SetLabelsSchema, type SecurityPolicyBody, type SetLabelsBody } from './model.ts';
import { EMPTY_LABEL_FINGERPRINT, policyScopeOf, type StoredPolicy } from './policy.ts';
import { defaultRule, prepareNewRule, preparePatchedRule, type RuleScope, type StoredRule } from './prepare-rule.ts';
import { findRule } from './rule-priority.ts';

/**
 * Every change to a security policy as a pure function from the stored policy and the request
 * to the policy to store. The service runs each twice: on the request, so validation answers
 * synchronously (400, 404, 409, 412), and again inside the transaction that completes the
 * Operation, against whatever the policy is by then, so concurrent changes never overwrite each
 * other. Each takes the fingerprint the result gets, keeping randomness outside.
 */

/** ChangeEnv is what a change needs besides the request: the fingerprint the result gets and, optionally, an expression cache. */
export interface ChangeEnv {
  readonly fingerprint: string;
  /** The label fingerprint setLabels gives the result. */
  readonly labelFingerprint?: string;
  readonly expressions?: ExpressionCache;
}

/** NewPolicy is what insert needs besides the body. */
export interface NewPolicy extends ChangeEnv {
  readonly project: string;
  readonly scope: Scope;
  readonly id: string;
  readonly creationTime: number;
}

/** SETTINGS are the policy members kept as given (patchable, not interpreted). */
const SETTINGS = ['adaptiveProtectionConfig', 'advancedOptionsConfig', 'ddosProtectionConfig', 'recaptchaOptionsConfig', 'userDefinedFields'] as const;

/** buildPolicy validates an insert body and returns the new policy, with the default rule added when missing. */
export function buildPolicy(body: unknown, input: NewPolicy): StoredPolicy {
  const decoded = decodePolicy(body);
  const name = checkResourceName(decoded.name);
  checkDescription(decoded.description);
  if (decoded.labels !== undefined) checkLabels(decoded.labels, 'resource.labels');
  const given = readType(decoded.type);
  const type = given?.canonical ?? DEFAULT_POLICY_TYPE;
  if (input.scope.kind !== 'global' && !REGIONAL_POLICY_TYPES.includes(type)) {
    throw invalidFieldValue('resource.type', decoded.type ?? type, MESSAGES.regionalType);
  }
  const settings = settingsOf(decoded);
  const scope = ruleScope(name, type, input.scope, settings, input.expressions);
  const rules = prepareRuleSet(decoded.rules ?? [], scope);
  if (!rules.some((rule) => rule.priority === MAX_PRIORITY)) rules.push(defaultRule());
  return {
    id: input.id,
    name,
    project: input.project,
    scope: input.scope,
    creationTime: input.creationTime,
    description: decoded.description ?? '',
    type,
    // The spelling is remembered only when it is not the real one, so stored policies stay as they were.
    ...(given?.spelling === 'spec' ? { typeSpelling: given.spelling } : {}),
    rules: sortRules(rules),
    fingerprint: input.fingerprint,
    labels: decoded.labels ?? {},
    labelFingerprint: EMPTY_LABEL_FINGERPRINT,
    settings,
  };
}

/** prepareRuleSet validates the rules of a whole policy (insert, or a patch that replaces them): each valid, no priority twice. */
function prepareRuleSet(bodies: readonly unknown[], scope: RuleScope): StoredRule[] {
  const rules: StoredRule[] = [];
  bodies.forEach((body, i) => {
    const rule = prepareNewRule(body, { ...scope, field: `resource.rules[${i}]` });
    if (rules.some((other) => other.priority === rule.priority)) {
      throw invalidFieldValue(`resource.rules[${i}].priority`, String(rule.priority), MESSAGES.samePriority);
    }
    rules.push(rule);
  });
  return rules;
}

/** readType reads a request's `type` in either spelling (the schema has already limited it to known values). */
function readType(value: string | undefined): (Reading & { canonical: PolicyType }) | undefined {
  if (value === undefined) return undefined;
  const reading = SECURITY_POLICY_TYPES.read(value);
  return reading === undefined ? undefined : { canonical: reading.canonical as PolicyType, spelling: reading.spelling };
}

/** addRule inserts a new rule; its priority must be free. */
export function addRule(policy: StoredPolicy, body: unknown, env: ChangeEnv): StoredPolicy {
  const rule = prepareNewRule(body, scopeOf(policy, env));
  if (policy.rules.some((other) => other.priority === rule.priority)) {
    throw invalidFieldValue('resource.priority', String(rule.priority), MESSAGES.samePriority);
  }
  return { ...policy, rules: sortRules([...policy.rules, rule]), fingerprint: env.fingerprint };
}

/** patchRule merges a body into the rule at `priority`; a different body priority moves the rule, if that priority is free. */
export function patchRule(policy: StoredPolicy, priority: number, body: unknown, updateMask: string | undefined, env: ChangeEnv): StoredPolicy {
  const stored = findRule(policy, priority);
  const rule = preparePatchedRule(stored, body, updateMask, scopeOf(policy, env));
  if (rule.priority !== priority && policy.rules.some((other) => other.priority === rule.priority)) {
    throw invalidFieldValue('resource.priority', String(rule.priority), MESSAGES.samePriority);
  }
  return { ...policy, rules: sortRules([...policy.rules.filter((other) => other.priority !== priority), rule]), fingerprint: env.fingerprint };
}

/** removeRule deletes the rule at `priority`; the default rule stays. */
export function removeRule(policy: StoredPolicy, priority: number, fingerprint: string): StoredPolicy {
  findRule(policy, priority);
  if (priority === MAX_PRIORITY) throw invalidFieldValue('priority', String(priority), MESSAGES.removeDefaultRule);
  return { ...policy, rules: policy.rules.filter((rule) => rule.priority !== priority), fingerprint };
}

/**
 * patchPolicy changes the policy's own fields. The `fingerprint` must be given and current
 * (compared as bytes, so either base64 alphabet works), else 412; the name and type are fixed;
 * labels change only through setLabels. A non-empty `rules` replaces the whole rule set at once,
 * validated as on insert: this is how `gcloud compute security-policies import` (export, edit,
 * import) updates several rules atomically. A rule set without the default rule keeps the
 * current default rule, which a policy always has.
 */
export function patchPolicy(policy: StoredPolicy, body: unknown, updateMask: string | undefined, env: ChangeEnv): StoredPolicy {
  const decoded = decodePolicy(body);
  // A request that is invalid in itself is refused as such (400) before its precondition is weighed.
  checkDescription(decoded.description);
  if (decoded.fingerprint === undefined || !sameFingerprint(decoded.fingerprint, policy.fingerprint)) throw conditionNotMet(MESSAGES.invalidFingerprint);
  if (decoded.name !== undefined && decoded.name !== policy.name) throw invalidFieldValue('resource.name', decoded.name, MESSAGES.nameChange);
  if (decoded.type !== undefined && readType(decoded.type)?.canonical !== policy.type)
    throw invalidFieldValue('resource.type', decoded.type, MESSAGES.typeChange);
  const { fingerprint: _given, name: _name, type: _type, rules: givenRules, labels: _labels, labelFingerprint: _labelFingerprint, ...changes } = decoded;
  const current = { description: policy.description, ...policy.settings };
  const merged = applyPatch({ schema: PolicySchema, name: 'SecurityPolicy', outputOnly: POLICY_FIXED_FIELDS }, current, changes, updateMask);
  const settings = settingsOf(merged as SecurityPolicyBody);
  const next: StoredPolicy = {
    ...policy,
    description: typeof merged['description'] === 'string' ? merged['description'] : '',
    settings,
    fingerprint: env.fingerprint,
  };
  const scope = scopeOf(next, env);
  if (givenRules !== undefined && givenRules.length > 0) {
    const rules = prepareRuleSet(givenRules, scope);
    if (!rules.some((rule) => rule.priority === MAX_PRIORITY)) rules.push(findRule(policy, MAX_PRIORITY));
    return { ...next, rules: sortRules(rules) };
  }
  // Rules of a network policy must keep naming user-defined fields the policy still has.
  for (const [i, rule] of next.rules.entries()) prepareNewRule(rule, { ...scope, field: `resource.rules[${i}]` });
  return next;
}

/** setLabels replaces the labels; a missing or stale labelFingerprint is a 412 (compared as bytes). */
export function setLabels(policy: StoredPolicy, body: unknown, env: ChangeEnv): StoredPolicy {
  const decoded = decodeResource<SetLabelsBody>(SetLabelsSchema, body);
  const labels = decoded.labels ?? {};
  // Invalid labels are a 400 whatever the fingerprint says.
  checkLabels(labels, 'resource.labels');
  if (decoded.labelFingerprint === undefined || !sameFingerprint(decoded.labelFingerprint, policy.labelFingerprint)) {
    throw conditionNotMet(MESSAGES.invalidLabelFingerprint);
  }
  const labelFingerprint = Object.keys(labels).length === 0 ? EMPTY_LABEL_FINGERPRINT : (env.labelFingerprint ?? env.fingerprint);
  return { ...policy, labels, labelFingerprint, fingerprint: env.fingerprint };
}

/** POLICY_FIXED_FIELDS are members a patch mask may not name: output-only ones and those with their own method. */
const POLICY_FIXED_FIELDS: readonly string[] = [...OUTPUT_ONLY_POLICY_FIELDS, 'name', 'type', 'fingerprint', 'rules', 'labels', 'labelFingerprint'];

function decodePolicy(body: unknown): SecurityPolicyBody {
  const decoded: Record<string, unknown> = decodeResource<SecurityPolicyBody>(PolicySchema, body);
  for (const name of OUTPUT_ONLY_POLICY_FIELDS) delete decoded[name];
  return decoded as SecurityPolicyBody;
}

function settingsOf(body: SecurityPolicyBody): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const name of SETTINGS) if (body[name] !== undefined) settings[name] = body[name];
  const size = body.advancedOptionsConfig?.requestBodyInspectionSize;
  // "Values supported are "8KB", "16KB, "32KB", "48KB" and "64KB". Values are case insensitive." (API doc; the refusal's reason is unverified).
  if (size !== undefined && !INSPECTION_SIZES.has(size.toUpperCase())) {
    throw invalidFieldValue(
      'resource.advancedOptionsConfig.requestBodyInspectionSize',
      size,
      `Supported values are ${[...INSPECTION_SIZES.keys()].map((value) => `"${value}"`).join(', ')}.`,
    );
  }
  return settings;
}

function ruleScope(name: string, type: PolicyType, scope: Scope, settings: Record<string, unknown>, expressions: ExpressionCache | undefined): RuleScope {
  const fields = (settings['userDefinedFields'] ?? []) as readonly { name?: string }[];
  return {
    policyName: name,
    policyType: type,
    scope: policyScopeOf(scope),
    userDefinedFieldNames: fields.flatMap((field) => (field.name === undefined ? [] : [field.name])),
    ...(expressions === undefined ? {} : { expressions }),
  };
}

function scopeOf(policy: StoredPolicy, env: ChangeEnv): RuleScope {
  return ruleScope(policy.name, policy.type, policy.scope, policy.settings, env.expressions);
}

function sortRules(rules: readonly StoredRule[]): StoredRule[] {
  return [...rules].sort((a, b) => a.priority - b.priority);
}
