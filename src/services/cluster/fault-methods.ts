/**
 * How fault rules name cluster requests (core/faults/methods.ts): by the Kubernetes verb and
 * resource the apiserver's RequestInfoFactory reads from the URL, `get clusterroles`, `watch
 * events`, `create selfsubjectreviews`, with a subresource after a slash (`update
 * namespaces/finalize`); the caller is the authenticated user's name.
 */
import type { FaultMethods } from '../../core/faults/methods.ts';
import type { Vocabulary } from '../../core/identifiers.ts';
import { userOf } from './cluster-auth.ts';
import { attributesOf } from './rbac/authorize-requests.ts';

/** CLUSTER_VERBS are the request verbs a rule may name. */
const CLUSTER_VERBS: readonly string[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** CLUSTER_RESOURCES are the resources served (the stored ones and the create-only reviews). */
const CLUSTER_RESOURCES: readonly string[] = [
  'clusterrolebindings',
  'clusterroles',
  'events',
  'localsubjectaccessreviews',
  'namespaces',
  'rolebindings',
  'roles',
  'selfsubjectaccessreviews',
  'selfsubjectreviews',
  'selfsubjectrulesreviews',
  'subjectaccessreviews',
];

/** clusterFaultMethods names cluster requests for fault rules; `groups` reads the API group in either spelling. */
export function clusterFaultMethods(groups: Vocabulary): FaultMethods {
  return {
    methodOf(method, url) {
      const attributes = attributesOf(method, url, groups);
      if (!attributes.resourceRequest) return undefined;
      return `${attributes.verb} ${attributes.resource}${attributes.subresource === '' ? '' : `/${attributes.subresource}`}`;
    },
    problem(id) {
      const match = /^([a-z]+) ([a-z]+)(?:\/([a-z]+))?$/.exec(id);
      if (match === null) return `"${id}" is not a Kubernetes verb and resource such as "get clusterroles"`;
      if (!CLUSTER_VERBS.includes(match[1]!)) return `unknown verb "${match[1]!}" in "${id}" (the verbs are ${CLUSTER_VERBS.join(', ')})`;
      if (!CLUSTER_RESOURCES.includes(match[2]!)) return `unknown resource "${match[2]!}" in "${id}" (the resources are ${CLUSTER_RESOURCES.join(', ')})`;
      return undefined;
    },
    principalOf: (request) => userOf(request)?.name,
  };
}
