/**
 * The policy work that runs when the family's working parts start (not at process start): the
 * default policy reconciled, and the aggregation controller on the change feed. Loaded with the
 * runtime, so the registry, patching and the bootstrap data stay out of start-up.
 */
import type { Vocabulary } from '../../../core/identifiers.ts';
import type { Store } from '../../../store/index.ts';
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import { clusterRoleBindingsView } from '../resources/cluster-role-bindings.ts';
import { clusterRolesView } from '../resources/cluster-roles.ts';
import { AggregationController } from './aggregation-controller.ts';
import { reconcileBootstrapPolicy } from './bootstrap-policy.ts';

/** startPolicy reconciles the default policy (unless told not to) and starts the aggregation controller, which it returns. */
export async function startPolicy(store: Store, registry: GenericRegistry, groups: Vocabulary, bootstrap: boolean): Promise<AggregationController> {
  const roles: RequestScope = { view: clusterRolesView as unknown as AnyView, group: clusterRolesView.group, namespace: undefined };
  const bindings: RequestScope = { view: clusterRoleBindingsView as unknown as AnyView, group: clusterRoleBindingsView.group, namespace: undefined };
  if (bootstrap) await reconcileBootstrapPolicy(registry, roles, bindings);
  const controller = new AggregationController(store, registry, groups, roles);
  await controller.start();
  return controller;
}
