import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MASTERS_GROUP } from '../../services/cluster/public.ts';
import { type ClusterHarness, startHarness } from '../../testing/cluster-harness.ts';
import { ClusterView } from './cluster-view.ts';

const ADMIN = { name: 'admin', groups: [MASTERS_GROUP] };

describe("the console's cluster views show custom resources", () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    const crd = await h.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'boxes.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'boxes', kind: 'Box' },
        versions: ['v1', 'v1beta1'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        })),
      },
    });
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const box = await h.call('POST', '/apis/example.com/v1/namespaces/default/boxes', {
      apiVersion: 'example.com/v1',
      kind: 'Box',
      metadata: { name: 'b1' },
      size: 2,
    });
    assert.equal(box.status, 201, JSON.stringify(box.body));
  });
  after(async () => h.close());

  it('lists each kind once: versions and subresources (status, scale) fold into it, as discovery folds them', async () => {
    const kinds = await new ClusterView(h.store).kinds(ADMIN);
    const keys = kinds.map((kind) => `${kind.group}/${kind.resource}`);
    assert.deepEqual(keys, [...new Set(keys)], 'no kind twice');
    assert.ok(!kinds.some((kind) => kind.kind === 'Scale'), 'a scale subresource is not a kind');
    const deployments = kinds.find((kind) => kind.group === 'apps' && kind.resource === 'deployments');
    assert.deepEqual([deployments?.kind, deployments?.versions, [...(deployments?.subresources ?? [])].sort()], ['Deployment', ['v1'], ['scale', 'status']]);
  });

  it('lists the CRD and its kind, with its objects as the API presents them', async () => {
    const view = new ClusterView(h.store);
    const kinds = await view.kinds(ADMIN);
    assert.ok(kinds.some((kind) => kind.group === 'apiextensions.k8s.io' && kind.resource === 'customresourcedefinitions'));
    const box = kinds.find((kind) => kind.group === 'example.com' && kind.resource === 'boxes');
    assert.deepEqual([...(box?.subresources ?? [])].sort(), ['scale', 'status'], 'in discovery’s order');
    assert.deepEqual(
      { ...box, subresources: [] },
      {
        group: 'example.com',
        version: 'v1',
        versions: ['v1', 'v1beta1'],
        resource: 'boxes',
        kind: 'Box',
        shortNames: [],
        subresources: [],
        namespaced: true,
        namespaces: null,
      },
    );
    const boxes = await view.view('example.com', 'boxes');
    assert.equal(boxes.subresource, undefined, 'the resource’s own view, not a subresource’s');
    assert.deepEqual(
      (await view.objects(ADMIN, boxes, 'default')).map((object) => object.name),
      ['b1'],
    );
    const object = await view.object(ADMIN, boxes, 'default', 'b1');
    assert.match(object.yaml, /^apiVersion: example\.com\/v1\nkind: Box\n/);
    assert.match(object.yaml, /\nsize: 2\n/);
  });
});
