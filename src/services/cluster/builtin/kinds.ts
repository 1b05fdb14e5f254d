/**
 * The built-in kinds of a default Kubernetes 1.32 apiserver that the generic, schema-driven
 * strategy serves: scope, names, short names, categories and subresources as discovery lists
 * them (kubernetes-breadth reference §6). Only the group-versions a default 1.32 apiserver
 * enables: its beta APIs (resource.k8s.io/v1beta1, …) are off unless `--runtime-config` turns
 * them on, so they are not served here. Kinds with a dedicated strategy of their own are in
 * DEDICATED_KINDS and never served from here, so one list decides who owns a kind.
 */
import { DEFAULT_API_DOMAIN } from '../identifiers.ts';

/** BuiltinKind is one resource of the table. */
export interface BuiltinKind {
  /** The canonical group, `''` for core. */
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Whether `/status` exists: the main resource then keeps the stored status. */
  readonly status: boolean;
  /** Whether `/scale` exists (autoscaling/v1 Scale). */
  readonly scale: boolean;
  /** Whether `metadata.generation` tracks changes outside metadata and status (kinds with a spec). */
  readonly generation: boolean;
  /** Whether a DELETE that removes the object at once answers it rather than a Status (the storage's ReturnDeletedObject). */
  readonly returnsDeletedObject: boolean;
}

/** DEDICATED_KINDS are `group/Kind`s served by a strategy of their own (namespaces, events, RBAC, service accounts). */
export const DEDICATED_KINDS: ReadonlySet<string> = new Set([
  '/Namespace',
  '/Event',
  '/ServiceAccount',
  'events.k8s.io/Event',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
]);

type Row = [group: string, version: string, resource: string, kind: string, namespaced: boolean, shortNames: string, categories: string, flags: string];

// flags: s = status subresource, c = scale subresource, g = generation tracks spec changes,
// d = a DELETE answers the deleted object: the kinds whose 1.32 REST storage sets
// ReturnDeletedObject, read off the 1.32 OpenAPI document (its DELETE answers that kind, not Status;
// kubernetes-client/python v32.0.1 kubernetes/swagger.json.unprocessed).
const ROWS: readonly Row[] = [
  ['', 'v1', 'configmaps', 'ConfigMap', true, 'cm', '', ''],
  ['', 'v1', 'endpoints', 'Endpoints', true, 'ep', '', ''],
  ['', 'v1', 'limitranges', 'LimitRange', true, 'limits', '', ''],
  ['', 'v1', 'nodes', 'Node', false, 'no', '', 's'],
  ['', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, 'pvc', '', 'sd'],
  ['', 'v1', 'persistentvolumes', 'PersistentVolume', false, 'pv', '', 'sd'],
  ['', 'v1', 'pods', 'Pod', true, 'po', 'all', 'sd'],
  ['', 'v1', 'podtemplates', 'PodTemplate', true, '', '', 'd'],
  ['', 'v1', 'replicationcontrollers', 'ReplicationController', true, 'rc', 'all', 'scg'],
  ['', 'v1', 'resourcequotas', 'ResourceQuota', true, 'quota', '', 'sd'],
  ['', 'v1', 'secrets', 'Secret', true, '', '', ''],
  ['', 'v1', 'services', 'Service', true, 'svc', 'all', 'sd'],
  ['admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false, '', 'api-extensions', 'g'],
  ['admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false, '', 'api-extensions', 'sg'],
  ['admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false, '', 'api-extensions', 'g'],
  ['admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false, '', 'api-extensions', 'g'],
  ['apiregistration.k8s.io', 'v1', 'apiservices', 'APIService', false, '', 'api-extensions', 's'],
  ['apps', 'v1', 'controllerrevisions', 'ControllerRevision', true, '', '', ''],
  ['apps', 'v1', 'daemonsets', 'DaemonSet', true, 'ds', 'all', 'sg'],
  ['apps', 'v1', 'deployments', 'Deployment', true, 'deploy', 'all', 'scg'],
  ['apps', 'v1', 'replicasets', 'ReplicaSet', true, 'rs', 'all', 'scg'],
  ['apps', 'v1', 'statefulsets', 'StatefulSet', true, 'sts', 'all', 'scg'],
  ['autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, 'hpa', 'all', 'sg'],
  ['batch', 'v1', 'cronjobs', 'CronJob', true, 'cj', 'all', 'sg'],
  ['batch', 'v1', 'jobs', 'Job', true, '', 'all', 'sg'],
  ['certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false, 'csr', '', 's'],
  ['coordination.k8s.io', 'v1', 'leases', 'Lease', true, '', '', ''],
  ['discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true, '', '', ''],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas', 'FlowSchema', false, '', '', 'sg'],
  ['flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', false, '', '', 'sg'],
  ['networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false, '', '', 'g'],
  ['networking.k8s.io', 'v1', 'ingresses', 'Ingress', true, 'ing', '', 'sg'],
  ['networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true, 'netpol', '', 'g'],
  ['node.k8s.io', 'v1', 'runtimeclasses', 'RuntimeClass', false, '', '', ''],
  ['policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, 'pdb', '', 'sg'],
  ['scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false, 'pc', '', ''],
  ['storage.k8s.io', 'v1', 'csidrivers', 'CSIDriver', false, '', '', 'd'],
  ['storage.k8s.io', 'v1', 'csinodes', 'CSINode', false, '', '', 'd'],
  ['storage.k8s.io', 'v1', 'csistoragecapacities', 'CSIStorageCapacity', true, '', '', ''],
  ['storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, 'sc', '', 'd'],
  ['storage.k8s.io', 'v1', 'volumeattachments', 'VolumeAttachment', false, '', '', 'sd'],
];

/** BUILTIN_KINDS are the kinds the generic strategy serves, in discovery order. */
export const BUILTIN_KINDS: readonly BuiltinKind[] = ROWS.map(([group, version, resource, kind, namespaced, shortNames, categories, flags]) => ({
  group,
  version,
  resource,
  kind,
  namespaced,
  shortNames: shortNames === '' ? [] : shortNames.split(','),
  categories: categories === '' ? [] : categories.split(','),
  status: flags.includes('s'),
  scale: flags.includes('c'),
  generation: flags.includes('g'),
  returnsDeletedObject: flags.includes('d'),
})).filter((entry) => !DEDICATED_KINDS.has(`${entry.group}/${entry.kind}`));

/**
 * BUILTIN_GROUP_PREFIXES are the named groups of the built-in kinds under the API domain, without
 * it (`storage` for `storage.k8s.io`), in discovery order: the ones a configured `{api_domain}`
 * renames. Legacy groups without the domain (`apps`, `batch`, …) and core are not among them.
 */
export const BUILTIN_GROUP_PREFIXES: readonly string[] = [
  ...new Set(
    BUILTIN_KINDS.filter((entry) => entry.group.endsWith(`.${DEFAULT_API_DOMAIN}`)).map((entry) => entry.group.slice(0, -(DEFAULT_API_DOMAIN.length + 1))),
  ),
];

/** schemaNameOf is a kind's OpenAPI component name (`io.k8s.api.apps.v1.Deployment`; kube-aggregator's own for APIService). */
export function schemaNameOf(entry: Pick<BuiltinKind, 'group' | 'version' | 'kind'>): string {
  if (entry.group === 'apiregistration.k8s.io') return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${entry.version}.${entry.kind}`;
  const pkg =
    entry.group === ''
      ? 'core'
      : entry.group
          .replace(/\.k8s\.io$/, '')
          .replace(/\.authorization$/, '')
          .replace('flowcontrol.apiserver', 'flowcontrol');
  return `io.k8s.api.${pkg.replaceAll('.', '')}.${entry.version}.${entry.kind}`;
}
