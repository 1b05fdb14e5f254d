/**
 * Custom resources served through several versions of one CRD, built from apiextensions-apiserver
 * 1.32 `test/integration/defaulting_test.go` (testDefaulting: writes through a version that is
 * not the storage version are defaulted by its schema, reads by the storage version's) and
 * `deprecation_test.go` (TestCustomResourceDeprecation: the warning each version sends).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** half is one of spec/status in upstream's defaultingFooV1beta1Schema / V1beta2Schema: a, b defaulted in both, the version's own field defaulted by it. */
const half = (own: 'v1beta1' | 'v1beta2', replicas: number) => ({
  type: 'object',
  properties: {
    a: { type: 'string', default: 'A' },
    b: { type: 'string', default: 'B' },
    c: { type: 'string' },
    v1beta1: { type: 'string', ...(own === 'v1beta1' ? { default: 'v1beta1' } : {}) },
    v1beta2: { type: 'string', ...(own === 'v1beta2' ? { default: 'v1beta2' } : {}) },
    replicas: { default: replicas, format: 'int32', minimum: 0, type: 'integer' },
  },
});
const fooSchema = (own: 'v1beta1' | 'v1beta2') => ({ type: 'object', properties: { spec: half(own, 1), status: half(own, 0) } });

/** defaultingFixture is upstream's: v1beta1 served (not stored), v1beta2 stored (not served), both with status and scale. */
const defaultingFixture = () => {
  const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
  return {
    metadata: { name: 'foos.tests.example.com' },
    spec: {
      group: 'tests.example.com',
      scope: 'Cluster',
      names: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' },
      versions: [
        { name: 'v1beta1', storage: false, served: true, subresources, schema: { openAPIV3Schema: fooSchema('v1beta1') } },
        { name: 'v1beta2', storage: true, served: false, subresources, schema: { openAPIV3Schema: fooSchema('v1beta2') } },
      ],
    },
  };
};

describe('custom resources through several versions (upstream defaulting_test.go and deprecation_test.go)', () => {
  let h: ClusterHarness;
  const FOOS = '/apis/tests.example.com/v1beta1/foos';
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', CRDS, defaultingFixture());
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => h.close());

  /** setDefault adds (a value) or removes (undefined) the default of `key` in spec and status of one version, as upstream's addDefault/removeDefault. */
  const setDefault = async (version: string, key: string, value: string | undefined) => {
    const crd = await h.call('GET', `${CRDS}/foos.tests.example.com`);
    for (const entry of crd.body.spec.versions) {
      if (entry.name !== version) continue;
      for (const root of ['spec', 'status']) {
        const property = entry.schema.openAPIV3Schema.properties[root].properties[key];
        if (value === undefined) delete property.default;
        else entry.schema.openAPIV3Schema.properties[root].properties[key] = { type: 'string', default: value };
      }
    }
    const updated = await h.call('PUT', `${CRDS}/foos.tests.example.com`, crd.body);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
  };
  const keys = (object: Record<string, unknown> | undefined) => Object.keys(object ?? {}).sort();

  it('defaults a write by the request version and its reads by the storage version', async () => {
    const created = await h.call('POST', FOOS, {
      kind: 'Foo',
      apiVersion: 'tests.example.com/v1beta1',
      metadata: { name: 'foo' },
      spec: { a: 'a' },
      status: { b: 'b' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // spec.v1beta1 is defaulted when reading the request, spec.v1beta2 when reading the storage answer.
    assert.deepEqual(created.body.spec, { a: 'a', b: 'B', v1beta1: 'v1beta1', v1beta2: 'v1beta2', replicas: 1 });
    assert.equal(created.body.status, undefined, 'status is not written on create');
    const stored = await h.store.get<Record<string, Record<string, unknown>>>('cluster/customresources/foos.tests.example.com', 'foo');
    assert.deepEqual(keys(stored?.value['spec']), ['a', 'b', 'replicas', 'v1beta1'], 'the storage defaults are not written');

    const status = await h.call('PUT', `${FOOS}/foo/status`, { ...created.body, status: {} });
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.deepEqual(keys(status.body.status), ['a', 'b', 'replicas', 'v1beta1', 'v1beta2']);

    // A default added to the storage version shows on reads: get, list and watch.
    await setDefault('v1beta2', 'c', 'C');
    const read = await h.call('GET', `${FOOS}/foo`);
    assert.equal(read.body.spec.c, 'C');
    assert.equal(read.body.status.c, 'C');
    const list = await h.call('GET', FOOS);
    assert.equal(list.body.items[0].spec.c, 'C');

    // A default of the request version alone does not show on reads.
    await setDefault('v1beta1', 'c', 'C');
    await setDefault('v1beta2', 'c', undefined);
    const without = await h.call('GET', `${FOOS}/foo`);
    assert.equal(without.body.spec.c, undefined);
    assert.equal(without.body.status.c, undefined);
    assert.deepEqual(keys(without.body.spec), ['a', 'b', 'replicas', 'v1beta1', 'v1beta2']);

    // A status write decodes through v1beta1 again: c is set in status, and spec is the stored one.
    const again = await h.call('PUT', `${FOOS}/foo/status`, without.body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.status.c, 'C');
    assert.equal(again.body.spec.c, undefined);

    // Removing a, b and c from the request version: c goes from spec but not from status; a and b were persisted.
    for (const key of ['a', 'b', 'c']) await setDefault('v1beta1', key, undefined);
    const final = await h.call('GET', `${FOOS}/foo`);
    assert.deepEqual(keys(final.body.spec), ['a', 'b', 'replicas', 'v1beta1', 'v1beta2']);
    assert.deepEqual(keys(final.body.status), ['a', 'b', 'c', 'replicas', 'v1beta1', 'v1beta2']);
  });

  it('prunes a read by the request version too: a field only the storage version knows is not shown', async () => {
    const crd = await h.call('GET', `${CRDS}/foos.tests.example.com`);
    crd.body.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.storageOnly = { type: 'string', default: 'kept' };
    assert.equal((await h.call('PUT', `${CRDS}/foos.tests.example.com`, crd.body)).status, 200);
    const read = await h.call('GET', `${FOOS}/foo`);
    assert.equal(read.status, 200);
    assert.equal(read.body.spec.storageOnly, undefined);
  });

  it('sends each version its deprecation warning, naming the replacement as upstream picks it', async () => {
    const schema = { openAPIV3Schema: { type: 'object' } };
    const created = await h.call('POST', CRDS, {
      metadata: { name: 'deps.tests.example.com' },
      spec: {
        group: 'tests.example.com',
        scope: 'Cluster',
        names: { plural: 'deps', singular: 'dep', kind: 'Dep', listKind: 'DepList' },
        versions: [
          { name: 'v1alpha1', served: true, storage: false, deprecated: true, schema },
          { name: 'v1alpha2', served: true, storage: false, deprecated: true, deprecationWarning: 'custom deprecation warning', schema },
          { name: 'v1beta3', served: true, storage: false, schema },
          { name: 'v1beta2', served: true, storage: false, schema },
          { name: 'v1', served: false, storage: true, schema },
        ],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const expected: [string, string[] | undefined][] = [
      ['v1alpha1', ['299 - "tests.example.com/v1alpha1 Dep is deprecated; use tests.example.com/v1beta3 Dep"']],
      ['v1alpha2', ['299 - "custom deprecation warning"']],
      ['v1beta2', undefined],
      ['v1beta3', undefined],
    ];
    for (const [version, warnings] of expected) {
      const list = await h.call('GET', `/apis/tests.example.com/${version}/deps`);
      assert.equal(list.status, 200, version);
      assert.deepEqual(list.headers['warning'], warnings, version);
    }
    const discovery = await h.call('GET', '/apis/tests.example.com/v1beta3');
    assert.equal(discovery.body.resources[0].storageVersionHash, undefined, 'the storage version v1 is not served');
  });
});
