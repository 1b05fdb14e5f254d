import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../src/testing/cluster-harness.ts';
import { kubeConfigFor } from '../harness/client-node.ts';

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** statusCode reads the HTTP status of a client-node ApiException. */
function statusCode(error: unknown): number | undefined {
  return (error as { code?: number }).code;
}

/** tryAcquire is client-go's Lease lock (resourcelock/leaselock.go): get; create on 404; otherwise replace with the read resourceVersion. */
async function tryAcquire(api: k8s.CoordinationV1Api, identity: string, now: Date): Promise<boolean> {
  const spec = {
    holderIdentity: identity,
    leaseDurationSeconds: 15,
    acquireTime: new k8s.V1MicroTime(now),
    renewTime: new k8s.V1MicroTime(now),
    leaseTransitions: 0,
  };
  let current: k8s.V1Lease;
  try {
    current = await api.readNamespacedLease({ name: 'controller-lock', namespace: 'kube-system' });
  } catch (error) {
    if (statusCode(error) !== 404) throw error;
    try {
      await api.createNamespacedLease({ namespace: 'kube-system', body: { metadata: { name: 'controller-lock' }, spec } });
      return true;
    } catch (raced) {
      if (statusCode(raced) === 409) return false;
      throw raced;
    }
  }
  const held = current.spec?.holderIdentity;
  // client-node hands MicroTime fields back as they came on the wire (RFC 3339 text).
  const renewed = current.spec?.renewTime === undefined ? 0 : new Date(String(current.spec.renewTime)).getTime();
  if (held !== undefined && held !== '' && held !== identity && renewed + 15_000 > now.getTime()) return false;
  try {
    await api.replaceNamespacedLease({
      name: 'controller-lock',
      namespace: 'kube-system',
      body: { ...current, spec: { ...spec, leaseTransitions: (current.spec?.leaseTransitions ?? 0) + (held === identity ? 0 : 1) } },
    });
    return true;
  } catch (error) {
    if (statusCode(error) === 409) return false;
    throw error;
  }
}

describe('built-in kinds with @kubernetes/client-node: a Pod informer and a Lease lock', () => {
  let h: ClusterHarness;
  let kc: k8s.KubeConfig;
  before(async () => {
    h = await startHarness({ watch: { bookmarkIntervalMs: 100, defaultTimeoutSeconds: () => 1 } });
    kc = kubeConfigFor(await h.listen(), ADMIN_TOKEN);
  });
  after(async () => h.close());

  it('keeps a Pod informer in step with creates, updates and deletes', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/pods', () => core.listNamespacedPod({ namespace: 'default' }));
    const seen: string[] = [];
    informer.on('add', (pod) => seen.push(`add:${pod.metadata?.name}:${pod.status?.phase}`));
    informer.on('update', (pod) => seen.push(`update:${pod.metadata?.name}:${pod.metadata?.labels?.['tier'] ?? ''}`));
    informer.on('delete', (pod) => seen.push(`delete:${pod.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { name: 'worker' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } },
      });
      await waitFor(() => seen.includes('add:worker:Pending'), 'the add');
      await core.patchNamespacedPod(
        { name: 'worker', namespace: 'default', body: { metadata: { labels: { tier: 'batch' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await waitFor(() => seen.includes('update:worker:batch'), 'the update');
      await core.deleteNamespacedPod({ name: 'worker', namespace: 'default' });
      await waitFor(() => seen.includes('delete:worker'), 'the delete');
      assert.deepEqual(seen, ['add:worker:Pending', 'update:worker:batch', 'delete:worker']);
      assert.deepEqual(
        informer.list('default').map((pod) => pod.metadata?.name),
        [],
      );
    } finally {
      await informer.stop();
    }
  });

  it('lets one of two contenders hold a Lease, the loser seeing a 409 on its stale resourceVersion', async () => {
    const api = kc.makeApiClient(k8s.CoordinationV1Api);
    const now = new Date();
    assert.equal(await tryAcquire(api, 'a', now), true, 'a creates the lease');
    assert.equal(await tryAcquire(api, 'b', now), false, 'b sees a fresh holder');
    // Both read the same version; the first replace wins, the second is a 409 Conflict.
    const stale = await api.readNamespacedLease({ name: 'controller-lock', namespace: 'kube-system' });
    await api.replaceNamespacedLease({
      name: 'controller-lock',
      namespace: 'kube-system',
      body: { ...stale, spec: { ...stale.spec, renewTime: new k8s.V1MicroTime(now.getTime() + 2000) } },
    });
    await assert.rejects(
      api.replaceNamespacedLease({ name: 'controller-lock', namespace: 'kube-system', body: { ...stale, spec: { ...stale.spec, holderIdentity: 'b' } } }),
      (error: unknown) => statusCode(error) === 409,
    );
    // Once a's lease has expired, b takes it over and the transitions count goes up.
    const later = new Date(now.getTime() + 60_000);
    assert.equal(await tryAcquire(api, 'b', later), true);
    const held = await api.readNamespacedLease({ name: 'controller-lock', namespace: 'kube-system' });
    assert.equal(held.spec?.holderIdentity, 'b');
    assert.equal(held.spec?.leaseTransitions, 1);
  });
});
