import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const CM = '/api/v1/namespaces/default/configmaps';

interface Ref {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
}

describe('the garbage collector', () => {
  let h: ClusterHarness;
  /** settle waits until the collector (and every controller) has no work left. */
  const settle = () => h.app.warmUp();
  const configMap = async (name: string, owners: Ref[] = [], extra: Record<string, unknown> = {}, base = CM) => {
    const created = await h.call('POST', base, { metadata: { name, ownerReferences: owners, ...extra } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body;
  };
  const refTo = (object: { metadata: { name: string; uid: string } }, extra: Partial<Ref> = {}): Ref => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: object.metadata.name,
    uid: object.metadata.uid,
    ...extra,
  });
  const status = async (url: string) => (await h.call('GET', url)).status;

  before(async () => {
    h = await startHarness();
    // Written before the cluster runs (as a store a stopped server left): the collector's start finds the dependent without an owner.
    await h.store.transact(async (tx) => {
      await tx.put('cluster/builtin/core/configmaps', 'default/left-behind', {
        metadata: {
          name: 'left-behind',
          namespace: 'default',
          uid: '00000000-0000-4000-8000-000000000001',
          creationTimestamp: '2025-01-01T00:00:00Z',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-there', uid: '00000000-0000-4000-8000-000000000002' }],
        },
      });
    });
    await h.call('GET', '/api/v1/namespaces');
  });
  after(async () => h.close());

  it('collects, on start, a dependent whose owner went while it was not running', async () => {
    await settle();
    assert.equal(await status(`${CM}/left-behind`), 404);
  });

  it('Background (the default): the owner goes at once, then its dependents', async () => {
    const owner = await configMap('bg-owner');
    await configMap('bg-a', [refTo(owner)]);
    await configMap('bg-b', [refTo(owner, { controller: true, blockOwnerDeletion: true })]);
    const deleted = await h.call('DELETE', `${CM}/bg-owner`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, 'Status');
    await settle();
    assert.equal(await status(`${CM}/bg-a`), 404);
    assert.equal(await status(`${CM}/bg-b`), 404);
  });

  it('a reference by uid to an owner recreated under the same name is dangling; a live second owner keeps the dependent', async () => {
    const first = await configMap('re-owner');
    assert.equal((await h.call('DELETE', `${CM}/re-owner`)).status, 200);
    const second = await configMap('re-owner');
    assert.notEqual(first.metadata.uid, second.metadata.uid);
    await configMap('re-dependent', [refTo(first)]);
    const other = await configMap('re-other');
    await configMap('re-shared', [refTo(first), refTo(other)]);
    await settle();
    assert.equal(await status(`${CM}/re-dependent`), 404);
    const shared = await h.call('GET', `${CM}/re-shared`);
    assert.equal(shared.status, 200);
    assert.deepEqual(
      shared.body.metadata.ownerReferences.map((ref: Ref) => ref.uid),
      [other.metadata.uid],
    );
    assert.equal(await status(`${CM}/re-owner`), 200);
  });

  it('Foreground: the owner is marked and stays until its blocking dependents are gone', async () => {
    const owner = await configMap('fg-owner');
    await configMap('fg-held', [refTo(owner, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
    await configMap('fg-plain', [refTo(owner, { blockOwnerDeletion: true })]);
    const deleted = await h.call('DELETE', `${CM}/fg-owner`, { propagationPolicy: 'Foreground' });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, 'ConfigMap');
    assert.deepEqual(deleted.body.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(deleted.body.metadata.deletionGracePeriodSeconds, 0);
    assert.ok(deleted.body.metadata.deletionTimestamp);
    await settle();
    // The plain dependent went; the held one is being deleted, and the owner waits for it.
    assert.equal(await status(`${CM}/fg-plain`), 404);
    const held = await h.call('GET', `${CM}/fg-held`);
    assert.ok(held.body.metadata.deletionTimestamp);
    const waiting = await h.call('GET', `${CM}/fg-owner`);
    assert.equal(waiting.status, 200);
    assert.deepEqual(waiting.body.metadata.finalizers, ['foregroundDeletion']);
    const released = await h.call('PATCH', `${CM}/fg-held`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(released.status, 200);
    await settle();
    assert.equal(await status(`${CM}/fg-held`), 404);
    assert.equal(await status(`${CM}/fg-owner`), 404);
  });

  it('Orphan (and the deprecated orphanDependents): the dependents stay with the references removed, then the owner goes', async () => {
    const owner = await configMap('or-owner');
    const other = await configMap('or-other');
    await configMap('or-a', [refTo(owner, { controller: true, blockOwnerDeletion: true })]);
    await configMap('or-b', [refTo(owner), refTo(other)]);
    const deleted = await h.call('DELETE', `${CM}/or-owner`, { propagationPolicy: 'Orphan' });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body.metadata.finalizers, ['orphan']);
    await settle();
    assert.equal(await status(`${CM}/or-owner`), 404);
    const a = await h.call('GET', `${CM}/or-a`);
    assert.equal(a.status, 200);
    assert.equal(a.body.metadata.ownerReferences, undefined);
    const b = await h.call('GET', `${CM}/or-b`);
    assert.deepEqual(
      b.body.metadata.ownerReferences.map((ref: Ref) => ref.name),
      ['or-other'],
    );

    const legacy = await configMap('or-legacy');
    await configMap('or-legacy-child', [refTo(legacy)]);
    const kept = await h.call('DELETE', `${CM}/or-legacy?orphanDependents=true`);
    assert.deepEqual(kept.body.metadata.finalizers, ['orphan']);
    await settle();
    assert.equal(await status(`${CM}/or-legacy`), 404);
    assert.equal((await h.call('GET', `${CM}/or-legacy-child`)).body.metadata.ownerReferences, undefined);
  });

  it('orphanDependents=false cascades in the background, 202 while the owner is kept; both options set is the 422', async () => {
    const owner = await configMap('od-owner', [], { finalizers: ['example.com/hold'] });
    await configMap('od-child', [refTo(owner)]);
    const accepted = await h.call('DELETE', `${CM}/od-owner?orphanDependents=false`);
    assert.equal(accepted.status, 202);
    const both = await h.call('DELETE', `${CM}/od-owner`, { propagationPolicy: 'Orphan', orphanDependents: true });
    assert.equal(both.status, 422);
    assert.match(both.body.message, /orphanDependents and deletionPropagation cannot be both set/);
    await h.call('PATCH', `${CM}/od-owner`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    await settle();
    assert.equal(await status(`${CM}/od-child`), 404);
  });

  it('a second DELETE switches a pending foreground deletion to orphan', async () => {
    const owner = await configMap('sw-owner');
    await configMap('sw-child', [refTo(owner, { blockOwnerDeletion: true })], { finalizers: ['example.com/hold'] });
    await h.call('DELETE', `${CM}/sw-owner`, { propagationPolicy: 'Foreground' });
    await settle();
    const switched = await h.call('DELETE', `${CM}/sw-owner`, { propagationPolicy: 'Orphan' });
    assert.deepEqual(switched.body.metadata.finalizers, ['orphan']);
    await settle();
    assert.equal(await status(`${CM}/sw-owner`), 404);
    // Already being deleted by the foreground pass: it goes once its own finalizer does.
    assert.ok((await h.call('GET', `${CM}/sw-child`)).body.metadata.deletionTimestamp);
    await h.call('PATCH', `${CM}/sw-child`, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
  });

  it('a cluster-scoped owner of namespaced dependents', async () => {
    const role = await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'gc-owner-role' }, rules: [] });
    assert.equal(role.status, 201);
    await configMap('cs-child', [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'gc-owner-role', uid: role.body.metadata.uid }]);
    await settle();
    assert.equal(await status(`${CM}/cs-child`), 200);
    await h.call('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-owner-role');
    await settle();
    assert.equal(await status(`${CM}/cs-child`), 404);
  });

  it('the invalid cases: a namespaced owner of a cluster-scoped object is never collected, one in another namespace is dangling; both reported', async () => {
    const owner = await configMap('ns-owner');
    const role = await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'gc-owned-role', ownerReferences: [refTo(owner)] },
      rules: [],
    });
    assert.equal(role.status, 201);
    assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'gc-elsewhere' } })).status, 201);
    await configMap('ns-child', [refTo(owner)], {}, '/api/v1/namespaces/gc-elsewhere/configmaps');
    await settle();
    assert.equal(await status('/api/v1/namespaces/gc-elsewhere/configmaps/ns-child'), 404);
    await h.call('DELETE', `${CM}/ns-owner`);
    await settle();
    assert.equal(await status('/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-owned-role'), 200);
    const reasons = async (namespace: string) =>
      (await h.call('GET', `/api/v1/namespaces/${namespace}/events?fieldSelector=reason%3DOwnerRefInvalidNamespace`)).body.items;
    const [elsewhere] = await reasons('gc-elsewhere');
    assert.equal(elsewhere.type, 'Warning');
    assert.equal(elsewhere.source.component, 'garbage-collector-controller');
    assert.deepEqual({ kind: elsewhere.involvedObject.kind, name: elsewhere.involvedObject.name }, { kind: 'ConfigMap', name: 'ns-child' });
    assert.equal(
      elsewhere.message,
      `ownerRef [v1/ConfigMap, namespace: gc-elsewhere, name: ns-owner, uid: ${owner.metadata.uid}] does not exist in namespace "gc-elsewhere"`,
    );
    const clusterScoped = (await reasons('default')).find((event: { involvedObject: { name: string } }) => event.involvedObject.name === 'gc-owned-role');
    assert.equal(clusterScoped.message, `ownerRef [v1/ConfigMap, namespace: , name: ns-owner, uid: ${owner.metadata.uid}] does not exist in namespace ""`);
  });

  it('custom resources as owners: deleting the CRD removes its instances, and their dependents are collected though the kind is no longer served', async () => {
    const crd = await h.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    let widget = await h.call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    for (let attempt = 0; widget.status !== 201 && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      widget = await h.call('POST', widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    }
    assert.equal(widget.status, 201, JSON.stringify(widget.body));
    await configMap('widget-child', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: widget.body.metadata.uid }]);
    await settle();
    assert.equal(await status(`${CM}/widget-child`), 200);
    assert.equal((await h.call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status, 200);
    for (let attempt = 0; (await status('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')) !== 404 && attempt < 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await settle();
    assert.equal(await status(`${CM}/widget-child`), 404);
  });

  it('a Job DELETE without a policy orphans, with the storage warning; ReplicationControllers orphan too', async () => {
    const job = await h.call('POST', '/apis/batch/v1/namespaces/default/jobs', {
      metadata: { name: 'gc-job' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    await configMap('job-child', [{ apiVersion: 'batch/v1', kind: 'Job', name: 'gc-job', uid: job.body.metadata.uid }]);
    const deleted = await h.call('DELETE', '/apis/batch/v1/namespaces/default/jobs/gc-job');
    assert.equal(deleted.status, 200);
    assert.match(String(deleted.headers.warning), /child pods are preserved by default when jobs are deleted/);
    await settle();
    assert.equal(await status('/apis/batch/v1/namespaces/default/jobs/gc-job'), 404);
    assert.equal((await h.call('GET', `${CM}/job-child`)).body.metadata.ownerReferences, undefined);
  });
});
