import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('built-in kinds: the scale subresource', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    const created = await h.call('POST', DEPLOYMENTS, {
      metadata: { name: 'web', labels: { tier: 'front' } },
      spec: {
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] },
        template: { metadata: { labels: { app: 'web', env: 'prod' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });
  after(async () => h.close());

  it('reads a deployment as an autoscaling/v1 Scale', async () => {
    const parent = await h.call('GET', `${DEPLOYMENTS}/web`);
    const scale = await h.call('GET', `${DEPLOYMENTS}/web/scale`);
    assert.equal(scale.status, 200, JSON.stringify(scale.body));
    assert.deepEqual(scale.body, {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: parent.body.metadata.uid,
        resourceVersion: parent.body.metadata.resourceVersion,
        creationTimestamp: parent.body.metadata.creationTimestamp,
      },
      spec: { replicas: 1 },
      status: { replicas: 0, selector: 'app=web,env in (dev,prod)' },
    });
  });

  it('writes spec.replicas alone through merge, strategic, json patch and PUT', async () => {
    const kubectl = { ...MERGE, 'user-agent': 'kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07' };
    const merged = await h.call('PATCH', `${DEPLOYMENTS}/web/scale`, { spec: { replicas: 3 }, metadata: { labels: { x: 'y' } } }, kubectl);
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.equal(merged.body.kind, 'Scale');
    assert.deepEqual(merged.body.spec, { replicas: 3 });
    const parent = await h.call('GET', `${DEPLOYMENTS}/web`);
    assert.equal(parent.body.spec.replicas, 3);
    assert.equal(parent.body.metadata.generation, 2, 'a replicas change bumps generation');
    assert.deepEqual(parent.body.metadata.labels, { tier: 'front' }, 'labels are not written through /scale');
    assert.equal(parent.body.spec.template.spec.containers[0].image, 'nginx');
    // The fields a Scale write changes are the parent's: the creator keeps the rest of its set.
    const managed = parent.body.metadata.managedFields;
    assert.deepEqual(
      managed.map((entry: { manager: string; apiVersion: string }) => [entry.manager, entry.apiVersion]),
      [
        ['lightMyRequest', 'apps/v1'],
        ['kubectl', 'apps/v1'],
      ],
    );
    assert.deepEqual(managed[1].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(managed[0].fieldsV1['f:spec']['f:replicas'], undefined);
    assert.deepEqual(managed[0].fieldsV1['f:spec']['f:selector'], {});

    const strategic = await h.call(
      'PATCH',
      `${DEPLOYMENTS}/web/scale`,
      { spec: { replicas: 4 } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(strategic.body.spec.replicas, 4);
    const json = await h.call('PATCH', `${DEPLOYMENTS}/web/scale`, [{ op: 'replace', path: '/spec/replicas', value: 5 }], {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(json.body.spec.replicas, 5);

    const current = await h.call('GET', `${DEPLOYMENTS}/web/scale`);
    const put = await h.call('PUT', `${DEPLOYMENTS}/web/scale`, { ...current.body, spec: { replicas: 2 } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.spec.replicas, 2);
    assert.notEqual(put.body.metadata.resourceVersion, current.body.metadata.resourceVersion);
    assert.equal((await h.call('GET', `${DEPLOYMENTS}/web`)).body.metadata.generation, 5);

    const stale = await h.call('PUT', `${DEPLOYMENTS}/web/scale`, { ...current.body, spec: { replicas: 6 } });
    assert.equal(stale.status, 409);
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('refuses a negative count, a foreign kind, other verbs and a missing parent', async () => {
    const negative = await h.call('PATCH', `${DEPLOYMENTS}/web/scale`, { spec: { replicas: -1 } }, MERGE);
    assert.equal(negative.status, 422);
    assert.equal(negative.body.message, 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const wrongVersion = await h.call('PUT', `${DEPLOYMENTS}/web/scale`, {
      apiVersion: 'apps/v1',
      kind: 'Scale',
      metadata: { name: 'web' },
      spec: { replicas: 1 },
    });
    assert.equal(wrongVersion.status, 400);
    assert.equal(wrongVersion.body.message, 'the API version in the data (apps/v1) does not match the expected API version (autoscaling/v1)');
    assert.equal((await h.call('DELETE', `${DEPLOYMENTS}/web/scale`)).status, 405);
    const missing = await h.call('GET', `${DEPLOYMENTS}/nope/scale`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'deployments.apps "nope" not found');
    assert.equal((await h.call('GET', '/apis/apps/v1/namespaces/default/daemonsets/x/scale')).status, 404, 'daemonsets have no scale subresource');
  });

  it('reads a replication controller selector map as a selector string', async () => {
    const rcs = '/api/v1/namespaces/default/replicationcontrollers';
    const created = await h.call('POST', rcs, {
      metadata: { name: 'rc' },
      spec: {
        replicas: 2,
        selector: { b: '2', a: '1' },
        template: { metadata: { labels: { a: '1', b: '2' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const scale = await h.call('GET', `${rcs}/rc/scale`);
    assert.deepEqual(scale.body.spec, { replicas: 2 });
    assert.deepEqual(scale.body.status, { replicas: 0, selector: 'a=1,b=2' });
  });

  it('lists scale in discovery with the autoscaling/v1 Scale kind, aggregated and legacy', async () => {
    const legacy = await h.call('GET', '/apis/apps/v1');
    const names = legacy.body.resources.map((resource: { name: string }) => resource.name);
    assert.deepEqual(
      names.filter((name: string) => name.startsWith('deployments')),
      ['deployments', 'deployments/scale', 'deployments/status'],
    );
    assert.deepEqual(
      legacy.body.resources.find((resource: { name: string }) => resource.name === 'deployments/scale'),
      { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
    );
    const aggregated = await h.call('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const apps = aggregated.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'apps');
    const statefulsets = apps.versions[0].resources.find((resource: { resource: string }) => resource.resource === 'statefulsets');
    assert.deepEqual(statefulsets.subresources, [
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: '', version: '', kind: 'StatefulSet' }, verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('authorizes the subresource: a role granting deployments/scale lets a user scale, not edit', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/default';
    assert.equal(
      (
        await h.call('POST', `${rbac}/roles`, {
          metadata: { name: 'scaler' },
          rules: [{ apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get', 'patch'] }],
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await h.call('POST', `${rbac}/rolebindings`, {
          metadata: { name: 'scaler' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'scaler' },
          subjects: [{ kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' }],
        })
      ).status,
      201,
    );
    const alice = { ...MERGE, authorization: 'Bearer alice-token' };
    const scaled = await h.call('PATCH', `${DEPLOYMENTS}/web/scale`, { spec: { replicas: 1 } }, alice);
    assert.equal(scaled.status, 200, JSON.stringify(scaled.body));
    const edited = await h.call('PATCH', `${DEPLOYMENTS}/web`, { spec: { replicas: 1 } }, alice);
    assert.equal(edited.status, 403);
    const put = await h.call('PUT', `${DEPLOYMENTS}/web/scale`, { metadata: { name: 'web' }, spec: { replicas: 1 } }, { authorization: 'Bearer alice-token' });
    assert.equal(put.status, 403);
    assert.equal(
      put.body.message,
      'deployments.apps "web" is forbidden: User "alice@example.com" cannot update resource "deployments/scale" in API group "apps" in the namespace "default"',
    );
  });
});
