import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { advanceFiring } from '../../../lib/controlled-clock.ts';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

/** until polls `read` until `check` holds (the simulation works asynchronously on the change feed). */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 400; attempt++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...spec },
});

describe('--workloads simulate: fake Nodes, the scheduler and the kubelet on the clock', () => {
  let h: ClusterHarness;
  const get = async (path: string) => (await h.call('GET', path)).body;
  const advance = (ms: number) => advanceFiring(h.control.clock, h.control.timers, ms);
  const events = async (name: string) =>
    (
      (await get(`/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=${name}`)).items as {
        reason: string;
        message: string;
        source: { component: string };
      }[]
    ).map((event) => `${event.source.component} ${event.reason}: ${event.message}`);

  before(async () => {
    h = await startHarness({ workloads: 'simulate', nodes: 2, podReadyDelayMs: 2000 });
    h.control.clock.freeze();
  });
  after(() => h.close());

  it('registers the fake Nodes Ready, with kwok-like labels, capacity, addresses and a pod CIDR each', async () => {
    const nodes = await until(
      () => get('/api/v1/nodes'),
      (list) => list.items?.length === 2 && list.items.every((node: { status?: { conditions?: unknown[] } }) => (node.status?.conditions ?? []).length > 0),
      'two initialized nodes',
    );
    const [first] = nodes.items;
    assert.equal(first.metadata.name, 'fogbank-node-1');
    assert.equal(first.metadata.labels['kubernetes.io/hostname'], 'fogbank-node-1');
    assert.equal(first.metadata.labels.type, 'kwok');
    assert.equal(first.spec.podCIDR, '10.244.1.0/24');
    assert.deepEqual(first.status.capacity, { cpu: '1k', memory: '1Ti', pods: '1M' });
    assert.deepEqual(first.status.allocatable, first.status.capacity);
    assert.deepEqual(first.status.addresses, [
      { type: 'InternalIP', address: '172.18.0.2' },
      { type: 'Hostname', address: 'fogbank-node-1' },
    ]);
    const ready = first.status.conditions.find((condition: { type: string }) => condition.type === 'Ready');
    assert.deepEqual([ready.status, ready.reason, ready.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
    assert.equal(first.status.nodeInfo.kubeletVersion, 'v1.32.0');
  });

  it('binds a Pod at once, keeps it Pending while the clock stands still, and runs it when the clock passes the ready delay', async () => {
    assert.equal((await h.call('POST', '/api/v1/namespaces/default/pods', pod('one'))).status, 201);
    const bound = await until(
      () => get('/api/v1/namespaces/default/pods/one'),
      (object) => object.spec.nodeName !== undefined,
      'bound',
    );
    assert.match(bound.spec.nodeName, /^fogbank-node-[12]$/);
    assert.deepEqual(
      bound.status.conditions.map((condition: { type: string; status: string }) => [condition.type, condition.status]),
      [['PodScheduled', 'True']],
    );
    assert.equal(bound.status.phase, 'Pending');
    assert.deepEqual(await events('one'), [`default-scheduler Scheduled: Successfully assigned default/one to ${bound.spec.nodeName}`]);
    await advance(1000);
    assert.equal((await get('/api/v1/namespaces/default/pods/one')).status.phase, 'Pending', 'half the delay');
    await advance(1000);
    const running = await until(
      () => get('/api/v1/namespaces/default/pods/one'),
      (object) => object.status.phase === 'Running',
      'running',
    );
    assert.deepEqual(
      running.status.conditions.map((condition: { type: string; status: string }) => `${condition.type}=${condition.status}`),
      ['Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True'],
    );
    assert.match(running.status.podIP, /^10\.244\.[12]\.1$/);
    assert.deepEqual(running.status.podIPs, [{ ip: running.status.podIP }]);
    assert.match(running.status.hostIP, /^172\.18\.0\.[23]$/);
    const [container] = running.status.containerStatuses;
    assert.deepEqual(
      { name: container.name, ready: container.ready, started: container.started, restartCount: container.restartCount, image: container.image },
      { name: 'web', ready: true, started: true, restartCount: 0, image: 'nginx:1.27' },
    );
    assert.ok(container.state.running.startedAt);
    assert.equal(running.status.startTime, container.state.running.startedAt);
  });

  it('models init containers as kwok does: terminated Completed, sidecars running', async () => {
    const spec = {
      initContainers: [
        { name: 'setup', image: 'busybox' },
        { name: 'proxy', image: 'envoy', restartPolicy: 'Always' },
      ],
    };
    await h.call('POST', '/api/v1/namespaces/default/pods', pod('with-init', spec));
    await until(
      () => get('/api/v1/namespaces/default/pods/with-init'),
      (object) => object.spec.nodeName !== undefined,
      'bound',
    );
    await advance(2000);
    const running = await until(
      () => get('/api/v1/namespaces/default/pods/with-init'),
      (object) => object.status.phase === 'Running',
      'running',
    );
    const [setup, proxy] = running.status.initContainerStatuses;
    assert.deepEqual([setup.state.terminated.reason, setup.state.terminated.exitCode, setup.ready], ['Completed', 0, true]);
    assert.deepEqual([Object.keys(proxy.state), proxy.started], [['running'], true]);
  });

  it("leaves a Pod no Node takes Pending, with PodScheduled=False and FailedScheduling in the scheduler's words", async () => {
    await h.call('POST', '/api/v1/namespaces/default/pods', pod('picky', { nodeSelector: { disk: 'ssd' } }));
    const pending = await until(
      () => get('/api/v1/namespaces/default/pods/picky'),
      (object) => (object.status.conditions ?? []).length > 0,
      'unschedulable',
    );
    const message =
      "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
    assert.deepEqual(
      pending.status.conditions.map((condition: { type: string; status: string; reason: string; message: string }) => [
        condition.type,
        condition.status,
        condition.reason,
        condition.message,
      ]),
      [['PodScheduled', 'False', 'Unschedulable', message]],
    );
    assert.deepEqual(await events('picky'), [`default-scheduler FailedScheduling: ${message}`]);
    // A Node that matches appears: the scheduler binds the Pod to it.
    await h.call('PATCH', '/api/v1/nodes/fogbank-node-2', { metadata: { labels: { disk: 'ssd' } } }, { 'content-type': 'application/merge-patch+json' });
    const bound = await until(
      () => get('/api/v1/namespaces/default/pods/picky'),
      (object) => object.spec.nodeName !== undefined,
      'bound after the label',
    );
    assert.equal(bound.spec.nodeName, 'fogbank-node-2');
  });

  it('counts requests against allocatable and honours taints and tolerations', async () => {
    await h.call(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('huge', { containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '2k' } } }] }),
    );
    const huge = await until(
      () => get('/api/v1/namespaces/default/pods/huge'),
      (object) => (object.status.conditions ?? []).length > 0,
      'unschedulable',
    );
    assert.equal(
      huge.status.conditions[0].message,
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    );
    for (const name of ['fogbank-node-1', 'fogbank-node-2'])
      await h.call(
        'PATCH',
        `/api/v1/nodes/${name}`,
        { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } },
        { 'content-type': 'application/merge-patch+json' },
      );
    await h.call('POST', '/api/v1/namespaces/default/pods', pod('intolerant'));
    const intolerant = await until(
      () => get('/api/v1/namespaces/default/pods/intolerant'),
      (object) => (object.status.conditions ?? []).length > 0,
      'unschedulable',
    );
    assert.match(intolerant.status.conditions[0].message, /^0\/2 nodes are available: 2 node\(s\) had untolerated taint \{dedicated: gpu\}\. /);
    await h.call(
      'POST',
      '/api/v1/namespaces/default/pods',
      pod('tolerant', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }),
    );
    await until(
      () => get('/api/v1/namespaces/default/pods/tolerant'),
      (object) => object.spec.nodeName !== undefined,
      'tolerant bound',
    );
    for (const name of ['fogbank-node-1', 'fogbank-node-2'])
      await h.call('PATCH', `/api/v1/nodes/${name}`, { spec: { taints: null } }, { 'content-type': 'application/merge-patch+json' });
    await until(
      () => get('/api/v1/namespaces/default/pods/intolerant'),
      (object) => object.spec.nodeName !== undefined,
      'bound once the taint went',
    );
  });

  it('deletes a running Pod after its grace period on the clock (Terminating meanwhile), a second DELETE only shortening it', async () => {
    await h.call('POST', '/api/v1/namespaces/default/pods', pod('graceful', { terminationGracePeriodSeconds: 20 }));
    await until(
      () => get('/api/v1/namespaces/default/pods/graceful'),
      (object) => object.spec.nodeName !== undefined,
      'bound',
    );
    await advance(2000);
    await until(
      () => get('/api/v1/namespaces/default/pods/graceful'),
      (object) => object.status.phase === 'Running',
      'running',
    );
    const now = h.control.clock.now();
    const deleted = await h.call('DELETE', '/api/v1/namespaces/default/pods/graceful');
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.kind, 'Pod');
    assert.equal(deleted.body.metadata.deletionGracePeriodSeconds, 20);
    assert.equal(Date.parse(deleted.body.metadata.deletionTimestamp), Math.floor((now + 20_000) / 1000) * 1000);
    assert.equal(
      (await h.call('DELETE', '/api/v1/namespaces/default/pods/graceful?gracePeriodSeconds=60')).body.metadata.deletionGracePeriodSeconds,
      20,
      'never lengthened',
    );
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/default/pods/graceful', { gracePeriodSeconds: 10 })).body.metadata.deletionGracePeriodSeconds, 10);
    await advance(5000);
    assert.equal((await h.call('GET', '/api/v1/namespaces/default/pods/graceful')).status, 200, 'still terminating');
    await advance(6000);
    await until(
      () => h.call('GET', '/api/v1/namespaces/default/pods/graceful'),
      (answer) => answer.status === 404,
      'gone after the grace',
    );
    // An unscheduled Pod has no kubelet to wait for: it goes at once.
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/default/pods/huge')).body.metadata.deletionTimestamp, undefined);
    assert.equal((await h.call('GET', '/api/v1/namespaces/default/pods/huge')).status, 404);
  });

  it('runs a Pod that names its Node there without the scheduler, and counts restarts of a container that exits under restartPolicy Always', async () => {
    const crashing = pod(
      'crashing',
      { nodeName: 'fogbank-node-2' },
      { annotations: { 'workloads.fogbank.dev/run-duration': '3s', 'workloads.fogbank.dev/exit-code': '1' } },
    );
    assert.equal((await h.call('POST', '/api/v1/namespaces/default/pods', crashing)).status, 201);
    await advance(2000);
    const running = await until(
      () => get('/api/v1/namespaces/default/pods/crashing'),
      (object) => object.status.phase === 'Running',
      'running',
    );
    assert.equal(running.spec.nodeName, 'fogbank-node-2');
    assert.match(running.status.podIP, /^10\.244\.2\.\d+$/);
    assert.deepEqual(await events('crashing'), [], 'no Scheduled event: the scheduler leaves a Pod with a nodeName alone');
    assert.equal(running.status.containerStatuses[0].restartCount, 0);
    await advance(3000);
    const restarted = await until(
      () => get('/api/v1/namespaces/default/pods/crashing'),
      (object) => object.status.containerStatuses[0].restartCount === 1,
      'restarted once',
    );
    const [container] = restarted.status.containerStatuses;
    assert.equal(restarted.status.phase, 'Running');
    assert.deepEqual([container.lastState.terminated.exitCode, container.lastState.terminated.reason], [1, 'Error']);
    assert.ok(container.state.running.startedAt);
    await advance(3000);
    await until(
      () => get('/api/v1/namespaces/default/pods/crashing'),
      (object) => object.status.containerStatuses[0].restartCount === 2,
      'restarted twice',
    );
  });
});
