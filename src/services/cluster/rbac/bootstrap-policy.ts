/**
 * Reconciling the default policy at start, as the apiserver's `rbac/bootstrap-roles` post-start
 * hook does: a missing default role or binding is created; an existing one annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone; any other gets back the
 * labels, annotations, permissions, aggregation selectors and subjects it lacks (extra ones a user
 * added are kept).
 */
import type { KubeObject } from '../apimachinery/object-meta.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { ClusterRole } from '../resources/cluster-roles.ts';
import { RBAC_GROUP, type ClusterRoleBinding } from '../resources/cluster-role-bindings.ts';
import type { RoleBinding } from '../resources/role-bindings.ts';
import type { Role } from '../resources/roles.ts';
import { BOOTSTRAP_BINDINGS, BOOTSTRAP_ROLES } from './bootstrap-policy-data.ts';
import { NAMESPACED_BOOTSTRAP_BINDINGS, NAMESPACED_BOOTSTRAP_ROLES } from './bootstrap-policy-namespaced.ts';
import { uncovered } from './policy-rules.ts';

/** AUTOUPDATE_ANNOTATION turns reconciliation of a default object off when "false". */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const DEFAULT_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const MANAGER = 'kube-apiserver';

/** expectedRoles are the default ClusterRoles as objects. */
export function expectedRoles(): ClusterRole[] {
  return BOOTSTRAP_ROLES.map((role) => ({
    metadata: { name: role.name, labels: { ...DEFAULT_LABELS, ...role.labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    ...(role.aggregateFrom === undefined
      ? { rules: role.rules.map((rule) => structuredClone(rule)) }
      : { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [role.aggregateFrom]: 'true' } }] } }),
  }));
}

/** expectedBindings are the default ClusterRoleBindings as objects. */
export function expectedBindings(): ClusterRoleBinding[] {
  return BOOTSTRAP_BINDINGS.map((binding) => ({
    metadata: { name: binding.name, labels: { ...DEFAULT_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: binding.name },
    ...(binding.subjects.length === 0 ? {} : { subjects: binding.subjects.map((subject) => ({ ...subject })) }),
  }));
}

/** expectedNamespacedRoles are the default Roles as objects. */
export function expectedNamespacedRoles(): Role[] {
  return NAMESPACED_BOOTSTRAP_ROLES.map((role) => ({
    metadata: { name: role.name, namespace: role.namespace, labels: { ...DEFAULT_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    rules: role.rules.map((rule) => structuredClone(rule)),
  }));
}

/** expectedNamespacedBindings are the default RoleBindings as objects. */
export function expectedNamespacedBindings(): RoleBinding[] {
  return NAMESPACED_BOOTSTRAP_BINDINGS.map((binding) => ({
    metadata: { name: binding.name, namespace: binding.namespace, labels: { ...DEFAULT_LABELS }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: binding.role },
    subjects: binding.subjects.map((subject) => ({ ...subject })),
  }));
}

function reconcileMeta(existing: KubeObject, expected: KubeObject): KubeObject {
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...expected.metadata.labels, ...existing.metadata.labels },
      annotations: { ...expected.metadata.annotations, ...existing.metadata.annotations },
    },
  };
}

function reconcileRole(existing: ClusterRole, expected: ClusterRole): ClusterRole {
  const out = reconcileMeta(existing, expected) as ClusterRole;
  if (expected.aggregationRule !== undefined) {
    // The aggregation controller owns an aggregated role's rules; only the selectors are reconciled.
    const have = existing.aggregationRule?.clusterRoleSelectors ?? [];
    const missing = (expected.aggregationRule.clusterRoleSelectors ?? []).filter(
      (selector) => !have.some((s) => JSON.stringify(s) === JSON.stringify(selector)),
    );
    if (missing.length > 0) out.aggregationRule = { clusterRoleSelectors: [...have, ...missing] };
    return out;
  }
  const missing = uncovered(existing.rules ?? [], expected.rules ?? []);
  if (missing.length > 0) out.rules = [...(existing.rules ?? []), ...missing];
  return out;
}

function reconcileBinding(existing: ClusterRoleBinding, expected: ClusterRoleBinding): ClusterRoleBinding {
  const out = reconcileMeta(existing, expected) as ClusterRoleBinding;
  const have = existing.subjects ?? [];
  const missing = (expected.subjects ?? []).filter(
    (subject) => !have.some((s) => s.kind === subject.kind && s.name === subject.name && (s.namespace ?? '') === (subject.namespace ?? '')),
  );
  if (missing.length > 0) out.subjects = [...have, ...missing];
  return out;
}

async function ensure<T extends KubeObject>(
  registry: GenericRegistry,
  given: RequestScope,
  expected: T,
  reconcile: (existing: T, expected: T) => T,
): Promise<void> {
  const name = expected.metadata.name!;
  const scope = given.view.strategy.namespaced ? { ...given, namespace: expected.metadata.namespace } : given;
  const record = await registry.store.get<T>(scope.view.storeKind, registry.keyOf(scope, scope.namespace, name));
  if (record === undefined) {
    try {
      await registry.create(scope, expected, { dryRun: false, fieldManager: MANAGER });
    } catch (error) {
      // Another fogbank sharing the store created it first.
      if (!(error instanceof StatusError) || error.reason !== 'AlreadyExists') throw error;
    }
    return;
  }
  if (record.value.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
  const next = reconcile(record.value, expected);
  if (JSON.stringify(next) === JSON.stringify(record.value)) return;
  await registry.update(
    scope,
    name,
    (current) => {
      // The stored form carries no apiVersion or kind.
      const reconciled: KubeObject = { ...reconcile(current as T, expected) };
      delete reconciled.apiVersion;
      delete reconciled.kind;
      return reconciled;
    },
    { dryRun: false, fieldManager: MANAGER, allowCreate: false },
  );
}

/** reconcileBootstrapPolicy brings the default ClusterRoles and ClusterRoleBindings into the store. */
export async function reconcileBootstrapPolicy(registry: GenericRegistry, roles: RequestScope, bindings: RequestScope): Promise<void> {
  for (const role of expectedRoles()) await ensure(registry, roles, role, reconcileRole);
  for (const binding of expectedBindings()) await ensure(registry, bindings, binding, reconcileBinding);
}

/** reconcileNamespacedPolicy brings the default Roles and RoleBindings of kube-system and kube-public into the store (after the cluster-scoped ones, as upstream). */
export async function reconcileNamespacedPolicy(registry: GenericRegistry, roles: RequestScope, bindings: RequestScope): Promise<void> {
  for (const role of expectedNamespacedRoles()) await ensure(registry, roles, role, reconcileRole);
  for (const binding of expectedNamespacedBindings()) await ensure(registry, bindings, binding, reconcileBinding);
}
