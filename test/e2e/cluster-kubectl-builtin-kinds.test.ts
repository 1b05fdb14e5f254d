import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-builtin-admin';

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  mode: production
`;

const POD_AND_EVENT = `apiVersion: v1
kind: Pod
metadata: {name: x, namespace: shop}
spec:
  containers: [{name: c, image: busybox}]
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: x.1, namespace: shop}
eventTime: "2020-01-01T00:00:00.000000Z"
reportingController: example.com/puller
reportingInstance: puller-1
action: Pulling
reason: Pulling
note: Pulling image busybox
type: Normal
regarding: {kind: Pod, name: x, namespace: shop, apiVersion: v1}
`;

/** columns splits kubectl's table output into rows of cells (two or more spaces apart). */
function rows(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('built-in kinds with the real kubectl: discovery, create, apply, tables, cascade, cluster-info, events, explain', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  const file = (name: string, text: string): string => {
    const path = join(kubectl.dir, name);
    writeFileSync(path, text);
    return path;
  };
  const ok = async (args: string[]) => {
    const result = await kubectl.run(args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = await Kubectl.overHttps(server, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  it('api-resources lists every group, and --namespaced=true the namespaced kinds', async () => {
    const all = rows(await ok(['api-resources']));
    assert.deepEqual(all[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    const versions = new Set(all.slice(1).map((row) => row[row.length - 3]));
    for (const groupVersion of [
      'v1',
      'admissionregistration.k8s.io/v1',
      'apiregistration.k8s.io/v1',
      'apps/v1',
      'autoscaling/v2',
      'batch/v1',
      'certificates.k8s.io/v1',
      'coordination.k8s.io/v1',
      'discovery.k8s.io/v1',
      'events.k8s.io/v1',
      'flowcontrol.apiserver.k8s.io/v1',
      'networking.k8s.io/v1',
      'node.k8s.io/v1',
      'policy/v1',
      'rbac.authorization.k8s.io/v1',
      'scheduling.k8s.io/v1',
      'storage.k8s.io/v1',
    ]) {
      assert.ok(versions.has(groupVersion), `${groupVersion} listed`);
    }
    // Beta APIs are off in a default 1.32 apiserver.
    assert.ok(![...versions].some((groupVersion) => groupVersion?.includes('beta')), 'no beta group-version');
    assert.deepEqual(
      all.find((row) => row[0] === 'deployments'),
      ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment'],
    );
    const namespaced = rows(await ok(['api-resources', '--namespaced=true', '-o', 'name']));
    const names = namespaced.map((row) => row[0]);
    assert.ok(names.includes('pods'));
    assert.ok(names.includes('deployments.apps'));
    assert.ok(!names.includes('nodes'));
    assert.ok(!names.includes('namespaces'));
  });

  it('kubectl create of each common kind, and their tables', async () => {
    assert.equal(await ok(['create', 'namespace', 'tools']), 'namespace/tools created\n');
    assert.equal(await ok(['create', 'deployment', 'web', '--image=nginx', '-n', 'tools']), 'deployment.apps/web created\n');
    assert.equal(await ok(['create', 'configmap', 'cfg', '--from-literal=a=b', '-n', 'tools']), 'configmap/cfg created\n');
    assert.equal(await ok(['create', 'secret', 'generic', 'pw', '--from-literal=password=s3cret', '-n', 'tools']), 'secret/pw created\n');
    assert.equal(await ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', 'tools']), 'service/web created\n');
    assert.equal(await ok(['create', 'job', 'once', '--image=busybox', '-n', 'tools']), 'job.batch/once created\n');
    const tables = rows(await ok(['get', 'deploy,svc,cm,secret,jobs', '-n', 'tools']));
    const byName = new Map(tables.map((row) => [row[0], row]));
    assert.deepEqual(byName.get('deployment.apps/web')?.slice(0, 4), ['deployment.apps/web', '0/1', '0', '0']);
    // The first dynamic address above the band kept for static ones.
    assert.deepEqual(byName.get('service/web')?.slice(0, 5), ['service/web', 'ClusterIP', '10.96.1.0', '<none>', '80/TCP']);
    assert.deepEqual(byName.get('configmap/cfg')?.slice(0, 2), ['configmap/cfg', '1']);
    assert.deepEqual(byName.get('secret/pw')?.slice(0, 3), ['secret/pw', 'Opaque', '1']);
    assert.deepEqual(byName.get('job.batch/once')?.slice(0, 3), ['job.batch/once', 'Running', '0/1']);
    const secret = JSON.parse(await ok(['get', 'secret', 'pw', '-n', 'tools', '-o', 'json']));
    assert.equal(Buffer.from(secret.data.password, 'base64').toString(), 's3cret');
    const deployment = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'tools', '-o', 'json']));
    assert.equal(deployment.metadata.generation, 1);
    assert.deepEqual(deployment.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(deployment.spec.template.spec.containers[0].imagePullPolicy, 'Always');
  });

  it('apply -f of a multi-document manifest, get all -n, pods,svc,deploy tables, events --for, then delete ns cascades', async () => {
    const applied = await ok(['apply', '-f', file('shop.yaml', MANIFEST)]);
    assert.equal(applied, 'namespace/shop created\ndeployment.apps/web created\nservice/web created\nconfigmap/settings created\n');
    assert.equal(await ok(['apply', '-f', file('pod.yaml', POD_AND_EVENT)]), 'pod/x created\nevent.events.k8s.io/x.1 created\n');
    const everything = await ok(['get', 'all', '-n', 'shop']);
    assert.match(everything, /^NAME +READY +STATUS +RESTARTS +AGE\npod\/x +0\/1 +Pending +0 +\S+\n/);
    assert.match(everything, /\nNAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE\nservice\/web +ClusterIP +10\.96\.\d+\.\d+ +<none> +80\/TCP +\S+\n/);
    assert.match(everything, /\nNAME +READY +UP-TO-DATE +AVAILABLE +AGE\ndeployment\.apps\/web +0\/2 +0 +0 +\S+\n$/);
    const three = rows(await ok(['get', 'pods,svc,deploy', '-n', 'shop', '-o', 'wide']));
    assert.deepEqual(three[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    const events = rows(await ok(['events', '-n', 'shop', '--for=pod/x']));
    assert.deepEqual(events[0], ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    assert.deepEqual(events[1]?.slice(1), ['Normal', 'Pulling', 'Pod/x', 'Pulling image busybox']);
    assert.equal(
      await ok(['apply', '-f', file('shop.yaml', MANIFEST)]),
      'namespace/shop unchanged\ndeployment.apps/web unchanged\nservice/web unchanged\nconfigmap/settings unchanged\n',
    );
    assert.equal(await ok(['delete', 'ns', 'shop']), 'namespace "shop" deleted\n');
    const gone = await kubectl.run(['get', 'all,cm', '-n', 'shop']);
    assert.equal(gone.stderr, 'No resources found in shop namespace.\n');
  });

  it('cluster-info finds the control plane; rollout status says honestly that nothing rolls a Deployment out', async () => {
    const info = await ok(['cluster-info']);
    assert.equal(
      info,
      `Kubernetes control plane is running at ${server.httpsUrl}\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`,
    );
    const service = JSON.parse(await ok(['get', 'svc', 'kubernetes', '-n', 'default', '-o', 'json']));
    assert.equal(service.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(service.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
    await ok(['create', 'deployment', 'idle', '--image=nginx']);
    // No deployment controller: status.observedGeneration never catches up with the spec.
    const rollout = await kubectl.run(['rollout', 'status', 'deployment/idle', '--timeout=1s']);
    assert.equal(rollout.stdout, 'Waiting for deployment spec update to be observed...\n');
    assert.equal(rollout.stderr, 'error: timed out waiting for the condition\n');
    assert.equal(rollout.code, 1);
    // Writing the status a controller would write, through the status subresource, completes it.
    const status = { status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 } };
    assert.equal(await ok(['patch', 'deploy', 'idle', '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]), 'deployment.apps/idle patched\n');
    assert.equal(await ok(['rollout', 'status', 'deployment/idle', '--timeout=5s']), 'deployment "idle" successfully rolled out\n');
  });

  it('kubectl scale writes spec.replicas through the scale subresource', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx', '-n', 'default']);
    assert.equal(await ok(['scale', 'deployment', 'web', '--replicas=3']), 'deployment.apps/web scaled\n');
    assert.equal(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '3');
    assert.equal(await ok(['get', 'deploy', 'web', '-o', 'jsonpath={.metadata.generation}']), '2');
    // --current-replicas is checked against the Scale kubectl reads first.
    const mismatch = await kubectl.run(['scale', 'deployment', 'web', '--current-replicas=5', '--replicas=1']);
    assert.equal(mismatch.stderr, 'error: Expected replicas to be 5, was 3\n');
    assert.equal(await ok(['scale', 'deployment', 'web', '--current-replicas=3', '--replicas=1']), 'deployment.apps/web scaled\n');
    const scale = JSON.parse(await ok(['get', '--raw', '/apis/apps/v1/namespaces/default/deployments/web/scale']));
    assert.deepEqual(
      [scale.kind, scale.apiVersion, scale.spec, scale.status],
      ['Scale', 'autoscaling/v1', { replicas: 1 }, { replicas: 0, selector: 'app=web' }],
    );
  });

  it('explain reads the schema of a built-in kind', async () => {
    const explained = await ok(['explain', 'deployment.spec.replicas']);
    assert.match(explained, /^GROUP: +apps\nKIND: +Deployment\nVERSION: +v1\n\nFIELD: +replicas <integer>\n/);
    assert.match(explained, /Number of desired pods\. This is a pointer to distinguish between explicit\n +zero and not specified\. Defaults to 1\./);
    // The kind's own description says that no controller acts on it here.
    assert.match(
      (await ok(['explain', 'deployment'])).replace(/\s+/g, ' '),
      /Deployment enables declarative updates for Pods and ReplicaSets\. \(fogbank: no controllers, scheduler or kubelet run here;/,
    );
  });

  it('refuses an invalid manifest with the apiserver text kubectl prints', async () => {
    const bad = file(
      'bad.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: b}}\n    spec: {containers: [{name: c, image: nginx}]}\n',
    );
    const refused = await kubectl.run(['apply', '-f', bad]);
    assert.equal(
      refused.stderr,
      `The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: \`selector\` does not match template \`labels\`\n`,
    );
    const unknown = file('unknown.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: u}\ndata: {a: b}\nspec: {foo: 1}\n');
    const strict = await kubectl.run(['create', '-f', unknown]);
    assert.match(strict.stderr, /unknown field "spec"/);
  });
});
