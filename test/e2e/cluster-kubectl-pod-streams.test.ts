import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-pod-streams-admin';

describe('kubectl logs, exec and port-forward where no container runs', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    // Over HTTPS, as a cluster's user runs it: kubectl's WebSocket exec has no plain-HTTP form (ws from http fails in the client).
    kubectl = await Kubectl.overHttps(server, TOKEN);
    const pods = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: pending}',
      'spec: {containers: [{name: app, image: nginx}]}',
      '---',
      'apiVersion: v1',
      'kind: Pod',
      'metadata: {name: bound}',
      'spec: {nodeName: node-1, containers: [{name: app, image: nginx}]}',
      '',
    ].join('\n');
    const applied = await kubectl.run(['apply', '-f', '-'], { input: pods });
    assert.equal(applied.code, 0, applied.stderr);
    const running = {
      status: { phase: 'Running', containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] },
    };
    const patched = await kubectl.run(['patch', 'pod', 'bound', '--subresource=status', '--type=merge', '-p', JSON.stringify(running)]);
    assert.equal(patched.code, 0, patched.stderr);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('kubectl logs prints nothing for a Pod on no node and for a running container; a waiting one is the kubelet refusal', async () => {
    const pending = await kubectl.run(['logs', 'pending']);
    assert.deepEqual([pending.code, pending.stdout], [0, ''], pending.stderr);
    const bound = await kubectl.run(['logs', 'bound', '-f']);
    assert.deepEqual([bound.code, bound.stdout], [0, ''], bound.stderr);
    const waiting = {
      status: {
        containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
      },
    };
    assert.equal((await kubectl.run(['patch', 'pod', 'bound', '--subresource=status', '--type=merge', '-p', JSON.stringify(waiting)])).code, 0);
    const refused = await kubectl.run(['logs', 'bound']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'Error from server (BadRequest): container "app" in pod "bound" is waiting to start: ContainerCreating\n');
  });

  it('kubectl exec: no host assigned, or the kubelet has no such container', async () => {
    const pending = await kubectl.run(['exec', 'pending', '--', 'ls']);
    assert.equal(pending.code, 1);
    assert.match(pending.stderr, /pod pending does not have a host assigned/);
    const bound = await kubectl.run(['exec', 'bound', '--', 'ls']);
    assert.equal(bound.code, 1);
    assert.match(bound.stderr, /container not found \("app"\)/);
  });

  it('kubectl port-forward: a Pending Pod is refused by kubectl; a running one gets the kubelet\'s "pod not found" (after its WebSocket-to-SPDY fallback)', async () => {
    const pending = await kubectl.run(['port-forward', 'pod/pending', '0:80']);
    assert.equal(pending.code, 1);
    assert.equal(pending.stderr, 'error: unable to forward port because pod is not running. Current status=Pending\n');
    const bound = await kubectl.run(['port-forward', 'pod/bound', '0:80']);
    assert.equal(bound.code, 1);
    assert.equal(bound.stderr, 'error: error upgrading connection: unable to upgrade connection: pod not found ("bound_default")\n');
  });
});
