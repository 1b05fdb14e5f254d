import type { Spelling } from '../../../core/identifiers.ts';
import { SECURITY_POLICY_TYPES } from '../identifiers.ts';
import { link, type Links } from '../shared/links.ts';
import { scopePath, type Scope } from '../shared/locations.ts';
import { rfc3339 } from '../shared/time.ts';
import type { PolicyScope, PolicyType } from './constants.ts';
import type { StoredRule } from './prepare-rule.ts';

/** SECURITY_POLICIES_KIND is the store kind; keys are `project/scopePath/name` (`p/regions/us-central1/pol`). */
export const SECURITY_POLICIES_KIND = 'compute.securityPolicies';

/** EMPTY_LABEL_FINGERPRINT is the label fingerprint the real service gives a resource without labels. */
export const EMPTY_LABEL_FINGERPRINT = '42WmSpB8rSM=';

/** StoredPolicy is a security policy as kept; rules are kept sorted by priority. */
export interface StoredPolicy {
  readonly id: string;
  readonly name: string;
  readonly project: string;
  readonly scope: Scope;
  readonly creationTime: number;
  readonly description: string;
  /** The type in its canonical (real) spelling. */
  readonly type: PolicyType;
  /** The spelling the client wrote the type in (never rendered itself); absent means the real one. */
  readonly typeSpelling?: Spelling;
  readonly rules: readonly StoredRule[];
  /** 8 random bytes, base64; replaced by every modification (optimistic locking for patch). */
  readonly fingerprint: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly labelFingerprint: string;
  /** The remaining configuration messages (adaptive protection, advanced options, user-defined fields, …) as given. */
  readonly settings: Readonly<Record<string, unknown>>;
}

/**
 * storedPolicy reads a policy record, mapping a type stored in the spec's spelling (by earlier
 * versions, which kept EDGEGUARD) to the canonical one, remembering the spelling for answers.
 */
export function storedPolicy(value: StoredPolicy): StoredPolicy {
  const reading = SECURITY_POLICY_TYPES.read(value.type);
  if (reading === undefined || reading.spelling === 'real') return value;
  return { ...value, type: reading.canonical as PolicyType, typeSpelling: value.typeSpelling ?? reading.spelling };
}

/** policyKey is the store key of a policy. */
export function policyKey(project: string, scope: Scope, name: string): string {
  return `${project}/${scopePath(scope)}/${name}`;
}

/** policyPath is the resource path of a policy, the targetLink of every Operation on it. */
export function policyPath(project: string, scope: Scope, name: string): string {
  return `projects/${project}/${scopePath(scope)}/securityPolicies/${name}`;
}

/** policyScopeOf maps a location onto the distinction validation cares about. */
export function policyScopeOf(scope: Scope): PolicyScope {
  return scope.kind === 'global' ? 'global' : 'regional';
}

/** permissionPrefix is the IAM collection of a policy: regional and global policies have separate permissions. */
export function permissionPrefix(scope: Scope): string {
  return scope.kind === 'global' ? 'compute.securityPolicies' : 'compute.regionSecurityPolicies';
}

/** renderRule is the wire form of a rule (it is stored in that form already). */
export function renderRule(rule: StoredRule): Record<string, unknown> {
  return { ...rule };
}

/** renderPolicy is the wire form, links on the caller's address; list items carry `region` as gcloud filters on it. */
export function renderPolicy(policy: StoredPolicy, links: Links): Record<string, unknown> {
  return {
    kind: 'compute#securityPolicy',
    id: policy.id,
    creationTimestamp: rfc3339(policy.creationTime),
    name: policy.name,
    description: policy.description,
    rules: policy.rules.map(renderRule),
    fingerprint: policy.fingerprint,
    selfLink: link(links, policyPath(policy.project, policy.scope, policy.name)),
    type: SECURITY_POLICY_TYPES.spell(policy.type, policy.typeSpelling),
    ...(Object.keys(policy.labels).length > 0 ? { labels: { ...policy.labels } } : {}),
    labelFingerprint: policy.labelFingerprint,
    ...policy.settings,
    ...(policy.scope.kind === 'region' ? { region: link(links, `projects/${policy.project}/regions/${policy.scope.name}`) } : {}),
  };
}
