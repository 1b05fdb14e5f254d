import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const ADMIN = 'kubectl-faults-admin';

describe('kubectl through injected cluster faults', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;

  before(async () => {
    server = await startFogbank({ ephemeral: true, adminToken: ADMIN });
    await server.warmUp();
    kubectl = new Kubectl(server.url, ADMIN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('gets a ClusterRole after one injected 429 with Retry-After (client-go retries it)', async () => {
    await server.faults.add({ method: 'get clusterroles', status: 429, retryAfter: 1, times: 1 });
    const result = await kubectl.run(['get', 'clusterrole', 'admin', '-o', 'name']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'clusterrole.rbac.authorization.k8s.io/admin\n');
    assert.equal(result.stderr, '');
    assert.deepEqual(server.faults.list(), [], 'the 429 was answered once');
  });

  it('lists ClusterRoles after one injected 429 with Retry-After on the list', async () => {
    await server.faults.add({ method: 'list clusterroles', status: 429, retryAfter: 1, times: 1 });
    const result = await kubectl.run(['get', 'clusterroles', '-o', 'name']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^clusterrole\.rbac\.authorization\.k8s\.io\/admin$/m);
    assert.deepEqual(server.faults.list(), []);
  });

  it('fails at once on a 429 without Retry-After, with the Status message', async () => {
    await server.faults.add({ method: 'get clusterroles', status: 429, times: 1 });
    const result = await kubectl.run(['get', 'clusterrole', 'admin']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'Error from server (TooManyRequests): Too many requests, please try again later.\n');
  });

  it('fails with the ServiceUnavailable Status of an injected 503', async () => {
    await server.faults.add({ method: 'get clusterroles', status: 503, message: 'etcd is unavailable', times: 1 });
    const result = await kubectl.run(['get', 'clusterrole', 'admin']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'Error from server (ServiceUnavailable): etcd is unavailable\n');
  });
});
