/**
 * How fault rules name cluster requests (core/faults/methods.ts): by the Kubernetes verb and
 * resource the apiserver's RequestInfoFactory reads from the URL, `get clusterroles`, `watch
 * events`, `create selfsubjectreviews`, with a subresource after a slash (`update
 * namespaces/finalize`); the caller is the authenticated user's name.
 */
import type { FaultMethods } from '../../core/faults/methods.ts';
import type { Vocabulary } from '../../core/identifiers.ts';
import { userOf } from './cluster-auth.ts';
import { BUILTIN_KINDS } from './builtin/kinds.ts';
import type { ServedCustomResourceNames } from './crd/served-names.ts';
import { ClusterRequestInfo, clusterRequestOf } from './request-info.ts';

/** CLUSTER_VERBS are the request verbs a rule may name. */
const CLUSTER_VERBS: readonly string[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** CLUSTER_RESOURCES are the resources served: those with a strategy of their own, the create-only reviews, and every built-in kind. */
const CLUSTER_RESOURCES: ReadonlySet<string> = new Set([
  'clusterrolebindings',
  'clusterroles',
  'customresourcedefinitions',
  'events',
  'localsubjectaccessreviews',
  'namespaces',
  'rolebindings',
  'roles',
  'selfsubjectaccessreviews',
  'selfsubjectreviews',
  'selfsubjectrulesreviews',
  'serviceaccounts',
  'subjectaccessreviews',
  'tokenreviews',
  ...BUILTIN_KINDS.map((kind) => kind.resource),
]);

/**
 * clusterFaultMethods names cluster requests for fault rules; `groups` reads the API group in
 * either spelling; `custom` adds the plurals of the custom resources served when a rule is set.
 */
export function clusterFaultMethods(groups: Vocabulary, custom?: ServedCustomResourceNames): FaultMethods {
  return {
    methodOf(method, url, request) {
      // A request in flight is named from its one ClusterRequestInfo (request-info.ts).
      const info = request === undefined ? new ClusterRequestInfo(method, url) : clusterRequestOf(request);
      return info.resourceRequest ? info.methodId(groups) : undefined;
    },
    problem(id) {
      // Custom resource plurals are DNS labels (`cron-tabs`, `v1things`).
      const match = /^([a-z]+) ([a-z][-a-z0-9]*)(?:\/([a-z]+))?$/.exec(id);
      if (match === null) return `"${id}" is not a Kubernetes verb and resource such as "get clusterroles"`;
      if (!CLUSTER_VERBS.includes(match[1]!)) return `unknown verb "${match[1]!}" in "${id}" (the verbs are ${CLUSTER_VERBS.join(', ')})`;
      if (!CLUSTER_RESOURCES.has(match[2]!) && custom?.has(match[2]!) !== true)
        return `unknown resource "${match[2]!}" in "${id}" (the resources are ${[...CLUSTER_RESOURCES, ...(custom?.names() ?? [])].sort().join(', ')})`;
      return undefined;
    },
    principalOf: (request) => userOf(request)?.name,
  };
}
