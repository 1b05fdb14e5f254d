import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-workloads-admin';

describe('kubectl against --workloads simulate: a Deployment rolls out, scales, updates and rolls back as on a real cluster', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const ok = async (args: string[]) => {
    const result = await kubectl.run(args);
    assert.equal(result.code, 0, `kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  const image = async () => (await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'])).trim();

  before(async () => {
    // The clock runs: Pods are Ready 200 ms after they are bound; replaced ones stay Terminating for their 30 s grace (rollout status does not wait for them).
    server = await startFogbank({ adminToken: TOKEN, workloads: 'simulate', nodes: 3, podReadyDelayMs: 200 });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('create deployment --replicas=3, then rollout status succeeds and get pods -o wide shows three Running Pods on the fake Nodes', async () => {
    assert.equal(await ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=3']), 'deployment.apps/web created\n');
    const status = await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    assert.match(status, /deployment "web" successfully rolled out\n$/);
    const lines = (await ok(['get', 'pods', '-o', 'wide', '--no-headers'])).trim().split('\n');
    assert.equal(lines.length, 3, lines.join('\n'));
    for (const line of lines) {
      const [name, ready, phase, restarts, , ip, node] = line.split(/\s+/);
      assert.match(name ?? '', /^web-[456789bcdf]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual([ready, phase, restarts], ['1/1', 'Running', '0']);
      assert.match(ip ?? '', /^10\.244\.[123]\.\d+$/);
      assert.match(node ?? '', /^fogbank-node-[123]$/);
    }
    const nodes = await ok(['get', 'nodes', '--no-headers']);
    assert.equal(nodes.trim().split('\n').length, 3);
    assert.match(nodes, /^fogbank-node-1\s+Ready\s+agent\s+\S+\s+v1\.32\.0$/m);
    assert.match(await ok(['get', 'deployment', 'web', '--no-headers']), /^web\s+3\/3\s+3\s+3\s+/);
    assert.match(await ok(['wait', '--for=condition=Available', 'deployment/web', '--timeout=30s']), /deployment\.apps\/web condition met/);
  });

  it('scale, a rolling image update and rollout undo behave as on a real cluster', async () => {
    assert.equal(await ok(['scale', 'deployment/web', '--replicas=5']), 'deployment.apps/web scaled\n');
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out\n$/);
    assert.match(await ok(['get', 'deployment', 'web', '--no-headers']), /^web\s+5\/5\s+5\s+5\s+/);
    // With the clock frozen no new Pod gets Ready: rollout status waits, and finishes once the clock runs again.
    server.control.clock.freeze();
    assert.equal(await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.27']), 'deployment.apps/web image updated\n');
    const watching = ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    server.control.clock.unfreeze();
    const rolling = await watching;
    assert.match(
      rolling,
      /Waiting for deployment "web" rollout to finish: \d+ (out of 5 new replicas have been updated|old replicas are pending termination|of 5 updated replicas are available)\.\.\./,
    );
    assert.match(rolling, /deployment "web" successfully rolled out\n$/);
    assert.equal(await image(), 'nginx:1.27');
    const history = await ok(['rollout', 'history', 'deployment/web']);
    assert.match(history, /^REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/m);
    assert.equal(await ok(['rollout', 'undo', 'deployment/web']), 'deployment.apps/web rolled back\n');
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out\n$/);
    assert.equal(await image(), 'nginx');
    assert.match(await ok(['rollout', 'history', 'deployment/web']), /^2\s+<none>\n3\s+<none>\n$/m);
    const sets = (await ok(['get', 'rs', '--no-headers'])).trim().split('\n');
    assert.equal(sets.length, 2, 'undo reuses the first ReplicaSet');
    const events = await ok([
      'get',
      'events',
      '--field-selector',
      'involvedObject.kind=Deployment',
      '-o',
      'custom-columns=REASON:.reason,MESSAGE:.message',
      '--no-headers',
    ]);
    assert.match(events, /ScalingReplicaSet\s+Scaled up replica set web-\S+ from 0 to 3/);
    assert.match(events, /ScalingReplicaSet\s+Scaled down replica set web-\S+ from \d to \d/);
  });

  it('rollout pause holds a template change, resume rolls it out, restart makes a new revision', async () => {
    assert.equal(await ok(['rollout', 'pause', 'deployment/web']), 'deployment.apps/web paused\n');
    await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.28']);
    const progressing = await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")].reason}']);
    assert.match(progressing, /DeploymentPaused|NewReplicaSetAvailable/);
    assert.equal((await ok(['get', 'rs', '--no-headers'])).trim().split('\n').length, 2, 'no rollout while paused');
    assert.equal(await ok(['rollout', 'resume', 'deployment/web']), 'deployment.apps/web resumed\n');
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out\n$/);
    assert.equal(await ok(['rollout', 'restart', 'deployment/web']), 'deployment.apps/web restarted\n');
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out\n$/);
    assert.equal((await ok(['get', 'rs', '--no-headers'])).trim().split('\n').length, 4);
  });

  it('an unschedulable Pod stays Pending with the FailedScheduling event kubectl describe shows', async () => {
    await ok(['run', 'picky', '--image=nginx', '--overrides={"spec":{"nodeSelector":{"disk":"ssd"}}}']);
    let described = '';
    for (let attempt = 0; attempt < 100 && !described.includes('FailedScheduling'); attempt++) {
      described = await ok(['describe', 'pod', 'picky']);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(described, /Status:\s+Pending/);
    assert.match(
      described,
      /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./,
    );
  });
});
