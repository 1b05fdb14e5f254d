import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-apiservices-admin';

const METRICS_API_SERVICE = `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  service:
    name: metrics-server
    namespace: kube-system
  group: metrics.k8s.io
  version: v1beta1
  insecureSkipTLSVerify: true
  groupPriorityMinimum: 100
  versionPriority: 100
`;

/** rows splits kubectl's table output into rows of cells (two or more spaces apart). */
function rows(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('APIServices with the real kubectl', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = await Kubectl.overHttps(server, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('kubectl get apiservices lists the local APIService of every served group-version', async () => {
    const listed = await kubectl.run(['get', 'apiservices']);
    assert.equal(listed.code, 0, listed.stderr);
    const table = rows(listed.stdout);
    assert.deepEqual(table[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const byName = new Map(table.slice(1).map((row) => [row[0], row]));
    for (const name of ['v1.', 'v1.apps', 'v1.batch', 'v2.autoscaling', 'v1.rbac.authorization.k8s.io', 'v1.storage.k8s.io']) {
      assert.deepEqual(byName.get(name)?.slice(1, 3), ['Local', 'True'], `${name} is Local and Available`);
    }
    const apiVersions = await kubectl.run(['api-versions']);
    assert.match(apiVersions.stdout, /^apiregistration\.k8s\.io\/v1$/m);
    assert.doesNotMatch(apiVersions.stdout, /resource\.k8s\.io/);
  });

  it('a Service-backed APIService is created, shown unavailable (no Service) and deleted', async () => {
    const path = join(kubectl.dir, 'metrics.yaml');
    writeFileSync(path, METRICS_API_SERVICE);
    const applied = await kubectl.run(['apply', '-f', path]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /apiservice\.apiregistration\.k8s\.io\/v1beta1\.metrics\.k8s\.io created/);
    let row: string[] | undefined;
    for (let attempt = 0; attempt < 50 && row?.[2] !== 'False (ServiceNotFound)'; attempt++) {
      row = rows((await kubectl.run(['get', 'apiservice', 'v1beta1.metrics.k8s.io', '--no-headers'])).stdout)[0];
    }
    assert.deepEqual(row?.slice(0, 3), ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (ServiceNotFound)']);
    const message = await kubectl.run(['get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'jsonpath={.status.conditions[0].message}']);
    assert.equal(message.stdout, 'service/metrics-server in "kube-system" is not present');
    const deleted = await kubectl.run(['delete', 'apiservice', 'v1beta1.metrics.k8s.io']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /apiservice\.apiregistration\.k8s\.io "v1beta1\.metrics\.k8s\.io" deleted/);
  });
});
