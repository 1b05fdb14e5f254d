/**
 * The status and scale subresources of custom resources and how discovery lists them, built from
 * apiextensions-apiserver 1.32 `test/integration/subresources_test.go` (TestValidateOnlyStatus,
 * TestScaleSubresource, TestSubresourcesDiscovery) and the custom resource validator's
 * ValidateScaleSpec / ValidateScaleStatus texts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';
import { storageVersionHash } from './version-facts.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NOXUS = (version: string) => `/apis/mygroup.example.com/${version}/namespaces/not-the-default/noxus`;

/** noxuSubresourcesCrd is upstream's NewNoxuSubresourcesCRDs with TestValidateOnlyStatus's schema (spec.num and status.num at most 10). */
function noxuSubresourcesCrd(): Record<string, unknown> {
  const num = { type: 'integer', maximum: 10 };
  const schema = {
    type: 'object',
    properties: {
      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { num } },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { num } },
    },
  };
  const version = (name: string, storage: boolean, labelSelectorPath: string) => ({
    name,
    served: true,
    storage,
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath } },
    schema: { openAPIV3Schema: schema },
  });
  return {
    metadata: { name: 'noxus.mygroup.example.com' },
    spec: {
      group: 'mygroup.example.com',
      scope: 'Namespaced',
      names: { plural: 'noxus', singular: 'nonenglishnoxu', kind: 'WishIHadChosenNoxu', shortNames: ['foo', 'bar', 'abc', 'def'], listKind: 'NoxuItemList' },
      versions: [version('v1beta1', true, '.status.labelSelector'), version('v1', false, '.status.anotherLabelSelector')],
    },
  };
}

/** instance is upstream's NewNoxuSubresourceInstance. */
const instance = (version: string, name = 'foo') => ({
  apiVersion: `mygroup.example.com/${version}`,
  kind: 'WishIHadChosenNoxu',
  metadata: { namespace: 'not-the-default', name },
  spec: { num: 10, replicas: 3 },
  status: { replicas: 7 },
});

describe('custom resources: status and scale subresources (upstream subresources_test.go cases)', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'not-the-default' } })).status, 201);
    const created = await h.call('POST', CRDS, noxuSubresourcesCrd());
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => h.close());

  for (const version of ['v1beta1', 'v1']) {
    it(`validates only status on a /status update, with the status sub-schema's texts (${version})`, async () => {
      const created = await h.call('POST', NOXUS(version), { ...instance(version), status: { replicas: 7, num: 10 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      // A /status write keeps the stored spec: an invalid spec in its body is neither stored nor checked.
      const specOnly = await h.call('PUT', `${NOXUS(version)}/foo/status`, { ...created.body, spec: { ...created.body.spec, num: 15 } });
      assert.equal(specOnly.status, 200, JSON.stringify(specOnly.body));
      assert.equal(specOnly.body.spec.num, 10);
      const badStatus = await h.call('PUT', `${NOXUS(version)}/foo/status`, { ...specOnly.body, status: { ...specOnly.body.status, num: 15 } });
      assert.equal(badStatus.status, 422);
      assert.equal(
        badStatus.body.message,
        'WishIHadChosenNoxu.mygroup.example.com "foo" is invalid: status.num: Invalid value: 15: num in body should be less than or equal to 10',
      );
      assert.deepEqual(badStatus.body.details.causes, [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 15: num in body should be less than or equal to 10', field: 'status.num' },
      ]);
      assert.equal((await h.call('DELETE', `${NOXUS(version)}/foo`)).status, 200);
    });
  }

  it('validates an object stored before a stricter schema on a /status update by its status alone', async () => {
    const created = await h.call('POST', NOXUS('v1beta1'), instance('v1beta1', 'grandfathered'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // spec.num 11 breaks the schema, but a status write does not look at spec.
    await h.store.transact(async (tx) => {
      const kind = 'cluster/customresources/noxus.mygroup.example.com';
      const stored = await tx.get<{ spec: Record<string, unknown> }>(kind, 'not-the-default/grandfathered');
      assert.ok(stored !== undefined);
      await tx.put(kind, 'not-the-default/grandfathered', { ...stored.value, spec: { ...stored.value.spec, num: 11 } });
    });
    const read = await h.call('GET', `${NOXUS('v1beta1')}/grandfathered`);
    const status = await h.call('PUT', `${NOXUS('v1beta1')}/grandfathered/status`, { ...read.body, status: { replicas: 2 } });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    const main = await h.call('PUT', `${NOXUS('v1beta1')}/grandfathered`, { ...status.body, spec: { ...status.body.spec, num: 12 } });
    assert.equal(
      main.body.message,
      'WishIHadChosenNoxu.mygroup.example.com "grandfathered" is invalid: spec.num: Invalid value: 12: spec.num in body should be less than or equal to 10',
    );
    assert.equal((await h.call('DELETE', `${NOXUS('v1beta1')}/grandfathered`)).status, 200);
  });

  it('validates the scale paths of every write with ValidateScaleSpec and ValidateScaleStatus texts', async () => {
    const negative = await h.call('POST', NOXUS('v1beta1'), { ...instance('v1beta1'), spec: { num: 1, replicas: -1 } });
    assert.equal(negative.status, 422);
    assert.equal(
      negative.body.message,
      'WishIHadChosenNoxu.mygroup.example.com "foo" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer',
    );
    assert.equal(negative.body.details.causes[0].field, '.spec.replicas');
    const text = await h.call('POST', NOXUS('v1beta1'), { ...instance('v1beta1'), spec: { num: 1, replicas: 'three' } });
    assert.equal(
      text.body.message,
      'WishIHadChosenNoxu.mygroup.example.com "foo" is invalid: .spec.replicas: Invalid value: 0: .spec.replicas accessor error: three is of the type string, expected int64',
    );
    const created = await h.call('POST', NOXUS('v1beta1'), instance('v1beta1'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // TestScaleSubresource: .spec.replicas above int32 is refused on update.
    const tooMany = await h.call('PUT', `${NOXUS('v1beta1')}/foo`, { ...created.body, spec: { ...created.body.spec, replicas: 2147483648 } });
    assert.equal(tooMany.status, 422);
    assert.equal(
      tooMany.body.message,
      'WishIHadChosenNoxu.mygroup.example.com "foo" is invalid: .spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647',
    );
    // A /status write checks the status replicas and the label selector path, not the spec's.
    const badStatus = await h.call('PUT', `${NOXUS('v1beta1')}/foo/status`, { ...created.body, status: { replicas: -2, labelSelector: 5 } });
    assert.equal(
      badStatus.body.message,
      'WishIHadChosenNoxu.mygroup.example.com "foo" is invalid: [.status.replicas: Invalid value: -2: should be a non-negative integer, .status.labelSelector: Invalid value: "": .status.labelSelector accessor error: 5 is of the type int64, expected string]',
    );
    const scaled = await h.call('PUT', `${NOXUS('v1beta1')}/foo/scale`, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'foo', namespace: 'not-the-default', resourceVersion: created.body.metadata.resourceVersion },
      spec: { replicas: 5 },
    });
    assert.equal(scaled.status, 200, JSON.stringify(scaled.body));
    assert.equal((await h.call('GET', `${NOXUS('v1beta1')}/foo`)).body.spec.replicas, 5);
    assert.equal((await h.call('DELETE', `${NOXUS('v1beta1')}/foo`)).status, 200);
  });

  it('lists the resource, then status, then scale in discovery, with the storage version hash', async () => {
    for (const version of ['v1beta1', 'v1']) {
      const list = await h.call('GET', `/apis/mygroup.example.com/${version}`);
      assert.equal(list.status, 200);
      const [main, status, scale] = list.body.resources;
      assert.equal(list.body.resources.length, 3);
      assert.equal(main.name, 'noxus');
      assert.deepEqual(main.verbs, ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
      assert.equal(main.storageVersionHash, storageVersionHash('mygroup.example.com', 'v1beta1', 'WishIHadChosenNoxu'));
      assert.deepEqual(status, { name: 'noxus/status', singularName: '', namespaced: true, kind: 'WishIHadChosenNoxu', verbs: ['get', 'patch', 'update'] });
      assert.deepEqual(scale, {
        name: 'noxus/scale',
        singularName: '',
        namespaced: true,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
    const aggregated = await h.call('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const group = aggregated.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'mygroup.example.com');
    assert.deepEqual(
      group.versions[0].resources[0].subresources.map((sub: { subresource: string }) => sub.subresource),
      ['status', 'scale'],
    );
  });
});
