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

function event(name: string, note: string): k8s.EventsV1Event {
  return {
    metadata: { name },
    eventTime: new k8s.V1MicroTime('2025-01-01T00:00:00Z'),
    reportingController: 'example.com/operator',
    reportingInstance: 'operator-0',
    action: 'Sync',
    reason: 'Synced',
    type: 'Normal',
    note,
    regarding: { kind: 'ConfigMap', name: 'settings', namespace: 'default' },
  };
}

describe('cluster API with @kubernetes/client-node', () => {
  let h: ClusterHarness;
  let kc: k8s.KubeConfig;
  before(async () => {
    // A short change feed so that a 410 can be forced; quick bookmarks; watches that name no
    // timeout end after a second (the real server: 30-60 minutes), so informers re-watch often.
    h = await startHarness({ store: { changeRetention: 40 }, watch: { bookmarkIntervalMs: 100, defaultTimeoutSeconds: () => 1 } });
    kc = kubeConfigFor(await h.listen(), ADMIN_TOKEN);
  });
  after(async () => h.close());

  it('does typed CRUD on ClusterRoles through RbacAuthorizationV1Api', async () => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const created = await rbac.createClusterRole({
      body: { metadata: { name: 'typed', labels: { app: 'demo' } }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
    });
    assert.equal(created.metadata?.name, 'typed');
    assert.ok(created.metadata?.creationTimestamp instanceof Date);
    const read = await rbac.readClusterRole({ name: 'typed' });
    assert.deepEqual(JSON.parse(JSON.stringify(read.rules)), [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    const listed = await rbac.listClusterRole({ labelSelector: 'app=demo' });
    assert.deepEqual(
      listed.items.map((item) => item.metadata?.name),
      ['typed'],
    );
    read.rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }];
    const replaced = await rbac.replaceClusterRole({ name: 'typed', body: read });
    assert.deepEqual(replaced.rules?.[0]?.verbs, ['get', 'list']);
    const patched = await rbac.patchClusterRole(
      { name: 'typed', body: { metadata: { labels: { tier: 'gold' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(patched.metadata?.labels, { app: 'demo', tier: 'gold' });
    await assert.rejects(rbac.createClusterRole({ body: { metadata: { name: 'typed' } } }), (error: unknown) => {
      const body = JSON.parse((error as { body: string }).body);
      assert.equal((error as { code: number }).code, 409);
      assert.equal(body.message, 'clusterroles.rbac.authorization.k8s.io "typed" already exists');
      return true;
    });
    const status = await rbac.deleteClusterRole({ name: 'typed' });
    assert.equal(status.status, 'Success');
    await assert.rejects(rbac.readClusterRole({ name: 'typed' }), (error: unknown) => (error as { code: number }).code === 404);
  });

  it('does typed CRUD on events through EventsV1Api and reads them back through CoreV1Api', async () => {
    const events = kc.makeApiClient(k8s.EventsV1Api);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const created = await events.createNamespacedEvent({ namespace: 'default', body: event('typed-event', 'first sync') });
    assert.equal(created.note, 'first sync');
    const viaCore = await core.readNamespacedEvent({ namespace: 'default', name: 'typed-event' });
    assert.equal(viaCore.message, 'first sync');
    assert.equal(viaCore.involvedObject.name, 'settings');
    assert.equal(viaCore.reportingComponent, 'example.com/operator');
    const all = await events.listEventForAllNamespaces({ fieldSelector: 'regarding.kind=ConfigMap' });
    assert.deepEqual(
      all.items.map((item) => item.metadata?.name),
      ['typed-event'],
    );
    const coreList = await core.listNamespacedEvent({ namespace: 'default', fieldSelector: 'involvedObject.kind=ConfigMap' });
    assert.deepEqual(
      coreList.items.map((item) => item.metadata?.name),
      ['typed-event'],
    );
    await events.deleteNamespacedEvent({ namespace: 'default', name: 'typed-event' });
    assert.equal((await core.listNamespacedEvent({ namespace: 'default' })).items.length, 0);

    const namespace = await core.createNamespace({ body: { metadata: { name: 'client-node' } } });
    assert.equal(namespace.status?.phase, 'Active');
    assert.deepEqual(
      (await core.listNamespace()).items.map((item) => item.metadata?.name),
      ['client-node', 'default', 'kube-node-lease', 'kube-public', 'kube-system'],
    );
    await core.deleteNamespace({ name: 'client-node' });
    await assert.rejects(core.readNamespace({ name: 'client-node' }), (error: unknown) => (error as { code: number }).code === 404);
  });

  it('keeps informers over ClusterRoles and Events in step, and survives a forced 410 by relisting', async () => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const events = kc.makeApiClient(k8s.EventsV1Api);
    let lists = 0;
    const seen: string[] = [];
    const informer = k8s.makeInformer(kc, '/apis/rbac.authorization.k8s.io/v1/clusterroles', () => {
      lists++;
      return rbac.listClusterRole();
    });
    informer.on('add', (role) => seen.push(`add:${role.metadata?.name}`));
    informer.on('update', (role) => seen.push(`update:${role.metadata?.name}`));
    informer.on('delete', (role) => seen.push(`delete:${role.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (error) => errors.push(error));
    const eventSeen: string[] = [];
    const eventInformer = k8s.makeInformer(kc, '/apis/events.k8s.io/v1/namespaces/default/events', () => events.listNamespacedEvent({ namespace: 'default' }));
    eventInformer.on('add', (item) => eventSeen.push(`add:${item.metadata?.name}`));
    eventInformer.on('delete', (item) => eventSeen.push(`delete:${item.metadata?.name}`));
    await informer.start();
    await eventInformer.start();
    try {
      await rbac.createClusterRole({ body: { metadata: { name: 'informed' }, rules: [] } });
      await rbac.patchClusterRole(
        { name: 'informed', body: { metadata: { labels: { x: 'y' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await rbac.deleteClusterRole({ name: 'informed' });
      await waitFor(() => seen.length === 3, 'add, update and delete');
      assert.deepEqual(seen, ['add:informed', 'update:informed', 'delete:informed']);
      await events.createNamespacedEvent({ namespace: 'default', body: event('informed-event', 'n') });
      await waitFor(() => eventSeen.includes('add:informed-event'), 'the event add');

      // Move the change feed far past the informer's last resourceVersion (writes of another
      // kind, which the ClusterRole watch does not see): when its watch times out, the informer
      // re-watches from a compacted resourceVersion, gets the in-stream 410, and relists.
      for (let i = 0; i < 60; i++) await h.call('POST', '/api/v1/namespaces', { metadata: { name: `compact-${i}` } });
      await waitFor(() => lists >= 2, 'the relist after 410');
      await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'while-away' }, rules: [] });
      await waitFor(() => seen.includes('add:while-away'), 'the add after the relist');
      await rbac.createClusterRole({ body: { metadata: { name: 'after-relist' }, rules: [] } });
      await waitFor(() => seen.includes('add:after-relist'), 'watching again after the relist');
      assert.deepEqual(errors, []);
      assert.deepEqual(
        informer
          .list()
          .map((role) => role.metadata?.name)
          .sort(),
        ['after-relist', 'while-away'],
      );
    } finally {
      await informer.stop();
      await eventInformer.stop();
    }
  });

  it('receives bookmarks from a Watch that asks for them', async () => {
    const watch = new k8s.Watch(kc);
    const received: { phase: string; rv: string }[] = [];
    const rv = String(await h.store.currentRevision());
    const request = await watch.watch(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      { allowWatchBookmarks: true, resourceVersion: rv },
      (phase: string, object: k8s.KubernetesObject) => received.push({ phase, rv: object.metadata?.resourceVersion ?? '' }),
      () => undefined,
    );
    try {
      await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'bookmark-trigger' } });
      const target = String(await h.store.currentRevision());
      await waitFor(() => received.some((item) => item.phase === 'BOOKMARK' && item.rv === target), 'a bookmark');
    } finally {
      request.abort();
    }
  });
});
