/**
 * The cluster family's second face: what it serves, for the layers above it (the console, bench,
 * cli) — every fixed resource view in discovery order (CLUSTER_VIEWS) and those of the stored
 * CustomResourceDefinitions, each view's objects as the API presents them (apiVersionOf, the
 * view's toExternal and store kind), discovery's resources folded from the views, and the
 * cluster's namespaces. A face of its own because it loads every kind's behaviour and schemas
 * (public.ts, who a request is and what RBAC lets it do, does not); the console loads it with
 * its first cluster view. Re-exports only, but for the namespace list.
 */
import type { Store } from '../../store/store.ts';
import { NAMESPACE_STORE_KIND } from './resources/namespaces.ts';

export type { KubeObject } from './apimachinery/object-meta.ts';
export { type AnyView, apiVersionOf } from './apimachinery/strategy.ts';
export { storedCustomResourceViews } from './crd/catalog.ts';
export { type DiscoveryResource, type DiscoverySubresource, discoveryResourcesOf } from './discovery.ts';
export { CLUSTER_VIEWS } from './runtime.ts';

/** clusterNamespaces lists the names of the cluster's namespaces, in name order. */
export async function clusterNamespaces(store: Store): Promise<string[]> {
  return (await store.list(NAMESPACE_STORE_KIND)).map((record) => record.key);
}
