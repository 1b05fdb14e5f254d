/**
 * The namespaced part of the default policy a fresh cluster holds (upstream
 * `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/namespace_policy.go`, whose testdata
 * `namespace-roles.yaml` / `namespace-role-bindings.yaml` list it): Roles and RoleBindings in
 * kube-system and kube-public for the controller manager, scheduler and the bootstrap-signer,
 * cloud-provider and token-cleaner controllers. They carry the same label and annotation as the
 * cluster-scoped defaults and are reconciled at start the same way.
 */
import type { PolicyRule } from '../resources/cluster-roles.ts';
import type { Subject } from '../resources/cluster-role-bindings.ts';

/** NamespacedBootstrapRole is one default Role. */
export interface NamespacedBootstrapRole {
  readonly namespace: string;
  readonly name: string;
  readonly rules: readonly PolicyRule[];
}

/** NamespacedBootstrapBinding is one default RoleBinding (always to a Role of its namespace). */
export interface NamespacedBootstrapBinding {
  readonly namespace: string;
  readonly name: string;
  readonly role: string;
  readonly subjects: readonly Subject[];
}

const r = (apiGroups: string[], resources: string[], verbs: string[], resourceNames?: string[]): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
  ...(resourceNames === undefined ? {} : { resourceNames }),
});
const user = (name: string): Subject => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
const serviceAccount = (name: string): Subject => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });
const READ = ['get', 'list', 'watch'];
const EVENTS = r(['', 'events.k8s.io'], ['events'], ['create', 'patch', 'update']);
const LEADER_LOCKING = [
  r(['coordination.k8s.io'], ['leases'], ['create', 'get', 'list', 'update', 'watch']),
  r(['coordination.k8s.io'], ['leasecandidates'], ['create', 'get', 'list', 'update', 'watch']),
];

/** NAMESPACED_BOOTSTRAP_ROLES are the default Roles, in the order upstream's testdata lists them. */
export const NAMESPACED_BOOTSTRAP_ROLES: readonly NamespacedBootstrapRole[] = [
  {
    namespace: 'kube-public',
    name: 'system:controller:bootstrap-signer',
    rules: [r([''], ['configmaps'], READ), r([''], ['configmaps'], ['update'], ['cluster-info']), EVENTS],
  },
  {
    namespace: 'kube-system',
    name: 'extension-apiserver-authentication-reader',
    rules: [r([''], ['configmaps'], READ, ['extension-apiserver-authentication'])],
  },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-controller-manager', rules: LEADER_LOCKING },
  { namespace: 'kube-system', name: 'system::leader-locking-kube-scheduler', rules: LEADER_LOCKING },
  { namespace: 'kube-system', name: 'system:controller:bootstrap-signer', rules: [r([''], ['secrets'], READ)] },
  { namespace: 'kube-system', name: 'system:controller:cloud-provider', rules: [r([''], ['configmaps'], ['create', 'get', 'list', 'watch'])] },
  { namespace: 'kube-system', name: 'system:controller:token-cleaner', rules: [r([''], ['secrets'], ['delete', 'get', 'list', 'watch']), EVENTS] },
];

/** NAMESPACED_BOOTSTRAP_BINDINGS are the default RoleBindings, in the order upstream's testdata lists them. */
export const NAMESPACED_BOOTSTRAP_BINDINGS: readonly NamespacedBootstrapBinding[] = [
  {
    namespace: 'kube-public',
    name: 'system:controller:bootstrap-signer',
    role: 'system:controller:bootstrap-signer',
    subjects: [serviceAccount('bootstrap-signer')],
  },
  {
    namespace: 'kube-system',
    name: 'system::extension-apiserver-authentication-reader',
    role: 'extension-apiserver-authentication-reader',
    subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler')],
  },
  {
    namespace: 'kube-system',
    name: 'system::leader-locking-kube-controller-manager',
    role: 'system::leader-locking-kube-controller-manager',
    subjects: [user('system:kube-controller-manager'), serviceAccount('kube-controller-manager'), serviceAccount('leader-election-controller')],
  },
  {
    namespace: 'kube-system',
    name: 'system::leader-locking-kube-scheduler',
    role: 'system::leader-locking-kube-scheduler',
    subjects: [user('system:kube-scheduler'), serviceAccount('kube-scheduler')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:bootstrap-signer',
    role: 'system:controller:bootstrap-signer',
    subjects: [serviceAccount('bootstrap-signer')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:cloud-provider',
    role: 'system:controller:cloud-provider',
    subjects: [serviceAccount('cloud-provider')],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:token-cleaner',
    role: 'system:controller:token-cleaner',
    subjects: [serviceAccount('token-cleaner')],
  },
];
