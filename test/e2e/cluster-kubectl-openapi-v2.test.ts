import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-openapi-v2-admin';

// A `kind: List`: kubectl's /openapi/v3 lookup does not cover List, so under the default
// --validate=strict it validates the items with the protobuf /openapi/v2 document.
const LIST = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: listed, namespace: default}
  data: {mode: listed}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: listed, namespace: default}
  spec:
    selector:
      matchLabels: {app: listed}
    template:
      metadata:
        labels: {app: listed}
      spec:
        volumes:
        - name: scratch
        containers:
        - name: c
          image: busybox
          volumeMounts: [{name: scratch, mountPath: /scratch}]
`;

const LIST_WITH_UNKNOWN_FIELD = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: bogus, namespace: default}
  spec:
    bogus: 1
    selector:
      matchLabels: {app: bogus}
    template:
      metadata:
        labels: {app: bogus}
      spec:
        containers: [{name: c, image: busybox}]
`;

describe('OpenAPI v2 with the real kubectl: a kind: List under default validation', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const file = (name: string, text: string): string => {
    const path = join(kubectl.dir, name);
    writeFileSync(path, text);
    return path;
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = await Kubectl.overHttps(server, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('kubectl apply -f and create -f of a List work without --validate=false', async () => {
    const applied = await kubectl.run(['apply', '-f', file('list.yaml', LIST)]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /configmap\/listed created/);
    assert.match(applied.stdout, /deployment\.apps\/listed created/);
    const again = await kubectl.run(['apply', '-f', file('list.yaml', LIST)]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /configmap\/listed unchanged/);
    await kubectl.run(['delete', 'configmap', 'listed']);
    const created = await kubectl.run(['create', '-f', file('list-create.yaml', LIST.split('\n- apiVersion: apps/v1')[0] ?? '')]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /configmap\/listed created/);
  });

  it('the volume without a source was defaulted to emptyDir (SetDefaults_Volume)', async () => {
    const volumes = await kubectl.run(['get', 'deployment', 'listed', '-o', 'jsonpath={.spec.template.spec.volumes}']);
    assert.equal(volumes.code, 0, volumes.stderr);
    assert.deepEqual(JSON.parse(volumes.stdout), [{ emptyDir: {}, name: 'scratch' }]);
  });

  it("validates the List's items against the v2 schemas client-side", async () => {
    const refused = await kubectl.run(['apply', '-f', file('bogus.yaml', LIST_WITH_UNKNOWN_FIELD)]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /unknown field "bogus" in io\.k8s\.api\.apps\.v1\.DeploymentSpec/);
    const absent = await kubectl.run(['get', 'deployment', 'bogus']);
    assert.notEqual(absent.code, 0);
  });

  it('kubectl explain --output=plaintext-openapiv2 reads the v2 document', async () => {
    const explained = await kubectl.run(['explain', 'deployment.spec.replicas', '--output=plaintext-openapiv2']);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /FIELD:\s+replicas <integer>/);
  });
});
