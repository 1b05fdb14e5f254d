import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomResourceDefinitionSpec, CustomResourceDefinitionVersion } from './types.ts';
import { crdStorageVersionHash, customResourceVerbs, defaultDeprecationWarning, storageVersionHash, versionPriority } from './version-facts.ts';

const version = (name: string, extra: Partial<CustomResourceDefinitionVersion> = {}): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage: false,
  schema: { openAPIV3Schema: { type: 'object' } },
  ...extra,
});

/** deprecationFixture is upstream deprecation_test.go's CRD: v1alpha1 deprecated, v1alpha2 with its own warning, v1beta3/v1beta2 served, v1 stored but not served. */
const deprecationFixture: CustomResourceDefinitionSpec = {
  group: 'tests.example.com',
  scope: 'Cluster',
  names: { plural: 'deps', singular: 'dep', kind: 'Dep', listKind: 'DepList' },
  versions: [
    version('v1alpha1', { deprecated: true }),
    version('v1alpha2', { deprecated: true, deprecationWarning: 'custom deprecation warning' }),
    version('v1beta3'),
    version('v1beta2'),
    version('v1', { served: false, storage: true }),
  ],
};

describe('what a CRD says about its versions', () => {
  it('orders versions as CompareKubeAwareVersionStrings: GA, beta, alpha, higher first; others last by name', () => {
    const names = ['v1alpha1', 'foo', 'v2', 'v1beta2', 'v1', 'v11alpha2', 'v10', 'bar', 'v12alpha1', 'v10beta3'];
    assert.deepEqual([...names].sort(versionPriority), ['v10', 'v2', 'v1', 'v10beta3', 'v1beta2', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
  });

  it('names the replacement of a deprecated version as upstream deprecation_test.go expects', () => {
    assert.equal(defaultDeprecationWarning('v1alpha1', deprecationFixture), 'tests.example.com/v1alpha1 Dep is deprecated; use tests.example.com/v1beta3 Dep');
  });

  it('names only served, non-deprecated versions of higher priority, and none when there is none', () => {
    const spec: CustomResourceDefinitionSpec = {
      ...deprecationFixture,
      versions: [version('v1', { deprecated: true }), version('v2', { deprecated: true }), version('v1beta1'), version('v3', { served: false })],
    };
    assert.equal(defaultDeprecationWarning('v1', spec), 'tests.example.com/v1 Dep is deprecated', 'v1beta1 is older, v2 deprecated, v3 not served');
    assert.equal(defaultDeprecationWarning('v1alpha1', spec), 'tests.example.com/v1alpha1 Dep is deprecated; use tests.example.com/v1beta1 Dep');
  });

  it('hashes storage versions as discovery.StorageVersionHash (the values a 1.32 apiserver lists for built-ins)', () => {
    assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
  });

  it('gives a CRD the hash of its storage version only while that version is served', () => {
    assert.equal(crdStorageVersionHash(deprecationFixture), undefined, 'v1 stores but is not served');
    const served = { ...deprecationFixture, versions: deprecationFixture.versions.map((v) => (v.name === 'v1' ? { ...v, served: true } : v)) };
    assert.equal(crdStorageVersionHash(served), storageVersionHash('tests.example.com', 'v1', 'Dep'));
  });

  it("lists a custom resource's verbs in the discovery controller's order, fewer while the CRD's Terminating condition is true", () => {
    assert.deepEqual(customResourceVerbs([{ type: 'Established', status: 'True' }]), [
      'delete',
      'deletecollection',
      'get',
      'list',
      'patch',
      'create',
      'update',
      'watch',
    ]);
    assert.deepEqual(customResourceVerbs([{ type: 'Terminating', status: 'True' }]), ['delete', 'deletecollection', 'get', 'list', 'watch']);
    assert.equal(customResourceVerbs([{ type: 'Terminating', status: 'False' }]).length, 8, 'InstanceDeletionCompleted');
  });
});
