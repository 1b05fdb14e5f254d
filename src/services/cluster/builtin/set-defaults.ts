/**
 * The defaulting functions of Kubernetes 1.32 that a schema `default` cannot express, by the
 * OpenAPI component name of the type each defaults (type-defaults.ts runs them wherever a value of
 * that type occurs). Each is upstream's `SetDefaults_<Type>` of `pkg/apis/<group>/<version>/defaults.go`
 * (or a `+default=` marker of k8s.io/api v0.32), with the feature gates of a default 1.32 apiserver.
 * A field counts as unset when absent (Go's nil pointer or empty value); the ones upstream tests
 * against a zero value (`== 0`, `== ""`) are also reset from it.
 *
 * Defaults that live in a kind's behaviour file (resources/: the PodSpec and Container defaults,
 * Service, Secret, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob) are not repeated.
 */

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** unsetOrZero is Go's test of a non-pointer field against its zero value. */
function unsetOrZero(value: unknown): boolean {
  return value === undefined || value === null || value === 0 || value === '';
}

/** child is `object[key]` as a record, made when absent (a non-pointer struct in Go). */
function child(object: Json, key: string): Json {
  const existing = object[key];
  if (isRecord(existing)) return existing;
  const made: Json = {};
  object[key] = made;
  return made;
}

function defaultWhenZero(object: Json, key: string, value: unknown): void {
  if (unsetOrZero(object[key])) object[key] = value;
}

/** MODE_0644 is `SecretVolumeSourceDefaultMode` and its siblings (0644). */
const MODE_0644 = 0o644;

const CORE = 'io.k8s.api.core.v1';

function setDefaultsVolume(volume: Json): void {
  // SetDefaults_Volume: a volume with no source is an emptyDir (ImageVolume is alpha, off, in 1.32).
  if (!Object.keys(volume).some((key) => key !== 'name' && volume[key] !== undefined && volume[key] !== null)) volume['emptyDir'] = {};
}

function setDefaultsProbe(probe: Json): void {
  defaultWhenZero(probe, 'timeoutSeconds', 1);
  defaultWhenZero(probe, 'periodSeconds', 10);
  defaultWhenZero(probe, 'successThreshold', 1);
  defaultWhenZero(probe, 'failureThreshold', 3);
}

function setDefaultsHttpGet(action: Json): void {
  defaultWhenZero(action, 'path', '/');
  defaultWhenZero(action, 'scheme', 'HTTP');
}

function setDefaultMode(source: Json): void {
  source['defaultMode'] ??= MODE_0644;
}

function setDefaultsPod(pod: Json): void {
  const spec = isRecord(pod['spec']) ? pod['spec'] : undefined;
  if (spec === undefined) return;
  // Requests default to limits, per container (SetDefaults_Pod; not on pod templates).
  for (const container of [...records(spec['containers']), ...records(spec['initContainers'])]) {
    const resources = isRecord(container['resources']) ? container['resources'] : undefined;
    if (resources === undefined || !isRecord(resources['limits'])) continue;
    const requests = child(resources, 'requests');
    for (const [name, quantity] of Object.entries(resources['limits'])) if (!Object.hasOwn(requests, name)) requests[name] = quantity;
  }
  spec['enableServiceLinks'] ??= true;
  if (spec['hostNetwork'] === true) {
    for (const container of [...records(spec['containers']), ...records(spec['initContainers'])]) {
      for (const port of records(container['ports'])) if (unsetOrZero(port['hostPort'])) port['hostPort'] = port['containerPort'];
    }
  }
}

function setDefaultsLimitRangeItem(item: Json): void {
  if (item['type'] !== 'Container') return;
  const defaults = child(item, 'default');
  const defaultRequest = child(item, 'defaultRequest');
  for (const [name, quantity] of Object.entries(isRecord(item['max']) ? item['max'] : {})) if (!Object.hasOwn(defaults, name)) defaults[name] = quantity;
  for (const [name, quantity] of Object.entries(defaults)) if (!Object.hasOwn(defaultRequest, name)) defaultRequest[name] = quantity;
  for (const [name, quantity] of Object.entries(isRecord(item['min']) ? item['min'] : {})) {
    if (!Object.hasOwn(defaultRequest, name)) defaultRequest[name] = quantity;
  }
}

function setDefaultsIscsi(source: Json): void {
  source['iscsiInterface'] ??= 'default';
}

function setDefaultsRbd(source: Json): void {
  source['pool'] ??= 'rbd';
  source['user'] ??= 'admin';
  source['keyring'] ??= '/etc/ceph/keyring';
}

function setDefaultsScaleIo(source: Json): void {
  source['storageMode'] ??= 'ThinProvisioned';
  source['fsType'] ??= 'xfs';
}

function setDefaultsWebhook(webhook: Json, mutating: boolean): void {
  // v1 has no sideEffects or admissionReviewVersions default (both are required), and a 10 s timeout.
  webhook['failurePolicy'] ??= 'Fail';
  webhook['matchPolicy'] ??= 'Equivalent';
  webhook['namespaceSelector'] ??= {};
  webhook['objectSelector'] ??= {};
  webhook['timeoutSeconds'] ??= 10;
  if (mutating) webhook['reinvocationPolicy'] ??= 'Never';
}

function setDefaultsScalingRules(rules: unknown, defaults: Json): Json {
  const out = structuredClone(defaults);
  if (!isRecord(rules)) return out;
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) if (rules[key] !== undefined && rules[key] !== null) out[key] = rules[key];
  return out;
}

const HPA_SCALE_UP: Json = {
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
};
const HPA_SCALE_DOWN: Json = { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

/** SET_DEFAULTS are the defaulting functions by the component name of their type. */
export const SET_DEFAULTS: Readonly<Record<string, (value: Json) => void>> = {
  // core/v1
  [`${CORE}.Volume`]: setDefaultsVolume,
  [`${CORE}.Probe`]: setDefaultsProbe,
  [`${CORE}.HTTPGetAction`]: setDefaultsHttpGet,
  // +default="" on GRPCAction.Service.
  [`${CORE}.GRPCAction`]: (action) => {
    action['service'] ??= '';
  },
  [`${CORE}.SecretVolumeSource`]: setDefaultMode,
  [`${CORE}.ConfigMapVolumeSource`]: setDefaultMode,
  [`${CORE}.DownwardAPIVolumeSource`]: setDefaultMode,
  [`${CORE}.ProjectedVolumeSource`]: setDefaultMode,
  [`${CORE}.ServiceAccountTokenProjection`]: (projection) => {
    projection['expirationSeconds'] ??= 3600;
  },
  [`${CORE}.HostPathVolumeSource`]: (source) => {
    source['type'] ??= '';
  },
  [`${CORE}.ObjectFieldSelector`]: (selector) => defaultWhenZero(selector, 'apiVersion', 'v1'),
  [`${CORE}.ISCSIVolumeSource`]: setDefaultsIscsi,
  [`${CORE}.ISCSIPersistentVolumeSource`]: setDefaultsIscsi,
  [`${CORE}.RBDVolumeSource`]: setDefaultsRbd,
  [`${CORE}.RBDPersistentVolumeSource`]: setDefaultsRbd,
  [`${CORE}.ScaleIOVolumeSource`]: setDefaultsScaleIo,
  [`${CORE}.ScaleIOPersistentVolumeSource`]: setDefaultsScaleIo,
  [`${CORE}.AzureDiskVolumeSource`]: (source) => {
    source['cachingMode'] ??= 'ReadWrite';
    source['fsType'] ??= 'ext4';
    source['readOnly'] ??= false;
    source['kind'] ??= 'Shared';
  },
  [`${CORE}.Pod`]: setDefaultsPod,
  [`${CORE}.PersistentVolume`]: (volume) => {
    defaultWhenZero(child(volume, 'status'), 'phase', 'Pending');
    const spec = child(volume, 'spec');
    defaultWhenZero(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    spec['volumeMode'] ??= 'Filesystem';
  },
  [`${CORE}.PersistentVolumeClaim`]: (claim) => defaultWhenZero(child(claim, 'status'), 'phase', 'Pending'),
  [`${CORE}.PersistentVolumeClaimSpec`]: (spec) => {
    spec['volumeMode'] ??= 'Filesystem';
  },
  [`${CORE}.Endpoints`]: (endpoints) => {
    for (const subset of records(endpoints['subsets'])) for (const port of records(subset['ports'])) defaultWhenZero(port, 'protocol', 'TCP');
  },
  [`${CORE}.LimitRangeItem`]: setDefaultsLimitRangeItem,
  [`${CORE}.NodeStatus`]: (status) => {
    if (status['allocatable'] === undefined && isRecord(status['capacity'])) status['allocatable'] = { ...status['capacity'] };
  },
  // admissionregistration.k8s.io/v1
  'io.k8s.api.admissionregistration.v1.ValidatingWebhook': (webhook) => setDefaultsWebhook(webhook, false),
  'io.k8s.api.admissionregistration.v1.MutatingWebhook': (webhook) => setDefaultsWebhook(webhook, true),
  // SetDefaults_Rule, on the Rule inlined in these.
  'io.k8s.api.admissionregistration.v1.RuleWithOperations': (rule) => {
    rule['scope'] ??= '*';
  },
  'io.k8s.api.admissionregistration.v1.NamedRuleWithOperations': (rule) => {
    rule['scope'] ??= '*';
  },
  'io.k8s.api.admissionregistration.v1.ServiceReference': (reference) => {
    reference['port'] ??= 443;
  },
  'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec': (spec) => {
    spec['failurePolicy'] ??= 'Fail';
  },
  'io.k8s.api.admissionregistration.v1.MatchResources': (match) => {
    match['namespaceSelector'] ??= {};
    match['objectSelector'] ??= {};
    match['matchPolicy'] ??= 'Equivalent';
  },
  // apiregistration.k8s.io/v1 (kube-aggregator)
  'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.ServiceReference': (reference) => {
    reference['port'] ??= 443;
  },
  // autoscaling/v2
  'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler': (hpa) => {
    const spec = child(hpa, 'spec');
    spec['minReplicas'] ??= 1;
    if (!Array.isArray(spec['metrics']) || spec['metrics'].length === 0) {
      spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
    }
    const behavior = spec['behavior'];
    if (isRecord(behavior)) {
      behavior['scaleUp'] = setDefaultsScalingRules(behavior['scaleUp'], HPA_SCALE_UP);
      behavior['scaleDown'] = setDefaultsScalingRules(behavior['scaleDown'], HPA_SCALE_DOWN);
    }
  },
  // discovery.k8s.io/v1
  'io.k8s.api.discovery.v1.EndpointPort': (port) => {
    port['name'] ??= '';
    port['protocol'] ??= 'TCP';
  },
  // flowcontrol.apiserver.k8s.io/v1
  'io.k8s.api.flowcontrol.v1.FlowSchemaSpec': (spec) => defaultWhenZero(spec, 'matchingPrecedence', 1000),
  'io.k8s.api.flowcontrol.v1.ExemptPriorityLevelConfiguration': (exempt) => {
    exempt['nominalConcurrencyShares'] ??= 0;
    exempt['lendablePercent'] ??= 0;
  },
  'io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration': (limited) => {
    defaultWhenZero(limited, 'nominalConcurrencyShares', 30);
    limited['lendablePercent'] ??= 0;
  },
  'io.k8s.api.flowcontrol.v1.QueuingConfiguration': (queuing) => {
    defaultWhenZero(queuing, 'handSize', 8);
    defaultWhenZero(queuing, 'queues', 64);
    defaultWhenZero(queuing, 'queueLengthLimit', 50);
  },
  // networking.k8s.io/v1
  'io.k8s.api.networking.v1.NetworkPolicyPort': (port) => {
    port['protocol'] ??= 'TCP';
  },
  'io.k8s.api.networking.v1.NetworkPolicy': (policy) => {
    const spec = child(policy, 'spec');
    if (!Array.isArray(spec['policyTypes']) || spec['policyTypes'].length === 0) {
      spec['policyTypes'] = Array.isArray(spec['egress']) && spec['egress'].length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
    }
  },
  'io.k8s.api.networking.v1.IngressClass': (ingressClass) => {
    const parameters = isRecord(ingressClass['spec']) ? ingressClass['spec']['parameters'] : undefined;
    if (isRecord(parameters)) parameters['scope'] ??= 'Cluster';
  },
  // scheduling.k8s.io/v1
  'io.k8s.api.scheduling.v1.PriorityClass': (priorityClass) => {
    priorityClass['preemptionPolicy'] ??= 'PreemptLowerPriority';
  },
  // storage.k8s.io/v1
  'io.k8s.api.storage.v1.StorageClass': (storageClass) => {
    storageClass['reclaimPolicy'] ??= 'Delete';
    storageClass['volumeBindingMode'] ??= 'Immediate';
  },
  'io.k8s.api.storage.v1.CSIDriver': (driver) => {
    const spec = child(driver, 'spec');
    spec['attachRequired'] ??= true;
    spec['podInfoOnMount'] ??= false;
    spec['storageCapacity'] ??= false;
    spec['fsGroupPolicy'] ??= 'ReadWriteOnceWithFSType';
    if (!Array.isArray(spec['volumeLifecycleModes']) || spec['volumeLifecycleModes'].length === 0) spec['volumeLifecycleModes'] = ['Persistent'];
    spec['requiresRepublish'] ??= false;
    // SELinuxMountReadWriteOncePod is beta and on in 1.32.
    spec['seLinuxMount'] ??= false;
  },
};
