import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('built-in kinds: the status subresource, generation, finalizers', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', DEPLOYMENTS, {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
      status: { replicas: 9 },
    });
    assert.equal(created.status, 201);
  });
  after(async () => h.close());

  it('drops status on create and keeps it on main-resource writes; /status writes status alone', async () => {
    const fresh = await h.call('GET', `${DEPLOYMENTS}/web`);
    assert.deepEqual(fresh.body.status, {}, 'a DeploymentStatus is a struct: written empty');
    assert.equal(fresh.body.metadata.generation, 1);
    const status = await h.call(
      'PATCH',
      `${DEPLOYMENTS}/web/status`,
      { status: { replicas: 1, readyReplicas: 1 }, spec: { replicas: 5 }, metadata: { labels: { x: 'y' } } },
      MERGE,
    );
    assert.equal(status.status, 200, JSON.stringify(status.body));
    assert.deepEqual(status.body.status, { replicas: 1, readyReplicas: 1 });
    assert.equal(status.body.spec.replicas, 1, 'spec is not written through /status');
    assert.equal(status.body.metadata.labels, undefined, 'nor metadata');
    assert.equal(status.body.metadata.generation, 1, 'a status write does not bump generation');
    const main = await h.call('PATCH', `${DEPLOYMENTS}/web`, { spec: { replicas: 3 }, status: { replicas: 7 } }, MERGE);
    assert.equal(main.body.spec.replicas, 3);
    assert.deepEqual(main.body.status, { replicas: 1, readyReplicas: 1 }, 'the main resource keeps the stored status');
    assert.equal(main.body.metadata.generation, 2, 'a spec change bumps generation');
    const labelled = await h.call('PATCH', `${DEPLOYMENTS}/web`, { metadata: { labels: { a: 'b' } } }, MERGE);
    assert.equal(labelled.body.metadata.generation, 2, 'a metadata change does not');
    const read = await h.call('GET', `${DEPLOYMENTS}/web/status`);
    assert.equal(read.body.kind, 'Deployment');
    assert.deepEqual(read.body.status, { replicas: 1, readyReplicas: 1 });
  });

  it('refuses other verbs on /status and unknown subresources', async () => {
    const deleted = await h.call('DELETE', `${DEPLOYMENTS}/web/status`);
    assert.equal(deleted.status, 405);
    assert.equal((await h.call('GET', `${DEPLOYMENTS}/web/rollback`)).status, 404);
    assert.equal((await h.call('GET', '/api/v1/namespaces/default/configmaps/x/status')).status, 404, 'configmaps have no status subresource');
  });

  it('lists status in discovery, aggregated and legacy', async () => {
    const legacy = await h.call('GET', '/apis/apps/v1');
    const names = legacy.body.resources.map((resource: { name: string }) => resource.name);
    assert.ok(names.includes('deployments/status'));
    assert.deepEqual(
      legacy.body.resources.find((resource: { name: string }) => resource.name === 'deployments/status'),
      { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: ['get', 'patch', 'update'] },
    );
    const aggregated = await h.call('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const apps = aggregated.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'apps');
    const deployments = apps.versions[0].resources.find((resource: { resource: string }) => resource.resource === 'deployments');
    assert.deepEqual(deployments.subresources, [
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
    ]);
    assert.deepEqual(deployments.categories, ['all']);
  });

  it('keeps an object with finalizers until the last one is removed', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    await h.call('POST', path, { metadata: { name: 'held', finalizers: ['example.com/hold'] }, data: { a: 'b' } });
    const marked = await h.call('DELETE', `${path}/held`);
    assert.equal(marked.status, 200);
    assert.equal(typeof marked.body.metadata.deletionTimestamp, 'string');
    assert.equal((await h.call('GET', `${path}/held`)).status, 200);
    const released = await h.call('PATCH', `${path}/held`, { metadata: { finalizers: null } }, MERGE);
    assert.equal(released.status, 200);
    assert.equal((await h.call('GET', `${path}/held`)).status, 404);
  });
});
