import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { advanceFiring } from '../../../lib/controlled-clock.ts';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';
import { fenceposts, resolveIntOrPercent } from './deployments.ts';
import { podTemplateHash, sameTemplate } from './pod-template-hash.ts';

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 500; attempt++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

const deployment = (name: string, replicas: number, image = 'nginx:1.27') => ({
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
  },
});

describe('rolling-update arithmetic and the pod-template-hash', () => {
  it('rounds maxSurge up and maxUnavailable down, and makes both-zero unavailable 1', () => {
    assert.equal(resolveIntOrPercent('25%', 3, true), 1);
    assert.equal(resolveIntOrPercent('25%', 3, false), 0);
    assert.equal(resolveIntOrPercent('25%', 10, true), 3);
    assert.equal(resolveIntOrPercent('25%', 10, false), 2);
    assert.deepEqual(fenceposts({ metadata: {}, spec: { replicas: 3, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } } } as never), {
      surge: 0,
      unavailable: 1,
    });
  });

  it("writes the hash in rand.SafeEncodeString's alphabet, stable, and compares templates ignoring it", () => {
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
    const hash = podTemplateHash(template, undefined);
    assert.match(hash, /^[456789bcdf]{1,10}$/);
    assert.equal(podTemplateHash(structuredClone(template), undefined), hash);
    assert.notEqual(podTemplateHash(template, 1), hash);
    assert.ok(sameTemplate(template, { ...template, metadata: { labels: { app: 'web', 'pod-template-hash': hash }, creationTimestamp: null } }));
    assert.ok(!sameTemplate(template, { ...template, spec: { containers: [{ name: 'web', image: 'nginx:2' }] } }));
  });
});

describe('--workloads simulate: Deployment → ReplicaSet → Pods', () => {
  let h: ClusterHarness;
  const get = async (path: string) => (await h.call('GET', path)).body;
  const advance = (ms: number) => advanceFiring(h.control.clock, h.control.timers, ms);
  const ns = '/apis/apps/v1/namespaces/default';
  const rsOf = async (name: string) =>
    (
      (await get(`${ns}/replicasets`)).items as {
        metadata: { name: string; annotations: Record<string, string>; ownerReferences: unknown[] };
        spec: { replicas: number };
      }[]
    )
      .filter((rs) => rs.metadata.name.startsWith(`${name}-`))
      .sort(
        (a, b) => Number(a.metadata.annotations['deployment.kubernetes.io/revision']) - Number(b.metadata.annotations['deployment.kubernetes.io/revision']),
      );
  const podsOf = async (name: string) =>
    (await get(`/api/v1/namespaces/default/pods?labelSelector=app=${name}`)).items as {
      metadata: { name: string; deletionTimestamp?: string; labels: Record<string, string> };
      spec: { containers: { image: string }[] };
      status: { phase: string };
    }[];
  /** settle advances the clock a step at a time until the Deployment's rollout is complete. */
  const rolledOut = async (name: string, replicas: number) => {
    for (let step = 0; step < 30; step++) {
      const current = await get(`${ns}/deployments/${name}`);
      const status = current.status ?? {};
      if (
        current.metadata.generation <= (status.observedGeneration ?? 0) &&
        (status.updatedReplicas ?? 0) === replicas &&
        (status.replicas ?? 0) === replicas &&
        (status.availableReplicas ?? 0) === replicas
      )
        return current;
      await advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail(`${name} did not roll out: ${JSON.stringify((await get(`${ns}/deployments/${name}`)).status)}`);
  };

  before(async () => {
    h = await startHarness({ workloads: 'simulate', nodes: 3, podReadyDelayMs: 1000 });
    h.control.clock.freeze();
  });
  after(() => h.close());

  it('creates the ReplicaSet <name>-<hash> with the revision annotations and a controller reference, and its Pods', async () => {
    assert.equal((await h.call('POST', `${ns}/deployments`, deployment('web', 3))).status, 201);
    const rolled = await rolledOut('web', 3);
    const [rs] = await rsOf('web');
    assert.ok(rs);
    const hash = (rs as unknown as { spec: { template: { metadata: { labels: Record<string, string> } } } }).spec.template.metadata.labels['pod-template-hash'];
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.deepEqual(
      {
        revision: rs.metadata.annotations['deployment.kubernetes.io/revision'],
        desired: rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'],
        max: rs.metadata.annotations['deployment.kubernetes.io/max-replicas'],
      },
      { revision: '1', desired: '3', max: '4' },
    );
    assert.deepEqual(rs.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: rolled.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.equal(rolled.metadata.annotations['deployment.kubernetes.io/revision'], '1');
    const conditions = Object.fromEntries(
      (rolled.status.conditions as { type: string; status: string; reason: string; message: string }[]).map((condition) => [
        condition.type,
        [condition.status, condition.reason, condition.message],
      ]),
    );
    assert.deepEqual(conditions, {
      Available: ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      Progressing: ['True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
    });
    const pods = await podsOf('web');
    assert.equal(pods.length, 3);
    for (const pod of pods) {
      assert.match(pod.metadata.name, new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      assert.equal(pod.metadata.labels['pod-template-hash'], hash);
      assert.equal(pod.status.phase, 'Running');
    }
    const events = ((await get('/api/v1/namespaces/default/events')).items as { reason: string; message: string; involvedObject: { name: string } }[])
      .filter((event) => event.involvedObject.name === 'web')
      .map((event) => `${event.reason}: ${event.message}`);
    assert.deepEqual(events, [`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 3`]);
  });

  it('rolls an image change out within maxSurge 1 / maxUnavailable 0, keeps the old ReplicaSet at 0, and rolls back to it with a new revision', async () => {
    const [first] = await rsOf('web');
    await h.call(
      'PATCH',
      `${ns}/deployments/web`,
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    // Watch the rollout step by step: never more than 4 Pods, never fewer than 3 available.
    for (let step = 0; step < 30; step++) {
      const status = (await get(`${ns}/deployments/web`)).status;
      const active = (await podsOf('web')).filter((pod) => pod.metadata.deletionTimestamp === undefined);
      assert.ok(active.length <= 4, `surge: ${active.length} pods`);
      assert.ok((status.availableReplicas ?? 0) >= 3 || status.observedGeneration !== 2, `availability: ${JSON.stringify(status)}`);
      if (status.updatedReplicas === 3 && status.replicas === 3 && status.availableReplicas === 3 && status.observedGeneration === 2) break;
      await advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const rolled = await rolledOut('web', 3);
    const sets = await rsOf('web');
    assert.equal(sets.length, 2);
    assert.equal(sets[0]?.metadata.name, first?.metadata.name);
    assert.equal(sets[0]?.spec.replicas, 0);
    assert.equal(sets[1]?.spec.replicas, 3);
    assert.equal(rolled.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    const events = ((await get('/api/v1/namespaces/default/events')).items as { reason: string; message: string; involvedObject: { name: string } }[])
      .filter((event) => event.involvedObject.name === 'web')
      .map((event) => event.message)
      .slice(1);
    const [older, newer] = [sets[0]?.metadata.name, sets[1]?.metadata.name];
    assert.deepEqual(events, [
      `Scaled up replica set ${newer} from 0 to 1`,
      `Scaled down replica set ${older} from 3 to 2`,
      `Scaled up replica set ${newer} from 1 to 2`,
      `Scaled down replica set ${older} from 2 to 1`,
      `Scaled up replica set ${newer} from 2 to 3`,
      `Scaled down replica set ${older} from 1 to 0`,
    ]);
    // kubectl rollout undo: the old template back (kubectl's JSON patch, without the hash label).
    await h.call('PATCH', `${ns}/deployments/web`, [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' }], {
      'content-type': 'application/json-patch+json',
    });
    await rolledOut('web', 3);
    const after = await rsOf('web');
    assert.equal(after.length, 2, 'the old ReplicaSet is reused');
    assert.equal(after[1]?.metadata.name, first?.metadata.name);
    assert.equal(after[1]?.metadata.annotations['deployment.kubernetes.io/revision'], '3');
    assert.equal(after[1]?.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    assert.ok(
      (await podsOf('web')).filter((pod) => pod.metadata.deletionTimestamp === undefined).every((pod) => pod.spec.containers[0]?.image === 'nginx:1.27'),
    );
  });

  it('scales, and a paused Deployment scales without rolling out (Progressing Unknown DeploymentPaused)', async () => {
    await h.call('PATCH', `${ns}/deployments/web/scale`, { spec: { replicas: 5 } }, { 'content-type': 'application/merge-patch+json' });
    await rolledOut('web', 5);
    await h.call('PATCH', `${ns}/deployments/web`, { spec: { paused: true } }, { 'content-type': 'application/merge-patch+json' });
    await h.call(
      'PATCH',
      `${ns}/deployments/web`,
      { spec: { replicas: 2, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.29' }] } } } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    const paused = await until(
      () => get(`${ns}/deployments/web`),
      (object) => object.status.observedGeneration === object.metadata.generation && object.status.replicas === 2,
      'paused and scaled',
    );
    const progressing = (paused.status.conditions as { type: string; status: string; reason: string }[]).find((condition) => condition.type === 'Progressing');
    assert.deepEqual([progressing?.status, progressing?.reason], ['Unknown', 'DeploymentPaused']);
    assert.equal((await rsOf('web')).length, 2, 'no new ReplicaSet while paused');
    await h.call('PATCH', `${ns}/deployments/web`, { spec: { paused: false } }, { 'content-type': 'application/merge-patch+json' });
    await rolledOut('web', 2);
    assert.equal((await rsOf('web')).length, 3);
  });

  it('marks a rollout that makes no progress for progressDeadlineSeconds of the clock ProgressDeadlineExceeded', async () => {
    const stuck = deployment('stuck', 1);
    Object.assign(stuck.spec, { progressDeadlineSeconds: 30 });
    Object.assign(stuck.spec.template.spec, { nodeSelector: { disk: 'none-has-it' } });
    assert.equal((await h.call('POST', `${ns}/deployments`, stuck)).status, 201);
    const progressing = async () =>
      ((await get(`${ns}/deployments/stuck`)).status?.conditions ?? []).find((condition: { type: string }) => condition.type === 'Progressing') as
        | { status: string; reason: string; message: string }
        | undefined;
    const started = await until(progressing, (condition) => condition?.status === 'True', 'progressing');
    const [rs] = await rsOf('stuck');
    assert.ok(rs);
    // NewReplicaSetCreated, then ReplicaSetUpdated once the ReplicaSet counts its Pod, as upstream.
    assert.match(String(started?.reason), /^(NewReplicaSetCreated|ReplicaSetUpdated)$/);
    // The Pod cannot be scheduled; 29 s on, the deadline is not reached; past 30 s it is.
    await advance(29_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await progressing())?.status, 'True');
    await advance(2000);
    const exceeded = await until(progressing, (condition) => condition?.status === 'False', 'deadline exceeded');
    assert.deepEqual([exceeded?.reason, exceeded?.message], ['ProgressDeadlineExceeded', `ReplicaSet "${rs.metadata.name}" has timed out progressing.`]);
    assert.equal((await h.call('DELETE', `${ns}/deployments/stuck`)).status, 200);
  });

  it('runs a ReplicaSet and a ReplicationController on their own, adopting matching orphan Pods', async () => {
    await h.call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'orphan', labels: { app: 'solo' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    });
    await h.call('POST', `${ns}/replicasets`, {
      metadata: { name: 'solo' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'solo' } },
        template: { metadata: { labels: { app: 'solo' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    const rs = await until(
      () => get(`${ns}/replicasets/solo`),
      (object) => object.status?.replicas === 2,
      'two replicas',
    );
    const pods = await podsOf('solo');
    assert.equal(pods.length, 2);
    const orphan = await get('/api/v1/namespaces/default/pods/orphan');
    assert.equal(orphan.metadata.ownerReferences[0].uid, rs.metadata.uid, 'adopted');
    await h.call('POST', '/api/v1/namespaces/default/replicationcontrollers', {
      metadata: { name: 'legacy' },
      spec: {
        replicas: 2,
        selector: { app: 'legacy' },
        template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    });
    await advance(1000);
    const rc = await until(
      () => get('/api/v1/namespaces/default/replicationcontrollers/legacy'),
      (object) => object.status?.readyReplicas === 2,
      'two ready',
    );
    assert.deepEqual([rc.status.replicas, rc.status.availableReplicas, rc.status.observedGeneration], [2, 2, 1]);
    const rcEvents = (
      (await get('/api/v1/namespaces/default/events')).items as { reason: string; source: { component: string }; involvedObject: { name: string } }[]
    )
      .filter((event) => event.involvedObject.name === 'legacy')
      .map((event) => `${event.source.component} ${event.reason}`);
    assert.deepEqual(rcEvents, ['replication-controller SuccessfulCreate', 'replication-controller SuccessfulCreate']);
  });
});
