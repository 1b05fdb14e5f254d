/**
 * The default ClusterRoles and ClusterRoleBindings a fresh cluster holds, as data (upstream
 * `plugin/pkg/auth/authorizer/rbac/bootstrappolicy`, whose testdata lists what a new cluster
 * serves). The controller-manager's per-controller `system:controller:*` roles are not included:
 * fogbank runs none of those controllers.
 */
import type { PolicyRule } from '../resources/cluster-roles.ts';
import type { Subject } from '../resources/cluster-role-bindings.ts';

/** BootstrapRole is one default ClusterRole. */
export interface BootstrapRole {
  readonly name: string;
  readonly rules: readonly PolicyRule[];
  /** Extra labels (every default role also carries `kubernetes.io/bootstrapping: rbac-defaults`). */
  readonly labels?: Readonly<Record<string, string>>;
  /** The label an aggregated role collects rules by. */
  readonly aggregateFrom?: string;
}

/** BootstrapBinding is one default ClusterRoleBinding (named after its role). */
export interface BootstrapBinding {
  readonly name: string;
  readonly subjects: readonly Subject[];
}

const r = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames === undefined ? {} : { resourceNames }),
});
const u = (nonResourceURLs: string[], verbs: string[]): PolicyRule => ({ nonResourceURLs, verbs });
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const EVENTS_WRITE = ['create', 'patch', 'update'];
const AGG = 'rbac.authorization.k8s.io/aggregate-to-';
const approver = (signer: string): BootstrapRole => ({
  name: `system:certificates.k8s.io:${signer.replace('kubernetes.io/', '')}-approver`,
  rules: [r(['certificates.k8s.io'], ['signers'], ['approve'], [signer])],
});

/** BOOTSTRAP_ROLES are the default ClusterRoles, in name order. */
export const BOOTSTRAP_ROLES: readonly BootstrapRole[] = [
  { name: 'admin', rules: [], aggregateFrom: `${AGG}admin` },
  { name: 'cluster-admin', rules: [r(['*'], ['*'], ['*']), u(['*'], ['*'])] },
  { name: 'edit', rules: [], aggregateFrom: `${AGG}edit`, labels: { [`${AGG}admin`]: 'true' } },
  {
    name: 'system:aggregate-to-admin',
    labels: { [`${AGG}admin`]: 'true' },
    rules: [r(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']), r(['rbac.authorization.k8s.io'], ['rolebindings', 'roles'], ALL)],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [`${AGG}edit`]: 'true' },
    rules: [
      r([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
      r([''], ['serviceaccounts'], ['impersonate']),
      r([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
      r([''], ['pods/eviction'], ['create']),
      r(
        [''],
        [
          'configmaps',
          'events',
          'persistentvolumeclaims',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'secrets',
          'serviceaccounts',
          'services',
          'services/proxy',
        ],
        WRITE,
      ),
      r([''], ['serviceaccounts/token'], ['create']),
      r(
        ['apps'],
        ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale'],
        WRITE,
      ),
      r(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
      r(['batch'], ['cronjobs', 'jobs'], WRITE),
      r(
        ['extensions'],
        [
          'daemonsets',
          'deployments',
          'deployments/rollback',
          'deployments/scale',
          'ingresses',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
        ],
        WRITE,
      ),
      r(['policy'], ['poddisruptionbudgets'], WRITE),
      r(['networking.k8s.io'], ['ingresses', 'networkpolicies'], WRITE),
      r(['coordination.k8s.io'], ['leases'], ALL),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [`${AGG}view`]: 'true' },
    rules: [
      r(
        [''],
        [
          'configmaps',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
        ],
        READ,
      ),
      r(
        [''],
        [
          'bindings',
          'events',
          'limitranges',
          'namespaces/status',
          'pods/log',
          'pods/status',
          'replicationcontrollers/status',
          'resourcequotas',
          'resourcequotas/status',
        ],
        READ,
      ),
      r([''], ['namespaces'], READ),
      r(['discovery.k8s.io'], ['endpointslices'], READ),
      r(
        ['apps'],
        [
          'controllerrevisions',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'statefulsets',
          'statefulsets/scale',
          'statefulsets/status',
        ],
        READ,
      ),
      r(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
      r(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
      r(
        ['extensions'],
        [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'networkpolicies',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
        ],
        READ,
      ),
      r(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
      r(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
    ],
  },
  {
    name: 'system:auth-delegator',
    rules: [r(['authentication.k8s.io'], ['tokenreviews'], ['create']), r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create'])],
  },
  {
    name: 'system:basic-user',
    rules: [
      r(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']),
      r(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
    ],
  },
  {
    name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
    rules: [r(['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'], ['create'])],
  },
  {
    name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
    rules: [r(['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'], ['create'])],
  },
  approver('kubernetes.io/kube-apiserver-client'),
  approver('kubernetes.io/kube-apiserver-client-kubelet'),
  approver('kubernetes.io/kubelet-serving'),
  approver('kubernetes.io/legacy-unknown'),
  {
    name: 'system:discovery',
    rules: [u(['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], ['get'])],
  },
  { name: 'system:heapster', rules: [r([''], ['events', 'namespaces', 'nodes', 'pods'], READ), r(['extensions'], ['deployments'], READ)] },
  { name: 'system:kube-aggregator', rules: [r([''], ['endpoints', 'services'], READ)] },
  {
    name: 'system:kube-controller-manager',
    rules: [
      r(['', 'events.k8s.io'], ['events'], EVENTS_WRITE),
      r(['coordination.k8s.io'], ['leases'], ['create']),
      r(['coordination.k8s.io'], ['leases'], ['get', 'update'], ['kube-controller-manager']),
      r([''], ['secrets', 'serviceaccounts'], ['create']),
      r([''], ['secrets'], ['delete']),
      r([''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts'], ['get']),
      r([''], ['secrets', 'serviceaccounts'], ['update']),
      r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
      r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
      r(['*'], ['*'], ['list', 'watch']),
      r([''], ['serviceaccounts/token'], ['create']),
    ],
  },
  { name: 'system:kube-dns', rules: [r([''], ['endpoints', 'services'], ['list', 'watch'])] },
  {
    name: 'system:kube-scheduler',
    rules: [
      r(['', 'events.k8s.io'], ['events'], EVENTS_WRITE),
      r(['coordination.k8s.io'], ['leases'], ['create']),
      r(['coordination.k8s.io'], ['leases'], ['get', 'update'], ['kube-scheduler']),
      r([''], ['nodes'], READ),
      r([''], ['pods'], ['delete', 'get', 'list', 'watch']),
      r([''], ['bindings', 'pods/binding'], ['create']),
      r([''], ['pods/status'], ['patch', 'update']),
      r([''], ['replicationcontrollers', 'services'], READ),
      r(['apps', 'extensions'], ['replicasets'], READ),
      r(['apps'], ['statefulsets'], READ),
      r(['policy'], ['poddisruptionbudgets'], READ),
      r([''], ['persistentvolumeclaims', 'persistentvolumes'], READ),
      r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
      r(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
      r(['storage.k8s.io'], ['csinodes'], READ),
      r([''], ['namespaces'], READ),
      r(['storage.k8s.io'], ['csidrivers'], READ),
      r(['storage.k8s.io'], ['csistoragecapacities'], READ),
    ],
  },
  {
    name: 'system:kubelet-api-admin',
    rules: [r([''], ['nodes'], READ), r([''], ['nodes'], ['proxy']), r([''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats'], ['*'])],
  },
  { name: 'system:monitoring', rules: [u(['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], ['get'])] },
  {
    name: 'system:node',
    rules: [
      r(['authentication.k8s.io'], ['tokenreviews'], ['create']),
      r(['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews'], ['create']),
      r([''], ['services'], READ),
      r([''], ['nodes'], ['create', 'get', 'list', 'watch']),
      r([''], ['nodes/status'], ['patch', 'update']),
      r([''], ['nodes'], ['patch', 'update']),
      r([''], ['events'], EVENTS_WRITE),
      r([''], ['pods'], READ),
      r([''], ['pods'], ['create', 'delete']),
      r([''], ['pods/status'], ['patch', 'update']),
      r([''], ['pods/eviction'], ['create']),
      r([''], ['configmaps', 'secrets'], READ),
      r([''], ['persistentvolumeclaims', 'persistentvolumes'], ['get']),
      r([''], ['endpoints'], ['get']),
      r(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', 'get', 'list', 'watch']),
      r(['coordination.k8s.io'], ['leases'], ['create', 'delete', 'get', 'patch', 'update']),
      r(['storage.k8s.io'], ['volumeattachments'], ['get']),
      r([''], ['serviceaccounts/token'], ['create']),
      r([''], ['persistentvolumeclaims/status'], ['get', 'patch', 'update']),
      r(['storage.k8s.io'], ['csidrivers'], READ),
      r(['storage.k8s.io'], ['csinodes'], ['create', 'delete', 'get', 'patch', 'update']),
      r(['node.k8s.io'], ['runtimeclasses'], READ),
    ],
  },
  { name: 'system:node-bootstrapper', rules: [r(['certificates.k8s.io'], ['certificatesigningrequests'], ['create', 'get', 'list', 'watch'])] },
  {
    name: 'system:node-problem-detector',
    rules: [r([''], ['nodes'], ['get']), r([''], ['nodes/status'], ['patch']), r(['', 'events.k8s.io'], ['events'], EVENTS_WRITE)],
  },
  {
    name: 'system:node-proxier',
    rules: [
      r([''], ['endpoints', 'services'], ['list', 'watch']),
      r([''], ['nodes'], READ),
      r(['', 'events.k8s.io'], ['events'], EVENTS_WRITE),
      r(['discovery.k8s.io'], ['endpointslices'], ['list', 'watch']),
    ],
  },
  {
    name: 'system:persistent-volume-provisioner',
    rules: [
      r([''], ['persistentvolumes'], ['create', 'delete', 'get', 'list', 'watch']),
      r([''], ['persistentvolumeclaims'], ['get', 'list', 'update', 'watch']),
      r(['storage.k8s.io'], ['storageclasses'], READ),
      r([''], ['events'], ['watch']),
      r(['', 'events.k8s.io'], ['events'], EVENTS_WRITE),
    ],
  },
  { name: 'system:public-info-viewer', rules: [u(['/healthz', '/livez', '/readyz', '/version', '/version/'], ['get'])] },
  {
    name: 'system:service-account-issuer-discovery',
    rules: [u(['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'], ['get'])],
  },
  {
    name: 'system:volume-scheduler',
    rules: [
      r([''], ['persistentvolumes'], ['get', 'list', 'patch', 'update', 'watch']),
      r(['storage.k8s.io'], ['storageclasses'], READ),
      r([''], ['persistentvolumeclaims'], ['get', 'list', 'patch', 'update', 'watch']),
    ],
  },
  { name: 'view', rules: [], aggregateFrom: `${AGG}view`, labels: { [`${AGG}edit`]: 'true' } },
];

const group = (name: string): Subject => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });
const user = (name: string): Subject => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });

/** BOOTSTRAP_BINDINGS are the default ClusterRoleBindings (each binds the role of its own name). */
export const BOOTSTRAP_BINDINGS: readonly BootstrapBinding[] = [
  { name: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:kube-controller-manager', subjects: [user('system:kube-controller-manager')] },
  { name: 'system:kube-dns', subjects: [{ kind: 'ServiceAccount', name: 'kube-dns', namespace: 'kube-system' }] },
  { name: 'system:kube-scheduler', subjects: [user('system:kube-scheduler')] },
  { name: 'system:monitoring', subjects: [group('system:monitoring')] },
  { name: 'system:node', subjects: [] },
  { name: 'system:node-proxier', subjects: [user('system:kube-proxy')] },
  { name: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  { name: 'system:service-account-issuer-discovery', subjects: [group('system:serviceaccounts')] },
  { name: 'system:volume-scheduler', subjects: [user('system:kube-scheduler')] },
];
