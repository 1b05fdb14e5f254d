import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GoStructTable } from '../apimachinery/go-structs.ts';
import { CLUSTER_VIEWS } from '../runtime.ts';
import { type ClusterHarness, type HarnessResponse, startHarness } from '../../../testing/cluster-harness.ts';
import { GO_JSON_FIELDS_JSON } from './go-json-fields.generated.ts';

const TABLE = JSON.parse(GO_JSON_FIELDS_JSON) as GoStructTable;

const containers = [{ name: 'c', image: 'nginx' }];
const labels = { app: 'a' };
const podTemplate = { metadata: { labels }, spec: { containers } };
const jobTemplate = { spec: { template: { spec: { containers, restartPolicy: 'Never' } } } };

/** A minimal valid object of every served built-in kind, by `group/resource`. */
const MINIMAL: Readonly<Record<string, Record<string, unknown>>> = {
  '/configmaps': {},
  '/endpoints': {},
  '/events': { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' } },
  '/limitranges': { spec: { limits: [{ type: 'Container' }] } },
  '/namespaces': {},
  '/nodes': {},
  '/persistentvolumeclaims': { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  '/persistentvolumes': { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } },
  '/pods': { spec: { containers } },
  '/podtemplates': { template: { spec: { containers } } },
  '/replicationcontrollers': { spec: { selector: labels, template: podTemplate } },
  '/resourcequotas': {},
  '/secrets': {},
  '/serviceaccounts': {},
  '/services': { spec: { ports: [{ port: 80 }] } },
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': {},
  'admissionregistration.k8s.io/validatingadmissionpolicies': {
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression: 'true' }],
    },
  },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': { spec: { policyName: 'p', validationActions: ['Deny'] } },
  'admissionregistration.k8s.io/validatingwebhookconfigurations': {},
  'apiregistration.k8s.io/apiservices': { spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } },
  'apps/controllerrevisions': { revision: 1 },
  'apps/daemonsets': { spec: { selector: { matchLabels: labels }, template: podTemplate } },
  'apps/deployments': { spec: { selector: { matchLabels: labels }, template: podTemplate } },
  'apps/replicasets': { spec: { selector: { matchLabels: labels }, template: podTemplate } },
  'apps/statefulsets': { spec: { serviceName: 's', selector: { matchLabels: labels }, template: podTemplate } },
  'autoscaling/horizontalpodautoscalers': { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
  'batch/cronjobs': { spec: { schedule: '* * * * *', jobTemplate } },
  'batch/jobs': { spec: jobTemplate.spec },
  'certificates.k8s.io/certificatesigningrequests': {
    spec: { request: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K', signerName: 'example.com/signer', usages: ['digital signature'] },
  },
  'coordination.k8s.io/leases': {},
  'discovery.k8s.io/endpointslices': { addressType: 'IPv4', endpoints: [] },
  'events.k8s.io/events': {
    eventTime: '2025-01-01T00:00:00.000000Z',
    reportingController: 'example.com/c',
    reportingInstance: 'i',
    action: 'Pulling',
    reason: 'Pulling',
    type: 'Normal',
    regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
  },
  'flowcontrol.apiserver.k8s.io/flowschemas': { spec: { priorityLevelConfiguration: { name: 'p' } } },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
  'networking.k8s.io/ingressclasses': { spec: { controller: 'example.com/ingress' } },
  'networking.k8s.io/ingresses': { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } },
  'networking.k8s.io/networkpolicies': { spec: { podSelector: {} } },
  'node.k8s.io/runtimeclasses': { handler: 'runc' },
  'policy/poddisruptionbudgets': { spec: { minAvailable: 1 } },
  'rbac.authorization.k8s.io/clusterrolebindings': { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' } },
  'rbac.authorization.k8s.io/clusterroles': {},
  'rbac.authorization.k8s.io/rolebindings': { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
  'rbac.authorization.k8s.io/roles': {},
  'scheduling.k8s.io/priorityclasses': { value: 10 },
  'storage.k8s.io/csidrivers': { spec: {} },
  'storage.k8s.io/csinodes': { spec: { drivers: [] } },
  'storage.k8s.io/csistoragecapacities': { storageClassName: 'sc' },
  'storage.k8s.io/storageclasses': { provisioner: 'example.com/p' },
  'storage.k8s.io/volumeattachments': { spec: { attacher: 'example.com/a', source: { persistentVolumeName: 'pv' }, nodeName: 'n' } },
};

/**
 * The kinds whose DELETE answers the deleted object in 1.32: their REST storage sets
 * ReturnDeletedObject, so the apiserver's OpenAPI document answers DELETE with the kind (every
 * other DELETE answers a Status). Read off the 1.32 document (kubernetes-client/python v32.0.1,
 * kubernetes/swagger.json.unprocessed), for the kinds served here.
 */
const RETURNS_DELETED_OBJECT: ReadonlySet<string> = new Set([
  '/persistentvolumeclaims',
  '/persistentvolumes',
  '/pods',
  '/podtemplates',
  '/resourcequotas',
  '/serviceaccounts',
  '/services',
  'storage.k8s.io/csidrivers',
  'storage.k8s.io/csinodes',
  'storage.k8s.io/storageclasses',
  'storage.k8s.io/volumeattachments',
]);

/**
 * nameOf is the object's name: core and events.k8s.io Events are one stored kind, so they need
 * two; an APIService is named `<version>.<group>`.
 */
const nameOf = (key: string): string => (key === 'events.k8s.io/events' ? 'y' : key === 'apiregistration.k8s.io/apiservices' ? 'v1.example.com' : 'x');

const SERVED = CLUSTER_VIEWS.filter((view) => view.subresource === undefined && view.group !== 'apiextensions.k8s.io');

function pathOf(view: (typeof SERVED)[number], name?: string): string {
  const base = view.group === '' ? `/api/${view.version}` : `/apis/${view.group}/${view.version}`;
  const scope = view.strategy.namespaced ? `${base}/namespaces/default/${view.resource}` : `${base}/${view.resource}`;
  return name === undefined ? scope : `${scope}/${name}`;
}

/**
 * goTypeProblems lists where `value` differs from what encoding/json writes for a Go struct of
 * `component`: a member Go always writes that is missing, or an omitempty member written empty.
 */
function goTypeProblems(component: string, value: unknown, path: string, out: string[]): void {
  const members = TABLE[component];
  if (members === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const object = value as Record<string, unknown>;
  for (const [name, mode, child] of members) {
    const item = object[name];
    const at = `${path}.${name}`;
    if (mode !== 'o' && mode !== 'p' && !(name in object)) out.push(`${at} is missing (Go writes ${mode})`);
    if (
      mode === 'o' &&
      name in object &&
      (item === '' || item === 0 || item === false || item === null || (typeof item === 'object' && Object.keys(item).length === 0))
    )
      out.push(`${at} is written empty (${JSON.stringify(item)}), but is omitempty`);
    if (child === undefined || item === null || typeof item !== 'object') continue;
    const target = child.slice(2);
    if (child.startsWith('s:')) goTypeProblems(target, item, at, out);
    else if (child.startsWith('l:')) {
      for (const [index, element] of (item as unknown[]).entries()) goTypeProblems(target, element, `${at}[${index}]`, out);
    } else for (const [key, element] of Object.entries(item)) goTypeProblems(target, element, `${at}[${key}]`, out);
  }
}

describe('built-in objects are written as Go writes their structs', () => {
  let h: ClusterHarness;
  const created = new Map<string, HarnessResponse>();
  before(async () => {
    h = await startHarness();
    for (const view of SERVED) {
      const key = `${view.group}/${view.resource}`;
      const body = MINIMAL[key];
      if (body === undefined) continue;
      created.set(key, await h.call('POST', pathOf(view), { metadata: { name: nameOf(key) }, ...body }));
    }
  });
  after(async () => h.close());

  it('has a minimal object for every served kind', () => {
    assert.deepEqual(SERVED.map((view) => `${view.group}/${view.resource}`).sort(), Object.keys(MINIMAL).sort());
  });

  it('creates every kind', () => {
    const refused = [...created].filter(([, answer]) => answer.status !== 201).map(([key, answer]) => `${key}: ${answer.body.message}`);
    assert.deepEqual(refused, []);
  });

  it('writes every member Go always writes and no empty omitempty one, on create and read, for every kind', async () => {
    const problems: string[] = [];
    for (const view of SERVED) {
      const key = `${view.group}/${view.resource}`;
      const answer = created.get(key)!;
      assert.ok(TABLE[view.schemaName] !== undefined, `${view.schemaName} is a Go struct of the table`);
      goTypeProblems(view.schemaName, answer.body, key, problems);
      const read = await h.call('GET', pathOf(view, nameOf(key)));
      goTypeProblems(view.schemaName, read.body, `${key} (read)`, problems);
      const listed = await h.call('GET', pathOf(view));
      for (const item of listed.body.items) goTypeProblems(view.schemaName, item, `${key} (listed)`, problems);
    }
    assert.deepEqual(problems, []);
  });

  it('writes the status structs 1.32 writes for a new object (k8s.io/api types.go)', () => {
    const status = (key: string) => created.get(key)!.body.status;
    assert.deepEqual(status('/services'), { loadBalancer: {} });
    assert.deepEqual(status('networking.k8s.io/ingresses'), { loadBalancer: {} });
    assert.deepEqual(status('apps/deployments'), {});
    assert.deepEqual(status('batch/jobs'), {});
    assert.deepEqual(status('batch/cronjobs'), {});
    // Counters without omitempty are written as 0.
    assert.deepEqual(status('apps/replicasets'), { replicas: 0 });
    assert.deepEqual(status('/replicationcontrollers'), { replicas: 0 });
    assert.deepEqual(status('apps/statefulsets'), { replicas: 0, availableReplicas: 0 });
    assert.deepEqual(status('apps/daemonsets'), { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    assert.deepEqual(status('policy/poddisruptionbudgets'), { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    assert.deepEqual(status('autoscaling/horizontalpodautoscalers'), { currentMetrics: null, desiredReplicas: 0 });
    assert.equal(typeof status('/persistentvolumeclaims'), 'object');
  });

  it('writes nested structs and fields without omitempty: a zero Time as null, a nil list as null, an empty string as ""', () => {
    const deployment = created.get('apps/deployments')!.body;
    assert.equal(deployment.spec.template.metadata.creationTimestamp, null, 'ObjectMeta.CreationTimestamp is a struct: never omitted');
    assert.deepEqual(deployment.spec.template.spec.containers[0].resources, {});
    assert.equal(created.get('rbac.authorization.k8s.io/clusterroles')!.body.rules, null, 'ClusterRole.Rules has no omitempty');
    const event = created.get('/events')!.body;
    assert.equal(event.reportingComponent, '');
    assert.equal(event.reportingInstance, '');
    assert.equal(event.eventTime, null);
    assert.deepEqual(event.source, {});
  });

  it('leaves out omitempty members written empty, and keeps a pointer set to a zero value', async () => {
    const answer = await h.call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'empty', labels: {}, annotations: {}, finalizers: [] },
      spec: {
        replicas: 0,
        paused: false,
        minReadySeconds: 0,
        selector: { matchLabels: labels },
        template: { ...podTemplate, spec: { containers, hostNetwork: false, nodeName: '' } },
      },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    for (const key of ['labels', 'annotations', 'finalizers']) assert.equal(key in answer.body.metadata, false, key);
    assert.equal(answer.body.spec.replicas, 0, 'replicas is a *int32');
    assert.equal('paused' in answer.body.spec, false);
    assert.equal('minReadySeconds' in answer.body.spec, false);
    assert.equal('hostNetwork' in answer.body.spec.template.spec, false);
    assert.equal('nodeName' in answer.body.spec.template.spec, false);
  });

  it('leaves a no-op update unwritten, though the object it read back carries the members Go adds', async () => {
    const before = await h.call('GET', '/api/v1/namespaces/default/services/x');
    const replaced = await h.call('PUT', '/api/v1/namespaces/default/services/x', before.body);
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.equal(replaced.body.metadata.resourceVersion, before.body.metadata.resourceVersion);
    const patched = await h.call('PATCH', '/apis/apps/v1/namespaces/default/deployments/x', {}, { 'content-type': 'application/merge-patch+json' });
    assert.equal(patched.body.metadata.resourceVersion, created.get('apps/deployments')!.body.metadata.resourceVersion);
    assert.equal(patched.body.metadata.managedFields.length, 1, 'no entry for the members Go writes');
  });

  it('answers DELETE with the object for the kinds whose 1.32 storage returns it, and a Status for the others', async () => {
    // Core v1 ReplicationControllers and batch/v1 Jobs orphan their dependents unless told otherwise (their strategies' DefaultGarbageCollectionPolicy).
    const ORPHANED_BY_DEFAULT = new Set(['/replicationcontrollers', 'batch/jobs']);
    const served = SERVED.map((view) => `${view.group}/${view.resource}`);
    for (const key of RETURNS_DELETED_OBJECT) assert.ok(served.includes(key), `${key} is served`);
    for (const view of SERVED) {
      const key = `${view.group}/${view.resource}`;
      if (key === '/namespaces') continue;
      const deleted = await h.call('DELETE', pathOf(view, nameOf(key)));
      assert.equal(deleted.status, 200, `${key}: ${JSON.stringify(deleted.body)}`);
      if (ORPHANED_BY_DEFAULT.has(key)) {
        // The kind's default propagation is Orphan: the object is answered as the orphan finalizer holds it (the garbage collector removes it next).
        assert.equal(deleted.body.kind, view.kind, key);
        assert.deepEqual(deleted.body.metadata.finalizers, ['orphan'], key);
        assert.equal(typeof deleted.body.metadata.deletionTimestamp, 'string', key);
      } else if (RETURNS_DELETED_OBJECT.has(key)) {
        assert.equal(deleted.body.kind, view.kind, key);
        assert.equal(deleted.body.metadata.name, nameOf(key));
      } else {
        assert.deepEqual(
          deleted.body,
          {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Success',
            details: { name: nameOf(key), ...(view.group === '' ? {} : { group: view.group }), kind: view.resource, uid: created.get(key)!.body.metadata.uid },
          },
          key,
        );
      }
      const doc = await h.call('GET', `/openapi/v3/${view.group === '' ? 'api' : `apis/${view.group}`}/${view.version}`);
      const operation = Object.values(doc.body.paths as Record<string, { delete?: { operationId: string; responses: Record<string, unknown> } }>)
        .map((item) => item.delete)
        .find((op) => op?.operationId === `delete${view.kind}`);
      assert.deepEqual(
        (operation?.responses['200'] as { content: Record<string, { schema: unknown }> } | undefined)?.content['application/json']?.schema,
        { $ref: `#/components/schemas/${RETURNS_DELETED_OBJECT.has(key) ? view.schemaName : 'io.k8s.apimachinery.pkg.apis.meta.v1.Status'}` },
        `${key}: OpenAPI's DELETE answer`,
      );
    }
  });
});
