import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const PODS = '/api/v1/namespaces/default/pods';
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('Pod log, exec, attach and portforward, with no container running', () => {
  let h: ClusterHarness;
  const pod = async (name: string, nodeName: string | undefined, containers = ['c'], state?: Record<string, unknown>) => {
    const created = await h.call('POST', PODS, {
      metadata: { name },
      spec: { ...(nodeName === undefined ? {} : { nodeName }), containers: containers.map((container) => ({ name: container, image: 'nginx' })) },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    if (state !== undefined) {
      const patched = await h.call(
        'PATCH',
        `${PODS}/${name}/status`,
        { status: { containerStatuses: [{ name: containers[0], image: 'nginx', imageID: '', ready: false, restartCount: 0, state }] } },
        MERGE,
      );
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    }
  };
  before(async () => {
    h = await startHarness();
    await pod('pending', undefined);
    await pod('two', undefined, ['a', 'b']);
    await pod('creating', 'node-1', ['c'], { waiting: { reason: 'ContainerCreating' } });
    await pod('running', 'node-1', ['c'], { running: { startedAt: '2025-01-01T00:00:00Z' } });
    await pod('unknown', 'node-1');
  });
  after(async () => h.close());

  it('log: empty for a Pod on no node and for a running container; the kubelet refusals otherwise', async () => {
    const pending = await h.call('GET', `${PODS}/pending/log`);
    assert.equal(pending.status, 200);
    assert.equal(pending.raw.body, '');
    assert.match(String(pending.headers['content-type']), /^text\/plain/);
    const running = await h.call('GET', `${PODS}/running/log?follow=true`);
    assert.equal(running.status, 200);
    assert.equal(running.raw.body, '');
    const creating = await h.call('GET', `${PODS}/creating/log`);
    assert.equal(creating.status, 400);
    assert.equal(creating.body.message, 'container "c" in pod "creating" is waiting to start: ContainerCreating');
    assert.equal((await h.call('GET', `${PODS}/unknown/log`)).body.message, 'container "c" in pod "unknown" is not available');
    assert.equal((await h.call('GET', `${PODS}/running/log?previous=true`)).body.message, 'previous terminated container "c" in pod "running" not found');
  });

  it('log: the container checks and option validation of the apiserver', async () => {
    const two = await h.call('GET', `${PODS}/two/log`);
    assert.equal(two.status, 400);
    assert.equal(two.body.message, 'a container name must be specified for pod two, choose one of: [a b]');
    assert.equal((await h.call('GET', `${PODS}/two/log?container=z`)).body.message, 'container z is not valid for pod two');
    assert.equal((await h.call('GET', `${PODS}/two/log?container=b`)).status, 200);
    const negative = await h.call('GET', `${PODS}/pending/log?tailLines=-1`);
    assert.equal(negative.status, 422);
    assert.equal(negative.body.message, 'PodLogOptions "pending" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
    assert.equal((await h.call('GET', `${PODS}/missing/log`)).status, 404);
  });

  it('exec and attach: no host is the apiserver 400; a bound Pod gets the kubelet "container not found" as the failed upgrade', async () => {
    const pending = await h.call('POST', `${PODS}/pending/exec?command=ls&stdout=true`);
    assert.equal(pending.status, 400);
    assert.equal(pending.body.message, 'pod pending does not have a host assigned');
    const running = await h.call('POST', `${PODS}/running/exec?command=ls&stdout=true`);
    assert.equal(running.status, 500);
    assert.equal(running.raw.body, 'container not found ("c")');
    assert.equal((await h.call('POST', `${PODS}/running/attach?stdout=true`)).raw.body, 'container not found ("c")');
  });

  it('portforward: no host is the apiserver 400; a bound Pod gets the kubelet "pod not found" (name_namespace) as the failed upgrade', async () => {
    const pending = await h.call('GET', `${PODS}/pending/portforward?ports=80`);
    assert.equal(pending.status, 400);
    assert.equal(pending.body.message, 'pod pending does not have a host assigned');
    for (const method of ['GET', 'POST']) {
      const running = await h.call(method, `${PODS}/running/portforward?ports=80`);
      assert.equal(running.status, 500);
      assert.match(String(running.headers['content-type']), /^text\/plain/);
      assert.equal(running.raw.body, 'pod not found ("running_default")');
    }
    assert.equal((await h.call('GET', `${PODS}/missing/portforward?ports=80`)).status, 404);
  });
});
