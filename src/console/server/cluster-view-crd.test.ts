import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MASTERS_GROUP } from '../../services/cluster/rbac/authorizer.ts';
import { type ClusterHarness, startHarness } from '../../services/cluster/testing/harness.ts';
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
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
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

  it('lists the CRD and its kind, with its objects as the API presents them', async () => {
    const view = new ClusterView(h.store);
    const kinds = await view.kinds(ADMIN);
    assert.ok(kinds.some((kind) => kind.group === 'apiextensions.k8s.io' && kind.resource === 'customresourcedefinitions'));
    const box = kinds.find((kind) => kind.group === 'example.com' && kind.resource === 'boxes');
    assert.deepEqual(box, { group: 'example.com', version: 'v1', resource: 'boxes', kind: 'Box', namespaced: true, namespaces: null });
    const boxes = await view.view('example.com', 'boxes');
    assert.deepEqual(
      (await view.objects(ADMIN, boxes, 'default')).map((object) => object.name),
      ['b1'],
    );
    const object = await view.object(ADMIN, boxes, 'default', 'b1');
    assert.match(object.yaml, /^apiVersion: example\.com\/v1\nkind: Box\n/);
    assert.match(object.yaml, /\nsize: 2\n/);
  });
});
