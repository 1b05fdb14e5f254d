import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../src/testing/cluster-harness.ts';
import { kubeConfigFor } from '../harness/client-node.ts';

describe('PATCH and server-side apply with @kubernetes/client-node', () => {
  let h: ClusterHarness;
  let kc: k8s.KubeConfig;
  before(async () => {
    h = await startHarness();
    kc = kubeConfigFor(await h.listen(), ADMIN_TOKEN);
  });
  after(async () => h.close());

  it('patchClusterRole with each patch content type', async () => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createClusterRole({ body: { metadata: { name: 'patched' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } });
    const as = (type: k8s.PatchStrategy) => k8s.setHeaderOptions('Content-Type', type);
    const json = await rbac.patchClusterRole(
      { name: 'patched', body: [{ op: 'add', path: '/rules/0/verbs/-', value: 'list' }] },
      as(k8s.PatchStrategy.JsonPatch),
    );
    assert.deepEqual(json.rules?.[0]?.verbs, ['get', 'list']);
    const merge = await rbac.patchClusterRole({ name: 'patched', body: { metadata: { labels: { tier: 'gold' } } } }, as(k8s.PatchStrategy.MergePatch));
    assert.deepEqual(merge.metadata?.labels, { tier: 'gold' });
    const strategic = await rbac.patchClusterRole(
      { name: 'patched', body: { metadata: { finalizers: ['example.com/a'] } } },
      as(k8s.PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(strategic.metadata?.finalizers, ['example.com/a']);
    const applied = await rbac.patchClusterRole(
      {
        name: 'patched',
        fieldManager: 'operator',
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'patched', labels: { owner: 'operator' } } },
      },
      as(k8s.PatchStrategy.ServerSideApply),
    );
    assert.deepEqual(applied.metadata?.labels, { tier: 'gold', owner: 'operator' });
    assert.deepEqual(
      applied.metadata?.managedFields?.map((entry) => [entry.manager, entry.operation]),
      [
        ['node-fetch', 'Update'],
        ['operator', 'Apply'],
      ],
    );
  });

  it('server-side applies through KubernetesObjectApi.patch (create, then a conflict, then force)', async () => {
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const spec = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'operator-role' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    };
    const created = await objects.patch(spec, undefined, undefined, 'my-operator', undefined, k8s.PatchStrategy.ServerSideApply);
    assert.equal(created.metadata?.name, 'operator-role');
    const changed = { ...spec, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch'] }] };
    await assert.rejects(objects.patch(changed, undefined, undefined, 'another-operator', undefined, k8s.PatchStrategy.ServerSideApply), (error: unknown) => {
      const body = JSON.parse(String((error as { body?: unknown }).body));
      assert.equal((error as { code?: number }).code, 409);
      assert.equal(body.message, 'Apply failed with 1 conflict: conflict with "my-operator": .rules');
      return true;
    });
    const forced = (await objects.patch(changed, undefined, undefined, 'another-operator', true, k8s.PatchStrategy.ServerSideApply)) as k8s.V1ClusterRole;
    assert.deepEqual(forced.rules?.[0]?.verbs, ['get', 'watch']);
  });
});
