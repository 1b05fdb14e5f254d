import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { advanceFiring } from '../../../lib/controlled-clock.ts';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 500; attempt++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

type Pod = {
  metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string };
  spec: Record<string, unknown> & { nodeName?: string };
  status: { phase: string };
};

describe('--workloads simulate: StatefulSets and DaemonSets', () => {
  let h: ClusterHarness;
  const get = async (path: string) => (await h.call('GET', path)).body;
  const advance = (ms: number) => advanceFiring(h.control.clock, h.control.timers, ms);
  const apps = '/apis/apps/v1/namespaces/default';
  const podsOf = async (label: string): Promise<Pod[]> => (await get(`/api/v1/namespaces/default/pods?labelSelector=${label}`)).items;
  const step = async () => {
    await advance(1000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  };

  before(async () => {
    h = await startHarness({ workloads: 'simulate', nodes: 3, podReadyDelayMs: 1000 });
    h.control.clock.freeze();
  });
  after(() => h.close());

  it('makes OrderedReady ordinals one at a time, each once the one before is Ready, with claims from the templates', async () => {
    await h.call('POST', `${apps}/statefulsets`, {
      metadata: { name: 'db' },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        // A replaced Pod stays Terminating for its grace on the clock: keep it short.
        template: { metadata: { labels: { app: 'db' } }, spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'db', image: 'postgres' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    const first = await until(
      () => podsOf('app=db'),
      (pods) => pods.length === 1,
      'db-0 alone',
    );
    assert.equal(first[0]?.metadata.name, 'db-0');
    assert.deepEqual([first[0]?.spec['hostname'], first[0]?.spec['subdomain']], ['db-0', 'db']);
    assert.equal(first[0]?.metadata.labels['apps.kubernetes.io/pod-index'], '0');
    assert.equal(first[0]?.metadata.labels['statefulset.kubernetes.io/pod-name'], 'db-0');
    assert.deepEqual(((first[0]?.spec['volumes'] ?? []) as unknown[])[0], { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } });
    assert.equal((await h.call('GET', '/api/v1/namespaces/default/persistentvolumeclaims/data-db-0')).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await podsOf('app=db')).length, 1, 'db-1 waits for db-0 to be Ready');
    for (let n = 0; n < 10 && (await podsOf('app=db')).filter((pod) => pod.status.phase === 'Running').length < 3; n++) await step();
    const set = await until(
      () => get(`${apps}/statefulsets/db`),
      (object) => object.status?.readyReplicas === 3,
      'three ready',
    );
    assert.deepEqual((await podsOf('app=db')).map((pod) => pod.metadata.name).sort(), ['db-0', 'db-1', 'db-2']);
    assert.equal(set.status.currentRevision, set.status.updateRevision);
    assert.match(set.status.updateRevision, /^db-[456789bcdf]+$/);
    assert.equal(set.status.updatedReplicas, 3);
    const revision = await get(`${apps}/controllerrevisions/${set.status.updateRevision}`);
    assert.equal(revision.revision, 1);
  });

  it('rolls a template change from the highest ordinal down, to the new revision', async () => {
    await h.call(
      'PATCH',
      `${apps}/statefulsets/db`,
      { spec: { template: { spec: { containers: [{ name: 'db', image: 'postgres:17' }] } } } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    let set = await get(`${apps}/statefulsets/db`);
    for (
      let n = 0;
      n < 40 && !(set.status?.updatedReplicas === 3 && set.status?.readyReplicas === 3 && set.status.currentRevision === set.status.updateRevision);
      n++
    ) {
      await step();
      set = await get(`${apps}/statefulsets/db`);
    }
    assert.equal(set.status.updatedReplicas, 3, JSON.stringify(set.status));
    const events = ((await get('/api/v1/namespaces/default/events')).items as { message: string; involvedObject: { name: string } }[])
      .filter((event) => event.involvedObject.name === 'db' && event.message.startsWith('delete'))
      .map((event) => event.message);
    assert.deepEqual(events, [
      'delete Pod db-2 in StatefulSet db successful',
      'delete Pod db-1 in StatefulSet db successful',
      'delete Pod db-0 in StatefulSet db successful',
    ]);
  });

  it('runs one DaemonSet Pod per eligible Node, bound by the scheduler through its metadata.name affinity', async () => {
    await h.call(
      'PATCH',
      '/api/v1/nodes/fogbank-node-3',
      { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } },
      { 'content-type': 'application/merge-patch+json' },
    );
    await h.call('POST', `${apps}/daemonsets`, {
      metadata: { name: 'agent' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'fluentd' }] } },
      },
    });
    const pods = await until(
      () => podsOf('app=agent'),
      (list) => list.length === 2 && list.every((pod) => pod.spec.nodeName !== undefined),
      'two bound daemon pods',
    );
    assert.deepEqual(pods.map((pod) => pod.spec.nodeName).sort(), ['fogbank-node-1', 'fogbank-node-2']);
    await step();
    await step();
    const set = await until(
      () => get(`${apps}/daemonsets/agent`),
      (object) => object.status?.numberReady === 2,
      'two ready',
    );
    assert.deepEqual(
      [set.status.desiredNumberScheduled, set.status.currentNumberScheduled, set.status.updatedNumberScheduled, set.status.numberAvailable],
      [2, 2, 2, 2],
    );
    // The taint goes: the third Node gets its Pod.
    await h.call('PATCH', '/api/v1/nodes/fogbank-node-3', { spec: { taints: null } }, { 'content-type': 'application/merge-patch+json' });
    await until(
      () => podsOf('app=agent'),
      (list) => list.length === 3,
      'three daemon pods',
    );
  });

  it('makes Parallel ordinals all at once and removes them all at once; claims kept with whenDeleted: Delete go with the set', async () => {
    await h.call('POST', `${apps}/statefulsets`, {
      metadata: { name: 'cache' },
      spec: {
        replicas: 3,
        serviceName: 'cache',
        podManagementPolicy: 'Parallel',
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        selector: { matchLabels: { app: 'cache' } },
        template: { metadata: { labels: { app: 'cache' } }, spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'cache', image: 'redis' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    // The clock stands still: no Pod is Ready, yet all three exist (OrderedReady would make cache-0 alone).
    const made = await until(
      () => podsOf('app=cache'),
      (pods) => pods.length === 3,
      'three pods at once',
    );
    assert.deepEqual(made.map((pod) => pod.metadata.name).sort(), ['cache-0', 'cache-1', 'cache-2']);
    assert.ok(made.every((pod) => pod.status.phase === 'Pending'));
    const claims = async () =>
      ((await get('/api/v1/namespaces/default/persistentvolumeclaims')).items as { metadata: { name: string } }[])
        .map((claim) => claim.metadata.name)
        .filter((name) => name.startsWith('data-cache-'))
        .sort();
    assert.deepEqual(await claims(), ['data-cache-0', 'data-cache-1', 'data-cache-2']);
    await step();
    await until(
      () => get(`${apps}/statefulsets/cache`),
      (object) => object.status?.readyReplicas === 3,
      'three ready',
    );
    // Scaled to 1: cache-2 and cache-1 are deleted together (Terminating for their 2 s grace).
    await h.call('PATCH', `${apps}/statefulsets/cache`, { spec: { replicas: 1 } }, { 'content-type': 'application/merge-patch+json' });
    const terminating = await until(
      () => podsOf('app=cache'),
      (pods) => pods.filter((pod) => pod.metadata.deletionTimestamp !== undefined).length === 2,
      'two terminating at once',
    );
    assert.deepEqual(
      terminating
        .filter((pod) => pod.metadata.deletionTimestamp !== undefined)
        .map((pod) => pod.metadata.name)
        .sort(),
      ['cache-1', 'cache-2'],
    );
    await step();
    await step();
    await until(
      () => podsOf('app=cache'),
      (pods) => pods.length === 1,
      'one left',
    );
    assert.deepEqual(await claims(), ['data-cache-0', 'data-cache-1', 'data-cache-2'], 'whenScaled: Retain keeps the claims');
    // The set goes: the garbage collector takes its Pod and, as they are owned by the set, its claims.
    assert.equal((await h.call('DELETE', `${apps}/statefulsets/cache`)).status, 200);
    await step();
    await step();
    await until(
      () => podsOf('app=cache'),
      (pods) => pods.length === 0,
      'pods collected',
    );
    await until(claims, (names) => names.length === 0, 'claims collected');
  });
});
