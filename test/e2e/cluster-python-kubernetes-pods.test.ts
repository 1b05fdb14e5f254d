// Debian's python3-kubernetes against --workloads simulate (issue 38 Must show): what the Python
// client's own e2e tests test_pod_apis, test_exit_code and test_portforward_http do, up to where
// fogbank stops. They create a Pod and poll read_namespaced_pod until it runs — here it does,
// bound to a fake Node with an IP and a running, ready container — then exec into it and
// port-forward to it, which no container answers: the upgrade is refused as a kubelet whose
// runtime holds no container refuses it (500, `container not found ("sleep")`, `pod not found
// ("<pod>_default")`), so the WebSocket handshake fails with 500.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientPath, skipUnless } from '../harness/clients.ts';
import { REPO } from '../harness/paths.ts';
import { spawnOwned, withTimeout } from '../harness/process.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'python-kubernetes-pods-admin';
const SCRIPT = join(REPO, 'test/e2e/python/kubernetes_pod_running.py');

describe('python3-kubernetes waits for a Pod to run with --workloads simulate', { skip: skipUnless('python3-kubernetes') }, () => {
  let server: RunningFogbank;
  before(async () => {
    server = await startFogbank({ adminToken: TOKEN, workloads: 'simulate', podReadyDelayMs: 300 });
  });
  after(async () => server.close());

  it('polls read_namespaced_pod until Running, with the container status and IP; exec and port-forward are refused as no container runs', async () => {
    const python = spawnOwned(clientPath('python3-kubernetes'), [SCRIPT, server.kubeconfigFile!, 'busybox-test'], {
      // PYTHONNOUSERSITE and a clean environment keep it to Debian's packages.
      env: { PATH: process.env['PATH'], HOME: server.dataDir!, PYTHONNOUSERSITE: '1' },
    });
    const exit = await withTimeout(python.exited, 120_000, `the Python client to finish; stderr:\n${python.stderr()}`);
    assert.equal(exit, 0, python.stderr());
    const result = JSON.parse(python.lines.at(-1) ?? 'null');
    assert.equal(result.account, 'default');
    assert.deepEqual(result.phases, ['Pending', 'Running']);
    assert.equal(result.node, 'fogbank-node-1');
    assert.match(result.podIP, /^10\.244\.1\.\d+$/);
    assert.deepEqual(result.podIPs, [result.podIP]);
    assert.equal(result.hostIP, '172.18.0.2');
    assert.deepEqual(result.conditions, { Initialized: 'True', Ready: 'True', ContainersReady: 'True', PodScheduled: 'True' });
    assert.deepEqual(result.container, { name: 'sleep', image: 'busybox', ready: true, started: true, restartCount: 0, runningSince: true });
    // The client's stream()/portforward() raise ApiException(status=0) with the handshake's status line.
    const handshake = { status: 0, reason: 'Handshake status 500 Internal Server Error', body: null };
    assert.deepEqual(result.execStream, handshake);
    assert.deepEqual(result.portForwardStream, handshake);
    assert.deepEqual(result.exec, { status: 500, reason: 'Internal Server Error', body: 'container not found ("sleep")' });
    assert.deepEqual(result.portForward, { status: 500, reason: 'Internal Server Error', body: 'pod not found ("busybox-test_default")' });
    assert.equal(result.listed, true);
    // A running Pod's deletion is graceful: 30 s by default, on fogbank's clock.
    assert.deepEqual(result.deleted, { terminating: true, grace: 30 });
  });
});
