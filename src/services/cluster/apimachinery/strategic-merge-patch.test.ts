import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLUSTER_ROLE_SCHEMAS } from '../resources/cluster-roles.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

const ROOT = 'io.k8s.api.rbac.v1.ClusterRole';
const owner = (uid: string, name = uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid });
const base = {
  metadata: { name: 'r', labels: { a: '1', b: '2' }, finalizers: ['x', 'y'], ownerReferences: [owner('u1'), owner('u2')] },
  rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
};

// Each case: the patch and the exact resulting object (reference §4.2; upstream util/strategicpatch).
const CASES: ReadonlyArray<{ name: string; patch: Record<string, unknown>; want: unknown }> = [
  {
    name: 'finalizers merge as a set (patchStrategy merge)',
    patch: { metadata: { finalizers: ['y', 'z'] } },
    want: { ...base, metadata: { ...base.metadata, finalizers: ['x', 'y', 'z'] } },
  },
  {
    name: 'ownerReferences merge by uid: one changed, one added',
    patch: { metadata: { ownerReferences: [{ uid: 'u2', name: 'renamed' }, owner('u3')] } },
    want: { ...base, metadata: { ...base.metadata, ownerReferences: [owner('u1'), owner('u2', 'renamed'), owner('u3')] } },
  },
  {
    name: '$patch: delete removes a keyed item',
    patch: { metadata: { ownerReferences: [{ uid: 'u1', $patch: 'delete' }] } },
    want: { ...base, metadata: { ...base.metadata, ownerReferences: [owner('u2')] } },
  },
  {
    name: 'a list item $patch: replace replaces the merged list',
    patch: { metadata: { ownerReferences: [{ $patch: 'replace' }, owner('u9')] } },
    want: { ...base, metadata: { ...base.metadata, ownerReferences: [owner('u9')] } },
  },
  {
    name: 'atomic rules are replaced whole',
    patch: { rules: [{ verbs: ['list'], nonResourceURLs: ['/x'] }] },
    want: { ...base, rules: [{ verbs: ['list'], nonResourceURLs: ['/x'] }] },
  },
  {
    name: '$deleteFromPrimitiveList removes set members',
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
    want: { ...base, metadata: { ...base.metadata, finalizers: ['y'] } },
  },
  {
    name: '$setElementOrder orders a merged list',
    patch: { metadata: { '$setElementOrder/finalizers': ['y', 'x'] } },
    want: { ...base, metadata: { ...base.metadata, finalizers: ['y', 'x'] } },
  },
  {
    name: '$setElementOrder orders keyed items by merge key',
    patch: { metadata: { '$setElementOrder/ownerReferences': [{ uid: 'u2' }, { uid: 'u1' }] } },
    want: { ...base, metadata: { ...base.metadata, ownerReferences: [owner('u2'), owner('u1')] } },
  },
  {
    name: '$patch: replace on a map replaces it',
    patch: { metadata: { labels: { c: '3', $patch: 'replace' } } },
    want: { ...base, metadata: { ...base.metadata, labels: { c: '3' } } },
  },
  {
    name: '$patch: delete on a map removes it',
    patch: { metadata: { labels: { $patch: 'delete' } } },
    want: { ...base, metadata: { name: 'r', finalizers: ['x', 'y'], ownerReferences: [owner('u1'), owner('u2')] } },
  },
  {
    name: '$retainKeys keeps only the listed keys before merging',
    patch: { metadata: { labels: { $retainKeys: ['b', 'c'], c: '3' } } },
    want: { ...base, metadata: { ...base.metadata, labels: { b: '2', c: '3' } } },
  },
  {
    name: 'null deletes a key as in merge patch',
    patch: { metadata: { labels: { a: null } } },
    want: { ...base, metadata: { ...base.metadata, labels: { b: '2' } } },
  },
];

describe('strategic merge patch directives (schema-driven)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const before = structuredClone(base);
      assert.deepEqual(applyStrategicMergePatch(base, c.patch, ROOT, CLUSTER_ROLE_SCHEMAS), c.want);
      assert.deepEqual(base, before, 'the target is not modified');
    });
  }

  it('refuses a keyed item without its merge key, and an unknown $patch', () => {
    assert.throws(() => applyStrategicMergePatch(base, { metadata: { ownerReferences: [{ name: 'x' }] } }, ROOT, CLUSTER_ROLE_SCHEMAS), {
      message: 'map: map[name:x] does not contain declared merge key: uid',
    });
    assert.throws(() => applyStrategicMergePatch(base, { metadata: { labels: { $patch: 'explode' } } }, ROOT, CLUSTER_ROLE_SCHEMAS), {
      message: 'Unknown patch type: explode in map: map[$patch:explode]',
    });
  });

  it('prints directive values that are objects or arrays as Go maps and lists, never converting them as JavaScript', () => {
    const directive = { toString: [], valueOf: null };
    assert.throws(() => applyStrategicMergePatch(base, { metadata: { labels: { $patch: directive } } }, ROOT, CLUSTER_ROLE_SCHEMAS), {
      message: 'Unknown patch type: map[toString:[] valueOf:<nil>] in map: map[$patch:map[toString:[] valueOf:<nil>]]',
    });
    assert.throws(() => applyStrategicMergePatch(base, { metadata: { labels: { $retainKeys: directive } } }, ROOT, CLUSTER_ROLE_SCHEMAS), {
      message: 'invalid retainKeys directive: map[toString:[] valueOf:<nil>]',
    });
    const kept = applyStrategicMergePatch(base, { metadata: { labels: { $retainKeys: [{ toString: [] }, 'b'] } } }, ROOT, CLUSTER_ROLE_SCHEMAS) as typeof base;
    assert.deepEqual(kept.metadata.labels, { b: '2' });
  });
});
