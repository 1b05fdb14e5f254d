import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';

describe('create and replace check their body against the request before the store', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    await h.call('POST', ROLES, { metadata: { name: 'a' }, rules: [] });
  });
  after(async () => h.close());

  it('answers a create carrying metadata.resourceVersion as the apiserver does: a plain 500 Status with the storage text', async () => {
    // etcd3 store.Create returns storage.ErrResourceVersionSetOnCreate, a plain error that
    // InterpretCreateError passes through; ErrorToAPIStatus makes it 500 with an empty reason and
    // the error text as message (kubectl: "Error from server: resourceVersion should not be set…").
    const before = await h.store.currentRevision();
    const answer = await h.call('POST', ROLES, { metadata: { name: 'rv', resourceVersion: '1' } });
    assert.equal(answer.status, 500);
    assert.deepEqual(answer.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'resourceVersion should not be set on objects to be created',
      code: 500,
    });
    assert.equal(await h.store.currentRevision(), before);
  });

  it("answers a PUT whose body names another object with 400, whether or not the URL's object exists", async () => {
    const missing = await h.call('PUT', `${ROLES}/b`, { metadata: { name: 'a' }, rules: [] });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the name of the object (a) does not match the name on the URL (b)',
      reason: 'BadRequest',
      code: 400,
    });
    const existing = await h.call('PUT', `${ROLES}/a`, { metadata: { name: 'b' }, rules: [] });
    assert.equal(existing.status, 400);
    assert.equal(existing.body.message, 'the name of the object (b) does not match the name on the URL (a)');
    const unnamed = await h.call('PUT', `${ROLES}/c`, { metadata: {}, rules: [] });
    assert.equal(unnamed.status, 400);
    assert.equal(unnamed.body.message, 'the name of the object () does not match the name on the URL (c)');
  });

  it('answers a PUT of a namespaced object whose body names another namespace with 400', async () => {
    const answer = await h.call('PUT', `${EVENTS}/e`, { metadata: { name: 'e', namespace: 'kube-system' } });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.message, 'the namespace of the provided object does not match the namespace sent on the request');
    assert.equal(answer.body.reason, 'BadRequest');
  });
});
