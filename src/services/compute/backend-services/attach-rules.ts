import { invalidFieldValue } from '../shared/errors.ts';
import { resourcePathOf } from '../shared/links.ts';
import type { Scope } from '../shared/locations.ts';
import type { PolicyType } from '../security-policies/constants.ts';
import type { LoadBalancingScheme } from './schema.ts';

/** PolicySlot is where a backend service holds a policy: its backend policy or its edge policy. */
export type PolicySlot = 'securityPolicy' | 'edgeSecurityPolicy';

/** PolicyRefPath is a security policy reference read from a body: its path and where it lives. */
export interface PolicyRefPath {
  /** The reference as the request wrote it (errors quote it). */
  readonly text: string;
  readonly path: string;
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

const POLICY_PATH = /^projects\/([^/]+)\/(?:global|regions\/([^/]+))\/securityPolicies\/([^/]+)$/;

/**
 * policyReference reads a body's policy reference (a URL on any host, or a partial path) into the
 * policy it names; empty text is undefined, a detach. Anything but a security policy is the
 * service's 400 on the field.
 */
export function policyReference(text: string, project: string, field: string): PolicyRefPath | undefined {
  if (text.trim() === '') return undefined;
  const path = resourcePathOf(text, project);
  const match = path === undefined ? null : POLICY_PATH.exec(path);
  if (path === undefined || match === null) throw invalidFieldValue(field, text, 'The URL is malformed.');
  const region = match[2];
  return { text, path, project: match[1]!, scope: region === undefined ? { kind: 'global' } : { kind: 'region', name: region }, name: match[3]! };
}

/** AttachTarget is what the rules read of the backend service a policy is attached to. */
export interface AttachTarget {
  readonly scope: Scope;
  readonly loadBalancingScheme: LoadBalancingScheme;
}

/**
 * SCHEMES_BY_TYPE are the load-balancing schemes whose backend services take a backend policy of
 * each type, by where the backend service lives (Cloud Armor's overview: global external
 * Application Load Balancers and classic ones take CLOUD_ARMOR; regional external and internal
 * Application Load Balancers take regional CLOUD_ARMOR policies; external passthrough Network Load
 * Balancers take CLOUD_ARMOR_NETWORK; Cloud Service Mesh and internal Application Load Balancers
 * take CLOUD_ARMOR_INTERNAL_SERVICE).
 */
const SCHEMES_BY_TYPE: Readonly<Record<'global' | 'region', Readonly<Partial<Record<PolicyType, readonly LoadBalancingScheme[]>>>>> = {
  global: {
    CLOUD_ARMOR: ['EXTERNAL', 'EXTERNAL_MANAGED'],
    CLOUD_ARMOR_INTERNAL_SERVICE: ['INTERNAL_SELF_MANAGED', 'INTERNAL_MANAGED'],
  },
  region: {
    CLOUD_ARMOR: ['EXTERNAL_MANAGED', 'INTERNAL_MANAGED'],
    CLOUD_ARMOR_NETWORK: ['EXTERNAL'],
    CLOUD_ARMOR_INTERNAL_SERVICE: ['INTERNAL_MANAGED'],
  },
};

/** EDGE_SCHEMES are the schemes of backend services that take an edge policy (global external Application Load Balancers). */
const EDGE_SCHEMES: readonly LoadBalancingScheme[] = ['EXTERNAL', 'EXTERNAL_MANAGED'];

/**
 * checkAttachment applies the rules on which policies attach where, each refusal the service's 400
 * on the field that named the policy: an edge policy only as `edgeSecurityPolicy` and only on a
 * global backend service; a backend policy of the backend service's own location (the same region
 * for a regional one); the policy's type allowed for the backend service's load-balancing scheme.
 */
export function checkAttachment(
  slot: PolicySlot,
  field: string,
  given: string,
  target: AttachTarget,
  policy: { readonly scope: Scope; readonly type: PolicyType },
): void {
  const refuse = (reason: string) => invalidFieldValue(field, given, reason);
  if (slot === 'edgeSecurityPolicy') {
    if (target.scope.kind !== 'global') throw refuse('Edge security policies can only be attached to global backend services.');
    if (policy.type !== 'CLOUD_ARMOR_EDGE')
      throw refuse(`Security policy type ${policy.type} is not supported as an edge security policy; use a policy of type CLOUD_ARMOR_EDGE.`);
    if (!EDGE_SCHEMES.includes(target.loadBalancingScheme))
      throw refuse(`Edge security policies are not supported for backend services with load balancing scheme ${target.loadBalancingScheme}.`);
    return;
  }
  if (policy.type === 'CLOUD_ARMOR_EDGE')
    throw refuse('Security policy type CLOUD_ARMOR_EDGE can only be set as the edge security policy of a backend service.');
  if (target.scope.kind === 'global' && policy.scope.kind !== 'global')
    throw refuse('A regional security policy cannot be attached to a global backend service.');
  if (target.scope.kind === 'region') {
    if (policy.scope.kind !== 'region') throw refuse('A global security policy cannot be attached to a regional backend service.');
    if (policy.scope.name !== target.scope.name) throw refuse('The security policy must be in the same region as the backend service.');
  }
  const schemes = SCHEMES_BY_TYPE[target.scope.kind === 'global' ? 'global' : 'region'][policy.type] ?? [];
  if (!schemes.includes(target.loadBalancingScheme)) {
    const where = target.scope.kind === 'global' ? 'global' : 'regional';
    throw refuse(
      `Security policy type ${policy.type} is not supported for ${where} backend services with load balancing scheme ${target.loadBalancingScheme}.`,
    );
  }
}
