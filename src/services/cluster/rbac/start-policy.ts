/**
 * The policy work that runs when the family's working parts start (not at process start): the
 * default policy reconciled, and the aggregation controller on the change feed. Loaded with the
 * runtime, so the registry, patching and the bootstrap data stay out of start-up.
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { Store } from '../../../store/index.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import { clusterRoleBindingsView } from '../resources/cluster-role-bindings.ts';
import { clusterRolesView } from '../resources/cluster-roles.ts';
import { roleBindingsView } from '../resources/role-bindings.ts';
import { rolesView } from '../resources/roles.ts';
import { AggregationController } from './aggregation-controller.ts';
import { reconcileBootstrapPolicy, reconcileNamespacedPolicy } from './bootstrap-policy.ts';

const ROLES: RequestScope = { view: clusterRolesView, group: clusterRolesView.group, namespace: undefined };
const BINDINGS: RequestScope = { view: clusterRoleBindingsView, group: clusterRoleBindingsView.group, namespace: undefined };
const NAMESPACED_ROLES: RequestScope = { view: rolesView, group: rolesView.group, namespace: undefined };
const NAMESPACED_BINDINGS: RequestScope = { view: roleBindingsView, group: roleBindingsView.group, namespace: undefined };

/** reconcilePolicy writes the default ClusterRoles, Roles and their bindings that are missing or out of date. */
export async function reconcilePolicy(registry: GenericRegistry): Promise<void> {
  await reconcileBootstrapPolicy(registry, ROLES, BINDINGS);
  await reconcileNamespacedPolicy(registry, NAMESPACED_ROLES, NAMESPACED_BINDINGS);
}

/** startAggregation starts an aggregation controller (it lists every ClusterRole and reconciles first) and returns it. */
export async function startAggregation(store: Store, registry: GenericRegistry, groups: Vocabulary): Promise<AggregationController> {
  const controller = new AggregationController(store, registry, groups, ROLES);
  await controller.start();
  return controller;
}
