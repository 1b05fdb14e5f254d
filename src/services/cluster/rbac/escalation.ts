/**
 * Escalation prevention on writes of the four RBAC kinds (upstream
 * `pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased` and
 * `escalation_check.go`): a user may only write a Role or ClusterRole whose rules it already holds
 * in the request's namespace (or with the `escalate` verb on it), may only bind a role whose rules
 * it holds there (or with the `bind` verb on it, checked in the binding's namespace), and needs
 * every permission to set or keep an aggregationRule. The requesting user travels in the request's
 * scope (RequestScope.requester), so writes the server makes itself (bootstrap policy, the
 * aggregation controller) run unchecked, as the real ones do.
 */
import type { UserInfo } from '../cluster-auth.ts';
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { RequestScope } from '../apimachinery/registry.ts';
import type { ClusterRole, PolicyRule } from '../resources/cluster-roles.ts';
import { RBAC_GROUP, type ClusterRoleBinding } from '../resources/cluster-role-bindings.ts';
import { forbidden } from './authorize-requests.ts';
import {
  aggregateErrors,
  CLUSTER_ROLE_BINDING_STORE_KIND,
  CLUSTER_ROLE_STORE_KIND,
  MASTERS_GROUP,
  ROLE_BINDING_STORE_KIND,
  ROLE_STORE_KIND,
  type Authorizer,
} from './authorizer.ts';
import { compactRules, compactString, goStrings, uncovered, type Attributes } from './policy-rules.ts';

/** FULL_AUTHORITY is what setting an aggregationRule requires: everything. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const ROLE_KINDS = new Set([CLUSTER_ROLE_STORE_KIND, ROLE_STORE_KIND]);
const BINDING_KINDS = new Set([CLUSTER_ROLE_BINDING_STORE_KIND, ROLE_BINDING_STORE_KIND]);

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

const rbacAttributes = (verb: string, resource: string, name: string, namespace: string): Attributes => ({
  verb,
  resourceRequest: true,
  apiGroup: RBAC_GROUP,
  apiGroupSpelled: RBAC_GROUP,
  resource,
  subresource: '',
  name,
  namespace,
  path: '',
});

/** confirmNoEscalation is `ConfirmNoEscalation`: the refusal text when the user's rules in `namespace` do not cover `rules`. */
export function confirmNoEscalation(authorizer: Authorizer, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const canonical = rules.map((rule) =>
    rule.apiGroups === undefined
      ? rule
      : { ...rule, apiGroups: rule.apiGroups.map((group) => (group === '' || group === '*' ? group : authorizer.groups.canonical(group))) },
  );
  const owned = authorizer.rulesFor(user, namespace);
  const missing = uncovered(owned.rules, canonical);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let message = `user ${JSON.stringify(user.name)} (groups=${goStrings(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (owned.errors.length > 0) message += `; resolution errors: [${aggregateErrors(owned.errors)}]`;
  return message;
}

/** escalationCheck is the registry's beforeWrite hook for the RBAC kinds. */
export function escalationCheck(authorizer: Authorizer): (tx: unknown, scope: RequestScope, object: KubeObject, old: KubeObject | undefined) => Promise<void> {
  return async (_tx, { view, requester: user, namespace: scopeNamespace }, object, old) => {
    if (user === undefined || user.groups.includes(MASTERS_GROUP)) return;
    if (!ROLE_KINDS.has(view.storeKind) && !BINDING_KINDS.has(view.storeKind)) return;
    if (old !== undefined && onlyGarbageCollectionFieldsChange(object, old)) return;
    const name = object.metadata.name ?? '';
    const namespace = view.strategy.namespaced ? (object.metadata.namespace ?? scopeNamespace ?? '') : '';
    if (ROLE_KINDS.has(view.storeKind)) {
      // RoleEscalationAuthorized: the request's own name, which a create (POST to the collection) lacks.
      if (authorizer.decide(user, rbacAttributes('escalate', view.resource, old === undefined ? '' : name, namespace)).allowed) return;
      const role = object as ClusterRole;
      const problem = confirmNoEscalation(authorizer, user, namespace, role.rules ?? []);
      if (problem !== undefined) throw forbidden(view.group, view.resource, name, problem);
      if (view.storeKind !== CLUSTER_ROLE_STORE_KIND) return;
      const aggregated = (candidate: ClusterRole | undefined) => (candidate?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;
      if ((aggregated(role) || aggregated(old as ClusterRole | undefined)) && confirmNoEscalation(authorizer, user, namespace, FULL_AUTHORITY) !== undefined) {
        throw forbidden(view.group, view.resource, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    // BindingAuthorized: `bind` on the referenced role, in the binding's namespace.
    const ref = (object as ClusterRoleBinding).roleRef ?? {};
    const kind = ref.kind ?? '';
    const refName = ref.name ?? '';
    if (kind === 'ClusterRole' || kind === 'Role') {
      const resource = kind === 'ClusterRole' ? 'clusterroles' : 'roles';
      if (authorizer.decide(user, rbacAttributes('bind', resource, refName, namespace)).allowed) return;
    }
    const resolved = authorizer.roleReferenceRules(kind, refName, namespace);
    if ('error' in resolved) throw forbidden(view.group, view.resource, name, resolved.error);
    const problem = confirmNoEscalation(authorizer, user, namespace, resolved.rules);
    if (problem !== undefined) throw forbidden(view.group, view.resource, name, problem);
  };
}
