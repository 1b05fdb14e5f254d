/**
 * PolicyRule semantics (upstream `pkg/apis/rbac/v1/evaluation_helpers.go` and
 * `pkg/registry/rbac/validation/policy_comparator.go`): whether a rule allows a request, whether
 * a set of rules covers another (escalation prevention), and the compact text of a rule that the
 * escalation 403 lists.
 */
import type { PolicyRule } from '../resources/cluster-roles.ts';

/** Attributes describe one request to authorize (the apiserver's `authorizer.Attributes`). */
export interface Attributes {
  readonly verb: string;
  readonly resourceRequest: boolean;
  /** The canonical API group (`''` for core). */
  readonly apiGroup: string;
  /** The API group as the client spelled it (for messages). */
  readonly apiGroupSpelled: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  readonly namespace: string;
  readonly path: string;
}

const has = (list: readonly string[] | undefined, value: string): boolean => (list ?? []).includes(value);

/** verbMatches: `*` or the verb. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, '*') || has(rule.verbs, verb);
}

/** apiGroupMatches: `*` or the group. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, '*') || has(rule.apiGroups, group);
}

/** resourceMatches: `*`, `resource[/subresource]`, or `*​/subresource`. */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const candidate of rule.resources ?? []) {
    if (candidate === '*' || candidate === combined) return true;
    if (subresource !== '' && candidate === `*/${subresource}`) return true;
  }
  return false;
}

/** resourceNameMatches: no names listed, or the name listed. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return (rule.resourceNames ?? []).length === 0 || has(rule.resourceNames, name);
}

/** nonResourceURLMatches: `*`, the path, or a `prefix*` covering it. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** ruleAllows is `RuleAllows`: whether one rule grants the request. */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (attributes.resourceRequest) {
    return (
      apiGroupMatches(rule, attributes.apiGroup) &&
      resourceMatches(rule, attributes.resource, attributes.subresource) &&
      resourceNameMatches(rule, attributes.name)
    );
  }
  return nonResourceURLMatches(rule, attributes.path);
}

/** breakdownRule splits a rule into single-verb, single-group, single-resource (and name) rules (`BreakdownRule`). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const name of rule.resourceNames!) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean => (wanted ?? []).every((item) => has(set, item));

function resourceCoversAll(owned: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owned, '*') || hasAll(owned, wanted)) return true;
  for (const resource of wanted ?? []) {
    if (has(owned, resource)) continue;
    const slash = resource.indexOf('/');
    if (slash !== -1 && has(owned, `*/${resource.slice(slash + 1)}`)) continue;
    return false;
  }
  return true;
}

function nonResourceURLsCoverAll(owned: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((path) => (owned ?? []).some((url) => url === path || (url.endsWith('*') && path.startsWith(url.slice(0, -1)))));
}

/** ruleCovers is `ruleCovers`: whether an owned rule grants everything a (broken-down) rule asks. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const names =
    (sub.resourceNames ?? []).length === 0
      ? (owner.resourceNames ?? []).length === 0
      : (owner.resourceNames ?? []).length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** uncovered lists the broken-down rules of `requested` that `owned` does not cover (`Covers`). */
export function uncovered(owned: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) for (const sub of breakdownRule(rule)) if (!owned.some((owner) => ruleCovers(owner, sub))) missing.push(sub);
  return missing;
}

/** compactRules merges single-group, single-resource rules that differ only in verbs (`CompactRules`). */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const isSimple =
      (rule.nonResourceURLs ?? []).length === 0 &&
      (rule.apiGroups ?? []).length === 1 &&
      (rule.resources ?? []).length === 1 &&
      (rule.resourceNames ?? []).length <= 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0], rule.resourceNames?.[0] ?? null]);
    const existing = simple.get(key);
    if (existing === undefined) simple.set(key, { ...rule, verbs: [...(rule.verbs ?? [])] });
    else existing.verbs = [...(existing.verbs ?? []), ...(rule.verbs ?? [])];
  }
  return [...out, ...simple.values()];
}

const goQuoted = (list: readonly string[]): string => `[${list.map((item) => JSON.stringify(item)).join(' ')}]`;

/** compactString prints a rule as `CompactString` does: `{APIGroups:["x"], Resources:["y"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoted(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuoted(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoted(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoted(rule.resourceNames!)}`);
  if ((rule.verbs ?? []).length > 0) parts.push(`Verbs:${goQuoted(rule.verbs!)}`);
  return `{${parts.join(', ')}}`;
}

/** goStrings prints a string list as Go's `%q` does: `["a" "b"]`. */
export function goStrings(list: readonly string[]): string {
  return goQuoted(list);
}
