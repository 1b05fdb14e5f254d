/**
 * Escalation prevention on ClusterRole and ClusterRoleBinding writes (upstream
 * `pkg/registry/rbac/{clusterrole,clusterrolebinding}/policybased`): a user may only write a role
 * whose rules it already holds (or with the `escalate` verb), may only bind a role whose rules it
 * holds (or with the `bind` verb), and needs every permission to set or keep an aggregationRule.
 * The requesting user travels in the request's scope (RequestScope.requester), so writes the server
 * makes itself (bootstrap policy, the aggregation controller) run unchecked, as the real ones do.
 */
import type { UserInfo } from '../cluster-auth.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { RequestScope } from '../apimachinery/registry.ts';
import type { ClusterRole, PolicyRule } from '../resources/cluster-roles.ts';
import { RBAC_GROUP, type ClusterRoleBinding } from '../resources/cluster-role-bindings.ts';
import { forbidden } from './authorize-requests.ts';
import { CLUSTER_ROLE_BINDING_STORE_KIND, CLUSTER_ROLE_STORE_KIND, MASTERS_GROUP, type Authorizer } from './authorizer.ts';
import { compactRules, compactString, goStrings, uncovered, type Attributes } from './policy-rules.ts';

/** FULL_AUTHORITY is what setting an aggregationRule requires: everything. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

function onlyGarbageCollectionFieldsChange(object: KubeObject, old: KubeObject): boolean {
  const strip = (value: KubeObject, from: KubeObject) =>
    JSON.stringify({
      ...value,
      metadata: {
        ...value.metadata,
        ownerReferences: from.metadata.ownerReferences,
        finalizers: from.metadata.finalizers,
        managedFields: undefined,
        resourceVersion: undefined,
      },
    });
  return strip(object, old) === strip(old, old);
}

/** escalationCheck is the registry's beforeWrite hook for the RBAC kinds. */
export function escalationCheck(authorizer: Authorizer): (tx: unknown, scope: RequestScope, object: KubeObject, old: KubeObject | undefined) => Promise<void> {
  const attributes = (verb: string, name: string): Attributes => ({
    verb,
    resourceRequest: true,
    apiGroup: RBAC_GROUP,
    apiGroupSpelled: RBAC_GROUP,
    resource: 'clusterroles',
    subresource: '',
    name,
    namespace: '',
    path: '',
  });
  const confirmNoEscalation = (user: UserInfo, rules: readonly PolicyRule[]): string | undefined => {
    const canonical = rules.map((rule) =>
      rule.apiGroups === undefined
        ? rule
        : { ...rule, apiGroups: rule.apiGroups.map((group) => (group === '' || group === '*' ? group : authorizer.groups.canonical(group))) },
    );
    const missing = uncovered(authorizer.rulesFor(user), canonical);
    if (missing.length === 0) return undefined;
    const lines = [...new Set(compactRules(missing).map(compactString))].sort();
    return `user ${JSON.stringify(user.name)} (groups=${goStrings(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  };
  return async (_tx, { view, requester: user }, object, old) => {
    if (user === undefined || user.groups.includes(MASTERS_GROUP)) return;
    if (old !== undefined && onlyGarbageCollectionFieldsChange(object, old)) return;
    const name = object.metadata.name ?? '';
    if (view.storeKind === CLUSTER_ROLE_STORE_KIND) {
      if (authorizer.decide(user, attributes('escalate', old === undefined ? '' : name)).allowed) return;
      const role = object as ClusterRole;
      const problem = confirmNoEscalation(user, role.rules ?? []);
      if (problem !== undefined) throw forbidden(view.group, view.resource, name, problem);
      const aggregated = (candidate: ClusterRole | undefined) => (candidate?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;
      if ((aggregated(role) || aggregated(old as ClusterRole | undefined)) && confirmNoEscalation(user, FULL_AUTHORITY) !== undefined) {
        throw forbidden(view.group, view.resource, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    if (view.storeKind === CLUSTER_ROLE_BINDING_STORE_KIND) {
      const ref = (object as ClusterRoleBinding).roleRef?.name ?? '';
      if (authorizer.decide(user, attributes('bind', ref)).allowed) return;
      const role = authorizer.role(ref);
      if (role === undefined) throw forbidden(view.group, view.resource, name, `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref)} not found`);
      const problem = confirmNoEscalation(user, role.rules ?? []);
      if (problem !== undefined) throw forbidden(view.group, view.resource, name, problem);
    }
  };
}
