import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

/**
 * One row: an object created through the API and the fields the apiserver's defaulting functions
 * (k8s.io/kubernetes 1.32 `pkg/apis/<group>/<version>/defaults.go`, the `+default=` markers of
 * k8s.io/api v0.32) give it, each as a path into the answer and the value expected there.
 */
interface DefaultingCase {
  readonly name: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly expected: readonly (readonly [path: string, value: unknown])[];
}

const container = { name: 'c', image: 'busybox:1.36' };
const podSpec = (extra: Record<string, unknown>) => ({ containers: [container], ...extra });
const pod = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const labels = { app: 'web' };
const template = (spec: Record<string, unknown> = podSpec({})) => ({ metadata: { labels }, spec });

const CASES: readonly DefaultingCase[] = [
  {
    name: 'SetDefaults_Volume: a volume with no source is an emptyDir, in a Pod',
    path: '/api/v1/namespaces/default/pods',
    body: pod('volume', podSpec({ volumes: [{ name: 'scratch' }, { name: 'host', hostPath: { path: '/data' } }] })),
    expected: [
      ['spec.volumes.0', { name: 'scratch', emptyDir: {} }],
      ['spec.volumes.1.hostPath', { path: '/data', type: '' }],
    ],
  },
  {
    name: 'SetDefaults_Volume wherever a Volume is: a Deployment template',
    path: '/apis/apps/v1/namespaces/default/deployments',
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'volume' },
      spec: { selector: { matchLabels: labels }, template: template(podSpec({ volumes: [{ name: 'scratch' }] })) },
    },
    expected: [['spec.template.spec.volumes.0.emptyDir', {}]],
  },
  {
    name: 'SetDefaults_Probe, SetDefaults_HTTPGetAction, GRPCAction.service',
    path: '/api/v1/namespaces/default/pods',
    body: pod(
      'probes',
      podSpec({
        containers: [{ ...container, livenessProbe: { httpGet: { port: 8080 } }, readinessProbe: { grpc: { port: 9090 }, periodSeconds: 5 } }],
      }),
    ),
    expected: [
      [
        'spec.containers.0.livenessProbe',
        { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
      ],
      [
        'spec.containers.0.readinessProbe',
        { grpc: { port: 9090, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
      ],
    ],
  },
  {
    name: 'defaultMode of secret, configMap, downwardAPI and projected volumes; token projection expiry; fieldRef apiVersion',
    path: '/api/v1/namespaces/default/pods',
    body: pod(
      'modes',
      podSpec({
        containers: [{ ...container, env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] }],
        volumes: [
          { name: 's', secret: { secretName: 's' } },
          { name: 'c', configMap: { name: 'c' } },
          { name: 'd', downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
          { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
        ],
      }),
    ),
    expected: [
      ['spec.containers.0.env.0.valueFrom.fieldRef', { fieldPath: 'spec.nodeName', apiVersion: 'v1' }],
      ['spec.volumes.0.secret.defaultMode', 420],
      ['spec.volumes.1.configMap.defaultMode', 420],
      ['spec.volumes.2.downwardAPI', { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace', apiVersion: 'v1' } }], defaultMode: 420 }],
      ['spec.volumes.3.projected', { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 }],
    ],
  },
  {
    name: 'SetDefaults_Pod: requests from limits, enableServiceLinks, host ports under hostNetwork; and the PodSpec/Container defaults',
    path: '/api/v1/namespaces/default/pods',
    body: pod(
      'pod',
      podSpec({
        hostNetwork: true,
        containers: [{ ...container, ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } } }],
      }),
    ),
    expected: [
      ['spec.containers.0.resources', { limits: { cpu: '500m' }, requests: { memory: '64Mi', cpu: '500m' } }],
      ['spec.containers.0.ports.0', { containerPort: 8080, protocol: 'TCP', hostPort: 8080 }],
      ['spec.containers.0.imagePullPolicy', 'IfNotPresent'],
      ['spec.containers.0.terminationMessagePath', '/dev/termination-log'],
      ['spec.enableServiceLinks', true],
      ['spec.restartPolicy', 'Always'],
      ['spec.dnsPolicy', 'ClusterFirst'],
      ['spec.schedulerName', 'default-scheduler'],
      ['spec.terminationGracePeriodSeconds', 30],
    ],
  },
  {
    name: 'legacy volume sources: +default markers of iscsi, rbd, azureDisk, scaleIO',
    path: '/api/v1/namespaces/default/pods',
    body: pod(
      'legacy',
      podSpec({
        volumes: [
          { name: 'i', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
          { name: 'r', rbd: { monitors: ['10.0.0.2:6789'], image: 'foo' } },
          { name: 'a', azureDisk: { diskName: 'd', diskURI: 'https://example.com/d.vhd' } },
          { name: 's', scaleIO: { gateway: 'https://gw', system: 'sys', secretRef: { name: 's' } } },
        ],
      }),
    ),
    expected: [
      ['spec.volumes.0.iscsi.iscsiInterface', 'default'],
      ['spec.volumes.1.rbd', { monitors: ['10.0.0.2:6789'], image: 'foo', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' }],
      [
        'spec.volumes.2.azureDisk',
        { diskName: 'd', diskURI: 'https://example.com/d.vhd', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' },
      ],
      ['spec.volumes.3.scaleIO.storageMode', 'ThinProvisioned'],
      ['spec.volumes.3.scaleIO.fsType', 'xfs'],
    ],
  },
  {
    name: 'SetDefaults_PersistentVolume',
    path: '/api/v1/persistentvolumes',
    body: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/pv' } },
    },
    expected: [
      ['spec.persistentVolumeReclaimPolicy', 'Retain'],
      ['spec.volumeMode', 'Filesystem'],
      ['spec.hostPath.type', ''],
      ['status.phase', 'Pending'],
    ],
  },
  {
    name: 'SetDefaults_PersistentVolumeClaim and its spec',
    path: '/api/v1/namespaces/default/persistentvolumeclaims',
    body: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'pvc' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    },
    expected: [
      ['spec.volumeMode', 'Filesystem'],
      ['status.phase', 'Pending'],
    ],
  },
  {
    name: 'SetDefaults_Endpoints',
    path: '/api/v1/namespaces/default/endpoints',
    body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.1.0.1' }], ports: [{ port: 80 }] }] },
    expected: [['subsets.0.ports.0', { port: 80, protocol: 'TCP' }]],
  },
  {
    name: 'SetDefaults_LimitRangeItem: container defaults from max, requests from defaults and min',
    path: '/api/v1/namespaces/default/limitranges',
    body: {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'lr' },
      spec: { limits: [{ type: 'Container', max: { cpu: '1' }, min: { memory: '16Mi' }, default: { memory: '128Mi' } }] },
    },
    expected: [
      ['spec.limits.0.default', { memory: '128Mi', cpu: '1' }],
      ['spec.limits.0.defaultRequest', { memory: '128Mi', cpu: '1' }],
    ],
  },
  {
    name: 'SetDefaults_ReplicationController: selector and labels from the template',
    path: '/api/v1/namespaces/default/replicationcontrollers',
    body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { template: template() } },
    expected: [
      ['spec.selector', labels],
      ['metadata.labels', labels],
      ['spec.replicas', 1],
    ],
  },
  {
    name: 'SetDefaults_Service: ClientIP affinity timeout, LoadBalancer node ports',
    path: '/api/v1/namespaces/default/services',
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] } },
    expected: [
      ['spec.sessionAffinityConfig', { clientIP: { timeoutSeconds: 10800 } }],
      ['spec.allocateLoadBalancerNodePorts', true],
      ['spec.externalTrafficPolicy', 'Cluster'],
      ['spec.internalTrafficPolicy', 'Cluster'],
      ['spec.ports.0.targetPort', 80],
    ],
  },
  {
    name: 'SetDefaults_Deployment: a partial rollingUpdate is completed',
    path: '/apis/apps/v1/namespaces/default/deployments',
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'partial' },
      spec: { selector: { matchLabels: labels }, strategy: { rollingUpdate: { maxSurge: 1 } }, template: template() },
    },
    expected: [
      ['spec.strategy', { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } }],
      ['spec.replicas', 1],
      ['spec.revisionHistoryLimit', 10],
      ['spec.progressDeadlineSeconds', 600],
    ],
  },
  {
    name: 'SetDefaults_StatefulSet: update strategy, PVC retention policy, claim templates',
    path: '/apis/apps/v1/namespaces/default/statefulsets',
    body: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'sts' },
      spec: {
        selector: { matchLabels: labels },
        serviceName: 'sts',
        template: template(),
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    },
    expected: [
      ['spec.updateStrategy', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }],
      ['spec.persistentVolumeClaimRetentionPolicy', { whenDeleted: 'Retain', whenScaled: 'Retain' }],
      ['spec.podManagementPolicy', 'OrderedReady'],
      ['spec.volumeClaimTemplates.0.spec.volumeMode', 'Filesystem'],
    ],
  },
  {
    name: 'SetDefaults_DaemonSet',
    path: '/apis/apps/v1/namespaces/default/daemonsets',
    body: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'ds' },
      spec: { selector: { matchLabels: labels }, updateStrategy: { type: 'RollingUpdate' }, template: template() },
    },
    expected: [
      ['spec.updateStrategy', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }],
      ['spec.revisionHistoryLimit', 10],
    ],
  },
  {
    name: 'SetDefaults_Job: parallelism without completions, pod failure policy, labels from the template',
    path: '/apis/batch/v1/namespaces/default/jobs',
    body: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'job' },
      spec: {
        parallelism: 2,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: { metadata: { labels }, spec: podSpec({ restartPolicy: 'Never' }) },
      },
    },
    expected: [
      ['spec.completions', undefined],
      ['spec.backoffLimit', 6],
      ['spec.podFailurePolicy.rules.0.onPodConditions.0', { type: 'DisruptionTarget', status: 'True' }],
      ['spec.podReplacementPolicy', 'Failed'],
      ['metadata.labels', labels],
    ],
  },
  {
    name: 'SetDefaults_Job: neither completions nor parallelism is one pod to completion',
    path: '/apis/batch/v1/namespaces/default/jobs',
    body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { template: { spec: podSpec({ restartPolicy: 'Never' }) } } },
    expected: [
      ['spec.completions', 1],
      ['spec.parallelism', 1],
      ['spec.podReplacementPolicy', 'TerminatingOrFailed'],
      ['metadata.labels.job-name', 'once'],
    ],
  },
  {
    name: 'SetDefaults_HorizontalPodAutoscaler: minReplicas, the CPU metric, behavior rules',
    path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers',
    body: {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'hpa' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 5,
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    },
    expected: [
      ['spec.minReplicas', 1],
      ['spec.metrics', [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]],
      [
        'spec.behavior.scaleUp',
        {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Max',
          policies: [
            { type: 'Pods', value: 4, periodSeconds: 15 },
            { type: 'Percent', value: 100, periodSeconds: 15 },
          ],
        },
      ],
      ['spec.behavior.scaleDown', { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] }],
    ],
  },
  {
    name: 'SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort',
    path: '/apis/networking.k8s.io/v1/namespaces/default/networkpolicies',
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np' },
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }], egress: [{}] },
    },
    expected: [
      ['spec.policyTypes', ['Ingress', 'Egress']],
      ['spec.ingress.0.ports.0', { port: 80, protocol: 'TCP' }],
    ],
  },
  {
    name: 'SetDefaults_IngressClass: parameters are cluster-scoped',
    path: '/apis/networking.k8s.io/v1/ingressclasses',
    body: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'ic' },
      spec: { controller: 'example.com/ingress', parameters: { kind: 'Params', name: 'p' } },
    },
    expected: [['spec.parameters.scope', 'Cluster']],
  },
  {
    name: 'SetDefaults_StorageClass',
    path: '/apis/storage.k8s.io/v1/storageclasses',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'sc' }, provisioner: 'example.com/disk' },
    expected: [
      ['reclaimPolicy', 'Delete'],
      ['volumeBindingMode', 'Immediate'],
    ],
  },
  {
    name: 'SetDefaults_CSIDriver',
    path: '/apis/storage.k8s.io/v1/csidrivers',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'disk.example.com' }, spec: {} },
    expected: [
      [
        'spec',
        {
          attachRequired: true,
          podInfoOnMount: false,
          storageCapacity: false,
          fsGroupPolicy: 'ReadWriteOnceWithFSType',
          volumeLifecycleModes: ['Persistent'],
          requiresRepublish: false,
          seLinuxMount: false,
        },
      ],
    ],
  },
  {
    name: 'SetDefaults_ValidatingWebhook, SetDefaults_Rule, SetDefaults_ServiceReference',
    path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'vwc' },
      webhooks: [
        {
          name: 'check.example.com',
          clientConfig: { service: { namespace: 'default', name: 'hook' } },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
    expected: [
      ['webhooks.0.failurePolicy', 'Fail'],
      ['webhooks.0.matchPolicy', 'Equivalent'],
      ['webhooks.0.namespaceSelector', {}],
      ['webhooks.0.objectSelector', {}],
      ['webhooks.0.timeoutSeconds', 10],
      ['webhooks.0.rules.0.scope', '*'],
      ['webhooks.0.clientConfig.service.port', 443],
    ],
  },
  {
    name: 'SetDefaults_MutatingWebhook: reinvocationPolicy',
    path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'mwc' },
      webhooks: [{ name: 'mutate.example.com', clientConfig: { url: 'https://example.com/m' }, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
    },
    expected: [
      ['webhooks.0.reinvocationPolicy', 'Never'],
      ['webhooks.0.failurePolicy', 'Fail'],
    ],
  },
  {
    name: 'SetDefaults_ValidatingAdmissionPolicySpec and SetDefaults_MatchResources',
    path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'vap' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        validations: [{ expression: 'object.spec.replicas <= 5' }],
      },
    },
    expected: [
      ['spec.failurePolicy', 'Fail'],
      ['spec.matchConstraints.matchPolicy', 'Equivalent'],
      ['spec.matchConstraints.namespaceSelector', {}],
      ['spec.matchConstraints.objectSelector', {}],
      ['spec.matchConstraints.resourceRules.0.scope', '*'],
    ],
  },
  {
    name: 'SetDefaults_FlowSchemaSpec',
    path: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
    body: {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'fs' },
      spec: { priorityLevelConfiguration: { name: 'global-default' } },
    },
    expected: [['spec.matchingPrecedence', 1000]],
  },
  {
    name: 'SetDefaults_LimitedPriorityLevelConfiguration and SetDefaults_QueuingConfiguration',
    path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
    body: {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'plc' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
    },
    expected: [
      [
        'spec.limited',
        { limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } }, nominalConcurrencyShares: 30, lendablePercent: 0 },
      ],
    ],
  },
  {
    name: 'SetDefaults_ExemptPriorityLevelConfiguration',
    path: '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
    body: {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'exempt-plc' },
      spec: { type: 'Exempt', exempt: {} },
    },
    expected: [['spec.exempt', { nominalConcurrencyShares: 0, lendablePercent: 0 }]],
  },
  {
    name: 'SetDefaults_EndpointPort (discovery.k8s.io)',
    path: '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices',
    body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'slice' }, addressType: 'IPv4', endpoints: [], ports: [{ port: 80 }] },
    expected: [['ports.0', { port: 80, name: '', protocol: 'TCP' }]],
  },
  {
    name: 'SetDefaults_PriorityClass',
    path: '/apis/scheduling.k8s.io/v1/priorityclasses',
    body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
    expected: [['preemptionPolicy', 'PreemptLowerPriority']],
  },
];

function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

describe("the apiserver's defaulting functions, by kind (a table: object created → defaulted fields)", () => {
  let cluster: ClusterHarness;
  before(async () => {
    cluster = await startHarness();
  });
  after(async () => cluster.close());

  for (const row of CASES) {
    it(row.name, async () => {
      const created = await cluster.call('POST', row.path, row.body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const [path, value] of row.expected) assert.deepEqual(at(created.body, path), value, `${path} of the created object`);
      // Read back, and after an update that sends the defaulted object again, the same.
      const url = `${row.path}/${(row.body['metadata'] as { name: string }).name}`;
      const read = await cluster.call('GET', url);
      for (const [path, value] of row.expected) assert.deepEqual(at(read.body, path), value, `${path} read back`);
      const replaced = await cluster.call('PUT', url, read.body);
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      for (const [path, value] of row.expected) assert.deepEqual(at(replaced.body, path), value, `${path} after a replace`);
    });
  }
});
