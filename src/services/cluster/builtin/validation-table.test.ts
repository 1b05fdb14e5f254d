import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

/** One kind's case: where it is created, a valid manifest (from the Kubernetes docs' examples) and three refused ones. */
interface KindCase {
  readonly kind: string;
  readonly path: string;
  readonly valid: Record<string, unknown>;
  readonly invalid: readonly { readonly body: Record<string, unknown>; readonly status: number; readonly message: string }[];
}

const nginxPod = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'nginx' }, spec });
const nginx = { name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] };
const deployment = (spec: Record<string, unknown>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx-deployment', labels: { app: 'nginx' } },
  spec,
});
const template = { metadata: { labels: { app: 'nginx' } }, spec: { containers: [nginx] } };
const LABEL_RULE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const CASES: readonly KindCase[] = [
  {
    kind: 'Pod',
    path: '/api/v1/namespaces/default/pods',
    valid: nginxPod({ containers: [nginx] }),
    invalid: [
      { body: nginxPod({}), status: 422, message: 'Pod "nginx" is invalid: spec.containers: Required value' },
      {
        body: nginxPod({ containers: [{ ...nginx, name: 'Web' }] }),
        status: 422,
        message: `Pod "nginx" is invalid: spec.containers[0].name: Invalid value: "Web": ${LABEL_RULE}`,
      },
      {
        body: nginxPod({ containers: [nginx], restartPolicy: 'Sometimes' }),
        status: 422,
        message: 'Pod "nginx" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      },
    ],
  },
  {
    kind: 'Deployment',
    path: '/apis/apps/v1/namespaces/default/deployments',
    valid: deployment({ replicas: 3, selector: { matchLabels: { app: 'nginx' } }, template }),
    invalid: [
      { body: deployment({ template }), status: 422, message: 'Deployment.apps "nginx-deployment" is invalid: spec.selector: Required value' },
      {
        body: deployment({ selector: { matchLabels: { app: 'web' } }, template }),
        status: 422,
        message:
          'Deployment.apps "nginx-deployment" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"nginx"}: `selector` does not match template `labels`',
      },
      {
        body: deployment({ replicas: 'three', selector: { matchLabels: { app: 'nginx' } }, template }),
        status: 400,
        message:
          'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      },
    ],
  },
  {
    kind: 'Service',
    path: '/api/v1/namespaces/default/services',
    valid: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'my-service' },
      spec: { selector: { 'app.kubernetes.io/name': 'MyApp' }, ports: [{ protocol: 'TCP', port: 80, targetPort: 9376 }] },
    },
    invalid: [
      {
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { selector: { app: 'a' } } },
        status: 422,
        message: 'Service "s" is invalid: spec.ports: Required value',
      },
      {
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'Cluster', ports: [{ port: 80 }] } },
        status: 422,
        message: 'Service "s" is invalid: spec.type: Unsupported value: "Cluster": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      },
      {
        body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] } },
        status: 422,
        message:
          'Service "s" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
      },
    ],
  },
  {
    kind: 'ConfigMap',
    path: '/api/v1/namespaces/default/configmaps',
    valid: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'game-demo' },
      data: { player_initial_lives: '3', 'game.properties': 'enemy.types=aliens,monsters\n' },
    },
    invalid: [
      {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'game-demo' }, data: { 'bad key': 'x' } },
        status: 422,
        message:
          "ConfigMap \"game-demo\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      },
      {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'game-demo' }, data: { lives: 3 } },
        status: 400,
        message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      },
      {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: {} },
        status: 422,
        message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      },
    ],
  },
  {
    kind: 'Secret',
    path: '/api/v1/namespaces/default/secrets',
    valid: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dotfile-secret' }, data: { '.secret-file': 'dmFsdWUtMg0KDQo=' } },
    invalid: [
      {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'not base64!' } },
        status: 400,
        message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
      },
      {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'YQ==' } },
        status: 422,
        message: 'Secret "s" is invalid: data[tls.key]: Required value',
      },
      {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/basic-auth', stringData: {} },
        status: 422,
        message: 'Secret "s" is invalid: data[username]: Required value',
      },
    ],
  },
  {
    kind: 'Job',
    path: '/apis/batch/v1/namespaces/default/jobs',
    valid: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi' },
      spec: {
        template: {
          spec: { containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }], restartPolicy: 'Never' },
        },
        backoffLimit: 4,
      },
    },
    invalid: [
      {
        body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: {} },
        status: 422,
        message: 'Job.batch "pi" is invalid: spec.template: Required value',
      },
      {
        body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl' }] } } } },
        status: 422,
        message: 'Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      },
      {
        body: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'pi' },
          spec: { template: { spec: { containers: [{ name: 'pi' }], restartPolicy: 'Never' } } },
        },
        status: 422,
        message: 'Job.batch "pi" is invalid: spec.template.spec.containers[0].image: Required value',
      },
    ],
  },
  {
    kind: 'Lease',
    path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    valid: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'my-lock' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2025-01-01T00:00:00.123456Z' },
    },
    invalid: [
      {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0 } },
        status: 422,
        message: 'Lease.coordination.k8s.io "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      },
      {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { renewTime: 'yesterday' } },
        status: 400,
        message:
          'Lease in version "v1" cannot be handled as a Lease: parsing time "yesterday" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "yesterday" as "2006"',
      },
      {
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holder: 'a' } },
        status: 400,
        message: 'Lease in version "v1" cannot be handled as a Lease: strict decoding error: unknown field "spec.holder"',
      },
    ],
  },
  {
    kind: 'Ingress',
    path: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
    valid: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'minimal-ingress' },
      spec: {
        ingressClassName: 'nginx-example',
        rules: [{ http: { paths: [{ path: '/testpath', pathType: 'Prefix', backend: { service: { name: 'test', port: { number: 80 } } } }] } }],
      },
    },
    invalid: [
      {
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'i' },
          spec: { rules: [{ http: { paths: [{ path: '/', backend: {} }] } }] },
        },
        status: 422,
        message: 'Ingress.networking.k8s.io "i" is invalid: spec.rules[0].http.paths[0].pathType: Required value',
      },
      {
        body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { rules: [{ hostname: 'example.com' }] } },
        status: 400,
        message: 'Ingress in version "v1" cannot be handled as a Ingress: strict decoding error: unknown field "spec.rules[0].hostname"',
      },
      {
        body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i' }, spec: { rules: [{ http: {} }] } },
        status: 422,
        message: 'Ingress.networking.k8s.io "i" is invalid: spec.rules[0].http.paths: Required value',
      },
    ],
  },
  {
    kind: 'PersistentVolumeClaim',
    path: '/api/v1/namespaces/default/persistentvolumeclaims',
    valid: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'myclaim' },
      spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', resources: { requests: { storage: '8Gi' } }, storageClassName: 'slow' },
    },
    invalid: [
      {
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { resources: { requests: { storage: 'eight gigs' } } } },
        status: 400,
        message:
          'PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
      },
      {
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteSometimes'] } },
        status: 422,
        message:
          'PersistentVolumeClaim "c" is invalid: spec.accessModes[0]: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
      },
      {
        body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { volumeMode: 'Folder' } },
        status: 422,
        message: 'PersistentVolumeClaim "c" is invalid: spec.volumeMode: Unsupported value: "Folder": supported values: "Block", "Filesystem"',
      },
    ],
  },
  {
    kind: 'PriorityClass',
    path: '/apis/scheduling.k8s.io/v1/priorityclasses',
    valid: {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'high-priority' },
      value: 1000000,
      globalDefault: false,
      description: 'This priority class should be used for XYZ service pods only.',
    },
    invalid: [
      {
        body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' } },
        status: 422,
        message: 'PriorityClass.scheduling.k8s.io "p" is invalid: value: Required value',
      },
      {
        body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1.5 },
        status: 400,
        message:
          'PriorityClass in version "v1" cannot be handled as a PriorityClass: json: cannot unmarshal number into Go struct field PriorityClass.value of type int32',
      },
      {
        body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1, preemptionPolicy: 'Sometimes' },
        status: 422,
        message:
          'PriorityClass.scheduling.k8s.io "p" is invalid: preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"',
      },
    ],
  },
];

describe('built-in kinds are validated by their schema and the Go rules users hit', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  for (const entry of CASES) {
    it(`${entry.kind}: accepts the docs' manifest and refuses three broken ones with the apiserver's texts`, async () => {
      const created = await h.call('POST', `${entry.path}?fieldValidation=Strict`, entry.valid);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const { body, status, message } of entry.invalid) {
        const refused = await h.call('POST', `${entry.path}?fieldValidation=Strict`, body);
        assert.equal(refused.body.message, message);
        assert.equal(refused.status, status);
      }
    });
  }

  it('Warn names the unknown field in a Warning header; Ignore drops it silently', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'warned' }, data: {}, extra: 1 };
    const warned = await h.call('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Warn', body);
    assert.equal(warned.status, 201);
    assert.deepEqual(warned.headers['warning'], ['299 - "unknown field \\"extra\\""']);
    const ignored = await h.call('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Ignore', { ...body, metadata: { name: 'ignored' } });
    assert.equal(ignored.status, 201);
    assert.equal(ignored.headers['warning'], undefined);
    assert.equal(ignored.body.extra, undefined);
  });
});
