import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';
import { openWatch } from '../../../testing/watch-reader.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

/** widgetCrd is a namespaced CRD with status and scale subresources, printer columns, two versions (v1beta1 deprecated). */
function widgetCrd(): Record<string, unknown> {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', minimum: 0 },
          color: { type: 'string' },
          selector: { type: 'string' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' }, phase: { type: 'string' } } },
    },
  };
  const version = (name: string, storage: boolean) => ({
    name,
    served: true,
    storage,
    ...(storage ? {} : { deprecated: true }),
    schema: { openAPIV3Schema: schema },
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
    additionalPrinterColumns: [
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    ],
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [version('v1', true), version('v1beta1', false)],
    },
  };
}

describe('CustomResourceDefinitions: serving custom resources', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', CRDS, widgetCrd());
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => h.close());

  it('establishes a new CRD at once and lists it with its short names and NAME CREATED AT columns', async () => {
    const crd = await h.call('GET', `${CRDS}/widgets.example.com`);
    const conditions = Object.fromEntries(crd.body.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]));
    assert.equal(conditions['Established'], 'True');
    assert.equal(conditions['NamesAccepted'], 'True');
    assert.equal(crd.body.status.acceptedNames.kind, 'Widget');
    assert.deepEqual(crd.body.status.storedVersions, ['v1']);
    const table = await h.call('GET', CRDS, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Created At'],
    );
    assert.deepEqual(table.body.rows[0].cells, ['widgets.example.com', '2025-01-01T00:00:00Z']);
    const discovery = await h.call('GET', '/apis/apiextensions.k8s.io/v1');
    const entry = discovery.body.resources.find((r: { name: string }) => r.name === 'customresourcedefinitions');
    assert.deepEqual(entry.shortNames, ['crd', 'crds']);
    assert.deepEqual(entry.categories, ['api-extensions']);
  });

  it('writes a CRD /status alone, checking its accepted names', async () => {
    const bad = await h.call('PATCH', `${CRDS}/widgets.example.com/status`, { status: { acceptedNames: { plural: 'Bad_Plural', kind: 'Widget' } } }, MERGE);
    assert.equal(bad.status, 422);
    assert.match(
      bad.body.message,
      /^CustomResourceDefinition\.apiextensions\.k8s\.io "widgets\.example\.com" is invalid: status\.acceptedNames\.plural: Invalid value: "Bad_Plural"/,
    );
    const spec = await h.call('PATCH', `${CRDS}/widgets.example.com/status`, { spec: { scope: 'Cluster' } }, MERGE);
    assert.equal(spec.status, 200);
    assert.equal(spec.body.spec.scope, 'Namespaced', 'spec is not written through /status');
  });

  it('serves the custom resource in discovery, aggregated and legacy, with short names and categories', async () => {
    const legacy = await h.call('GET', '/apis/example.com/v1');
    assert.equal(legacy.status, 200);
    assert.deepEqual(
      legacy.body.resources.map((r: { name: string }) => r.name),
      ['widgets', 'widgets/status', 'widgets/scale'],
    );
    assert.deepEqual(legacy.body.resources[0].shortNames, ['wd']);
    assert.deepEqual(legacy.body.resources[0].categories, ['all']);
    const group = await h.call('GET', '/apis/example.com');
    assert.deepEqual(group.body.preferredVersion, { groupVersion: 'example.com/v1', version: 'v1' });
    const aggregated = await h.call('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const item = aggregated.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'example.com');
    assert.deepEqual(
      item.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1'],
    );
    assert.equal(item.versions[0].resources[0].scope, 'Namespaced');
  });

  it('creates, reads, lists and tables custom resources with printer columns; status is dropped on create', async () => {
    const created = await h.call('POST', WIDGETS, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { replicas: 2, color: 'red', selector: 'app=w1' },
      status: { replicas: 5 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.apiVersion, 'example.com/v1');
    assert.equal(created.body.kind, 'Widget');
    assert.equal(created.body.metadata.generation, 1);
    assert.equal(created.body.status, undefined);
    const read = await h.call('GET', `${WIDGETS}/w1`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.spec, { replicas: 2, color: 'red', selector: 'app=w1' });
    const table = await h.call('GET', WIDGETS, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Color', 'Replicas'],
    );
    assert.deepEqual(table.body.rows[0].cells, ['w1', 'red', 2]);
    const list = await h.call('GET', '/apis/example.com/v1/widgets');
    assert.equal(list.body.kind, 'WidgetList');
    assert.equal(list.body.items.length, 1);
    assert.equal(list.body.items[0].apiVersion, 'example.com/v1', 'unstructured list items carry their type');
    assert.equal(list.body.items[0].kind, 'Widget');
  });

  it('answers another served version with its apiVersion and the deprecation warning', async () => {
    const read = await h.call('GET', '/apis/example.com/v1beta1/namespaces/default/widgets/w1');
    assert.equal(read.status, 200);
    assert.equal(read.body.apiVersion, 'example.com/v1beta1');
    assert.deepEqual(read.headers['warning'], ['299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"']);
  });

  it('prunes unknown fields with Warn warnings, and refuses them under Strict', async () => {
    const body = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: { color: 'blue', shape: 'round' } };
    const strict = await h.call('POST', `${WIDGETS}?fieldValidation=Strict`, body);
    assert.equal(strict.status, 400);
    assert.equal(strict.body.message, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape"');
    const warned = await h.call('POST', WIDGETS, body);
    assert.equal(warned.status, 201);
    assert.deepEqual(warned.headers['warning'], ['299 - "unknown field \\"spec.shape\\""']);
    assert.deepEqual(warned.body.spec, { color: 'blue' });
  });

  it('keeps status on main-resource writes, writes it through /status, and bumps generation on spec changes only', async () => {
    const status = await h.call('PATCH', `${WIDGETS}/w1/status`, { status: { replicas: 1, phase: 'Ready' }, spec: { color: 'green' } }, MERGE);
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.deepEqual(status.body.status, { replicas: 1, phase: 'Ready' });
    assert.equal(status.body.spec.color, 'red');
    assert.equal(status.body.metadata.generation, 1);
    const main = await h.call('PATCH', `${WIDGETS}/w1`, { spec: { color: 'green' }, status: { phase: 'Gone' } }, MERGE);
    assert.equal(main.body.spec.color, 'green');
    assert.equal(main.body.status.phase, 'Ready');
    assert.equal(main.body.metadata.generation, 2);
  });

  it('serves the scale subresource from the CRD paths', async () => {
    const scale = await h.call('GET', `${WIDGETS}/w1/scale`);
    assert.equal(scale.status, 200);
    assert.equal(scale.body.apiVersion, 'autoscaling/v1');
    assert.equal(scale.body.kind, 'Scale');
    assert.deepEqual(scale.body.spec, { replicas: 2 });
    assert.deepEqual(scale.body.status, { replicas: 1, selector: 'app=w1' });
    const scaled = await h.call('PATCH', `${WIDGETS}/w1/scale`, { spec: { replicas: 4 } }, MERGE);
    assert.equal(scaled.status, 200, JSON.stringify(scaled.body));
    assert.deepEqual(scaled.body.spec, { replicas: 4 });
    const read = await h.call('GET', `${WIDGETS}/w1`);
    assert.equal(read.body.spec.replicas, 4);
    assert.equal(read.body.metadata.generation, 3);
  });

  it('refuses strategic merge patch with the apiserver 415, and applies server-side with list-map-keys merging', async () => {
    const smp = await h.call('PATCH', `${WIDGETS}/w1`, { spec: { color: 'x' } }, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.equal(smp.status, 415);
    assert.equal(
      smp.body.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    const apply = (manager: string, ports: unknown[]) =>
      h.call(
        'PATCH',
        `${WIDGETS}/w3?fieldManager=${manager}`,
        JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w3' }, spec: { ports } }),
        { 'content-type': 'application/apply-patch+yaml' },
      );
    assert.equal((await apply('a', [{ name: 'http', port: 80 }])).status, 201);
    const second = await apply('b', [{ name: 'https', port: 443 }]);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(second.body.spec.ports, [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ]);
  });

  it('publishes the CRD schema in OpenAPI v3 for kubectl explain', async () => {
    const index = await h.call('GET', '/openapi/v3');
    assert.ok(index.body.paths['apis/example.com/v1'], 'the group-version is listed');
    const document = await h.call('GET', '/openapi/v3/apis/example.com/v1');
    const schema = document.body.components.schemas['com.example.v1.Widget'];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group: 'example.com', kind: 'Widget', version: 'v1' }]);
    assert.equal(schema.properties.spec.properties.replicas.type, 'integer');
    assert.ok(document.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch);
  });

  it('authorizes custom resources by RBAC like any resource', async () => {
    const ALICE = { authorization: 'Bearer alice-token' };
    const role = await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
      metadata: { name: 'widget-reader' },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] }],
    });
    assert.equal(role.status, 201, JSON.stringify(role.body));
    const binding = await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
      metadata: { name: 'alice-widgets' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'widget-reader' },
      subjects: [{ kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    assert.equal(binding.status, 201, JSON.stringify(binding.body));
    assert.equal((await h.call('GET', `${WIDGETS}/w1`, undefined, ALICE)).status, 200);
    const scale = await h.call('GET', `${WIDGETS}/w1/scale`, undefined, ALICE);
    assert.equal(scale.status, 403);
    assert.equal(
      scale.body.message,
      'widgets.example.com "w1" is forbidden: User "alice@example.com" cannot get resource "widgets/scale" in API group "example.com" in the namespace "default"',
    );
    const write = await h.call('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w9' } }, ALICE);
    assert.equal(write.status, 403);
  });

  it('removes the custom resources of a deleted namespace with the rest of its content', async () => {
    assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
    const made = await h.call('POST', '/apis/example.com/v1/namespaces/doomed/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/doomed')).status, 200);
    for (let attempt = 0; attempt < 50 && (await h.call('GET', '/api/v1/namespaces/doomed')).status !== 404; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal((await h.store.list('cluster/customresources/widgets.example.com', { prefix: 'doomed/' })).length, 0);
  });

  it('watches custom resources: changes stream with the version asked for, defaults applied', async () => {
    const base = await h.listen();
    const watch = await openWatch(`${base}/apis/example.com/v1beta1/namespaces/default/widgets?watch=true&fieldSelector=metadata.name%3Dw5`, ADMIN_TOKEN);
    try {
      assert.equal(watch.status, 200);
      assert.equal(watch.headers.get('warning'), '299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"');
      const created = await h.call('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w5' }, spec: { color: 'red' } });
      assert.equal(created.status, 201);
      await h.call('PATCH', `${WIDGETS}/w5`, { spec: { color: 'blue' } }, MERGE);
      await h.call('DELETE', `${WIDGETS}/w5`);
      await watch.until((events) => events.length >= 3, 'added, modified, deleted');
      assert.deepEqual(
        watch.events.map((event) => `${event.type} ${event.object.apiVersion} ${event.object.spec.color}`),
        ['ADDED example.com/v1beta1 red', 'MODIFIED example.com/v1beta1 blue', 'DELETED example.com/v1beta1 blue'],
      );
    } finally {
      watch.close();
    }
  });

  it('deletes a collection of custom resources by label', async () => {
    for (const name of ['c1', 'c2', 'c3'])
      await h.call('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, labels: { batch: name === 'c3' ? 'keep' : 'drop' } } });
    const deleted = await h.call('DELETE', `${WIDGETS}?labelSelector=batch%3Ddrop`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal(deleted.body.kind, 'WidgetList');
    assert.deepEqual(
      deleted.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
      ['c1', 'c2'],
    );
    const left = await h.call('GET', `${WIDGETS}?labelSelector=batch`);
    assert.deepEqual(
      left.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
      ['c3'],
    );
  });

  it('does not serve a CRD whose names another CRD of the group holds', async () => {
    const clash = widgetCrd() as { metadata: { name: string }; spec: { names: Record<string, unknown> } };
    clash.metadata.name = 'gizmos.example.com';
    clash.spec.names = { plural: 'gizmos', kind: 'Widget' };
    const created = await h.call('POST', CRDS, clash);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const accepted = created.body.status.conditions.find((c: { type: string }) => c.type === 'NamesAccepted');
    assert.equal(accepted.status, 'False');
    assert.equal((await h.call('GET', '/apis/example.com/v1/namespaces/default/gizmos')).status, 404);
    assert.equal((await h.call('DELETE', `${CRDS}/gizmos.example.com`)).status, 200);
  });

  it('deletes a CRD with its instances: Terminating with the cleanup finalizer, create refused with 405, then gone', async () => {
    const crd = await h.call('POST', CRDS, {
      metadata: { name: 'gadgets.example.org' },
      spec: {
        group: 'example.org',
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const gadget = await h.call('POST', '/apis/example.org/v1/gadgets', {
      apiVersion: 'example.org/v1',
      kind: 'Gadget',
      metadata: { name: 'g1' },
      anything: { goes: 1 },
    });
    assert.equal(gadget.status, 201, JSON.stringify(gadget.body));
    assert.deepEqual(gadget.body.anything, { goes: 1 });
    // Hold the CRD with a finalizer of our own, to see it Terminating.
    await h.call('PATCH', `${CRDS}/gadgets.example.org`, { metadata: { finalizers: ['example.org/hold'] } }, MERGE);
    const deleted = await h.call('DELETE', `${CRDS}/gadgets.example.org`);
    assert.equal(deleted.status, 200);
    assert.ok(deleted.body.metadata.deletionTimestamp);
    assert.deepEqual(deleted.body.metadata.finalizers, ['example.org/hold', 'customresourcecleanup.apiextensions.k8s.io']);
    const refused = await h.call('POST', '/apis/example.org/v1/gadgets', { apiVersion: 'example.org/v1', kind: 'Gadget', metadata: { name: 'g2' } });
    assert.equal(refused.status, 405);
    assert.equal(refused.body.message, 'create not allowed while custom resource definition is terminating');
    // The finalizer controller removes the instances and its finalizer.
    for (let attempt = 0; attempt < 50; attempt++) {
      const current = await h.call('GET', `${CRDS}/gadgets.example.org`);
      if (!current.body.metadata.finalizers.includes('customresourcecleanup.apiextensions.k8s.io')) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const held = await h.call('GET', `${CRDS}/gadgets.example.org`);
    assert.deepEqual(held.body.metadata.finalizers, ['example.org/hold']);
    const terminating = held.body.status.conditions.find((c: { type: string }) => c.type === 'Terminating');
    assert.equal(terminating.reason, 'InstanceDeletionCompleted');
    // Terminating is False once the instances are gone, so discovery lists every verb again (in the discovery controller's order).
    const listed = await h.call('GET', '/apis/example.org/v1');
    assert.deepEqual(listed.body.resources[0].verbs, ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
    assert.equal((await h.store.list('cluster/customresources/gadgets.example.org')).length, 0);
    await h.call('PATCH', `${CRDS}/gadgets.example.org`, { metadata: { finalizers: null } }, MERGE);
    assert.equal((await h.call('GET', `${CRDS}/gadgets.example.org`)).status, 404);
    assert.equal((await h.call('GET', '/apis/example.org/v1/gadgets')).status, 404);
    assert.equal((await h.call('GET', '/apis/example.org/v1')).status, 404);
  });
});

describe('CustomResourceDefinitions: schema validation, CEL rules and defaulting per request', () => {
  let h: ClusterHarness;
  const GIZMOS = '/apis/rules.example.com/v1/gizmos';
  const crd = (defaultColor: string | undefined) => ({
    metadata: { name: 'gizmos.rules.example.com' },
    spec: {
      group: 'rules.example.com',
      scope: 'Cluster',
      names: { plural: 'gizmos', kind: 'Gizmo' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  'x-kubernetes-validations': [
                    { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' },
                    { rule: 'self.replicas >= oldSelf.replicas', message: 'replicas may only grow' },
                  ],
                  properties: {
                    replicas: { type: 'integer', maximum: 10 },
                    maxReplicas: { type: 'integer', default: 5 },
                    color: { type: 'string', ...(defaultColor === undefined ? {} : { default: defaultColor }) },
                  },
                },
              },
            },
          },
        },
      ],
    },
  });
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', CRDS, crd(undefined));
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => h.close());

  it('defaults on write, then validates values and rules with the apiserver 422 and its causes', async () => {
    const made = await h.call('POST', GIZMOS, { apiVersion: 'rules.example.com/v1', kind: 'Gizmo', metadata: { name: 'g1' }, spec: { replicas: 2 } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(made.body.spec, { replicas: 2, maxReplicas: 5 });
    const tooMany = await h.call('POST', GIZMOS, { apiVersion: 'rules.example.com/v1', kind: 'Gizmo', metadata: { name: 'g2' }, spec: { replicas: 7 } });
    assert.equal(tooMany.status, 422);
    assert.equal(tooMany.body.message, 'Gizmo.rules.example.com "g2" is invalid: spec: Invalid value: "object": replicas must not exceed maxReplicas');
    assert.deepEqual(tooMany.body.details, {
      name: 'g2',
      group: 'rules.example.com',
      kind: 'Gizmo',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": replicas must not exceed maxReplicas', field: 'spec' }],
    });
    const typed = await h.call('POST', GIZMOS, { apiVersion: 'rules.example.com/v1', kind: 'Gizmo', metadata: { name: 'g3' }, spec: { replicas: 'two' } });
    assert.equal(typed.status, 422);
    assert.equal(
      typed.body.message,
      'Gizmo.rules.example.com "g3" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );
    assert.equal(typed.body.details.causes[0].reason, 'FieldValueTypeInvalid');
    assert.equal((await h.store.list('cluster/customresources/gizmos.rules.example.com')).length, 1, 'nothing refused is stored');
  });

  it('runs transition rules on updates only', async () => {
    const shrink = await h.call('PATCH', `${GIZMOS}/g1`, { spec: { replicas: 1 } }, MERGE);
    assert.equal(shrink.status, 422);
    assert.equal(shrink.body.message, 'Gizmo.rules.example.com "g1" is invalid: spec: Invalid value: "object": replicas may only grow');
    assert.equal((await h.call('PATCH', `${GIZMOS}/g1`, { spec: { replicas: 3 } }, MERGE)).status, 200);
  });

  it('defaults on read from storage: a default added to the schema later shows on objects stored before it', async () => {
    assert.equal((await h.call('GET', `${GIZMOS}/g1`)).body.spec.color, undefined, 'read (and its text kept) before the change');
    const current = await h.call('GET', `${CRDS}/gizmos.rules.example.com`);
    const updated = await h.call('PUT', `${CRDS}/gizmos.rules.example.com`, { ...crd('green'), metadata: current.body.metadata });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const read = await h.call('GET', `${GIZMOS}/g1`);
    assert.deepEqual(read.body.spec, { replicas: 3, maxReplicas: 5, color: 'green' });
    const stored = await h.store.get<{ spec: Record<string, unknown> }>('cluster/customresources/gizmos.rules.example.com', 'g1');
    assert.equal(stored?.value.spec['color'], undefined, 'the stored object is not rewritten by a read');
    const generation = read.body.metadata.generation;
    const labelled = await h.call('PATCH', `${GIZMOS}/g1`, { metadata: { labels: { a: 'b' } } }, MERGE);
    assert.equal(labelled.body.metadata.generation, generation, 'the new default is no spec change: compared with the object as read');
  });

  it('refuses an invalid CRD with 422 and installs nothing of it', async () => {
    const bad = crd(undefined) as { metadata: { name: string }; spec: { versions: { storage: boolean }[] } };
    bad.metadata.name = 'wrong.rules.example.com';
    const refused = await h.call('POST', CRDS, bad);
    assert.equal(refused.status, 422);
    assert.match(
      refused.body.message,
      /^CustomResourceDefinition\.apiextensions\.k8s\.io "wrong\.rules\.example\.com" is invalid: metadata\.name: Invalid value: "wrong\.rules\.example\.com": must be spec\.names\.plural\+"\."\+spec\.group/,
    );
    assert.equal((await h.call('GET', `${CRDS}/wrong.rules.example.com`)).status, 404);
  });
});
