/**
 * The built-in objects a fresh cluster has (kubernetes-breadth reference §1.5): the `kubernetes`
 * Service in `default` on the first service IP, port 443 named `https`, with the Endpoints and
 * EndpointSlice that point at the API server. Created once; they persist with the store.
 */
import type { GenericRegistry, RequestScope } from '../apimachinery/registry.ts';
import type { AnyView } from '../apimachinery/strategy.ts';
import { KUBERNETES_SERVICE_IP } from './service-allocation.ts';

/** The port the endpoints name: the apiserver's secure port on a kind/kubeadm node. */
const API_PORT = 6443;
const API_ADDRESS = '127.0.0.1';

function seedObjects(): { readonly resource: string; readonly group: string; readonly object: Record<string, unknown> }[] {
  const ports = [{ name: 'https', port: API_PORT, protocol: 'TCP' }];
  return [
    {
      group: '',
      resource: 'services',
      object: {
        metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: { clusterIP: KUBERNETES_SERVICE_IP, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: API_PORT }], type: 'ClusterIP' },
      },
    },
    {
      group: '',
      resource: 'endpoints',
      object: {
        metadata: { name: 'kubernetes', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
        subsets: [{ addresses: [{ ip: API_ADDRESS }], ports }],
      },
    },
    {
      group: 'discovery.k8s.io',
      resource: 'endpointslices',
      object: {
        metadata: { name: 'kubernetes', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: [API_ADDRESS], conditions: { ready: true } }],
        ports,
      },
    },
  ];
}

/** seedBuiltinObjects creates the `kubernetes` Service, Endpoints and EndpointSlice in `default` when missing. */
export async function seedBuiltinObjects(registry: GenericRegistry, views: readonly AnyView[]): Promise<void> {
  for (const { group, resource, object } of seedObjects()) {
    const view = views.find((candidate) => candidate.group === group && candidate.resource === resource && candidate.subresource === undefined);
    if (view === undefined) continue;
    if ((await registry.store.get(view.storeKind, 'default/kubernetes')) !== undefined) continue;
    const scope: RequestScope = { view, group, namespace: 'default' };
    try {
      await registry.create(scope, object as never, { dryRun: false, fieldManager: 'kube-apiserver' });
    } catch (error) {
      // Another fogbank sharing the store seeded it first.
      if (!(error instanceof Error && (error as { reason?: string }).reason === 'AlreadyExists')) throw error;
    }
  }
}
