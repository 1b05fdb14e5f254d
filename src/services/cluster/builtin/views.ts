/**
 * The served views of the built-in kinds: one per row of the kind table, each with the generic
 * strategy, the kind's behaviour file if it has one, and its schema set from the generated data.
 */
import type { ResourceView } from '../apimachinery/strategy.ts';
import {
  mutatingWebhookConfigurationBehaviour,
  validatingAdmissionPolicyBehaviour,
  validatingAdmissionPolicyBindingBehaviour,
  validatingWebhookConfigurationBehaviour,
} from '../admission/configuration/behaviours.ts';
import { apiServiceBehaviour } from './apiservices.ts';
import { configMapBehaviour } from './configmaps.ts';
import { endpointSliceBehaviour, endpointsBehaviour } from './endpoints.ts';
import { cronJobBehaviour, daemonSetBehaviour, replicationControllerBehaviour, statefulSetBehaviour } from './workload-columns.ts';
import { deploymentBehaviour, replicaSetBehaviour } from './workloads.ts';
import { jobBehaviour } from './jobs.ts';
import { leaseBehaviour } from './leases.ts';
import { nodeBehaviour } from './nodes.ts';
import { podBehaviour, podTemplateBehaviour } from './pods.ts';
import { secretBehaviour } from './secrets.ts';
import { serviceBehaviour } from './services.ts';
import type { BuiltinObject, KindBehaviour } from './behaviour.ts';
import { genericStrategy, statusStrategy } from './generic-strategy.ts';
import { BUILTIN_KINDS, type BuiltinKind, schemaNameOf } from './kinds.ts';
import { scaleView } from './scale-subresource.ts';
import { kindSchemaSet } from './schemas.ts';
import { storeKindOf } from './store-kinds.ts';

/** BEHAVIOURS are the kinds with a behaviour file, by `group/Kind`. */
const BEHAVIOURS: Readonly<Record<string, KindBehaviour>> = {
  '/ConfigMap': configMapBehaviour,
  '/Secret': secretBehaviour,
  '/Service': serviceBehaviour,
  '/Pod': podBehaviour,
  '/PodTemplate': podTemplateBehaviour,
  '/ReplicationController': replicationControllerBehaviour,
  '/Node': nodeBehaviour,
  '/Endpoints': endpointsBehaviour,
  'discovery.k8s.io/EndpointSlice': endpointSliceBehaviour,
  'apiregistration.k8s.io/APIService': apiServiceBehaviour,
  'apps/Deployment': deploymentBehaviour,
  'apps/ReplicaSet': replicaSetBehaviour,
  'apps/StatefulSet': statefulSetBehaviour,
  'apps/DaemonSet': daemonSetBehaviour,
  'batch/Job': jobBehaviour,
  'batch/CronJob': cronJobBehaviour,
  'coordination.k8s.io/Lease': leaseBehaviour,
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': validatingWebhookConfigurationBehaviour,
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': mutatingWebhookConfigurationBehaviour,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': validatingAdmissionPolicyBehaviour,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': validatingAdmissionPolicyBindingBehaviour,
};

/** CONTROLLED_KINDS are the kinds a controller acts on in a real cluster; `kubectl explain` says that none runs here. */
const CONTROLLED_KINDS: ReadonlySet<string> = new Set([
  'apps/Deployment',
  'apps/ReplicaSet',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'batch/Job',
  'batch/CronJob',
  '/ReplicationController',
  'autoscaling/HorizontalPodAutoscaler',
  '/Pod',
]);

const NO_CONTROLLER_NOTE =
  ' (fogbank: no controllers, scheduler or kubelet run here; this object is stored, validated and served, but nothing acts on it and its status changes only when a client writes it.)';

/** builtinView builds the served view of one built-in kind. */
export function builtinView(entry: BuiltinKind): ResourceView<BuiltinObject, BuiltinObject> {
  const schemaName = schemaNameOf(entry);
  const listSchemaName = `${schemaName}List`;
  let schemas = kindSchemaSet(schemaName, listSchemaName, entry.kind);
  const own = schemas[schemaName];
  if (CONTROLLED_KINDS.has(`${entry.group}/${entry.kind}`) && own !== undefined && 'type' in own && own.type === 'object') {
    schemas = { ...schemas, [schemaName]: { ...own, description: `${own.description ?? ''}${NO_CONTROLLER_NOTE}` } };
  }
  const behaviour = BEHAVIOURS[`${entry.group}/${entry.kind}`] ?? {};
  return {
    group: entry.group,
    version: entry.version,
    resource: entry.resource,
    singular: entry.kind.toLowerCase(),
    kind: entry.kind,
    listKind: `${entry.kind}List`,
    shortNames: entry.shortNames,
    categories: entry.categories,
    storeKind: storeKindOf(entry),
    ...(entry.returnsDeletedObject ? { returnsDeletedObject: true } : {}),
    strategy: genericStrategy(entry, schemaName, schemas, behaviour),
    schemas,
    schemaName,
    listSchemaName,
    toExternal: (object) => object,
    toInternal: (object) => object,
    selectableFields: (object) => ({
      'metadata.name': object.metadata.name ?? '',
      'metadata.namespace': entry.namespaced ? (object.metadata.namespace ?? '') : '',
      ...behaviour.selectableFields?.(object),
    }),
  };
}

/** builtinViews are the views of every built-in kind the generic strategy serves, each followed by its `/scale` and `/status` views where the kind has them. */
export function builtinViews(): ResourceView<BuiltinObject, BuiltinObject>[] {
  return BUILTIN_KINDS.flatMap((entry) => {
    const view = builtinView(entry);
    return [
      view,
      ...(entry.scale ? [scaleView(view)] : []),
      ...(entry.status ? [{ ...view, subresource: 'status', strategy: statusStrategy(view.strategy) }] : []),
    ];
  });
}
