import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { findKubectl, Kubectl } from '../harness/kubectl.ts';

const TOKEN = 'kubectl-e2e-admin';

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('cluster API with the real kubectl', () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', adminToken: TOKEN, logLevel: 'silent' });
    kubectl = new Kubectl(server.url, TOKEN);
  });
  after(async () => {
    kubectl.cleanup();
    await server.close();
  });

  const events = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('lists the initial namespaces and creates one (protobuf body from the typed client)', async () => {
    const created = await kubectl.run(['create', 'namespace', 'demo']);
    assert.equal(created.stderr, '');
    assert.equal(created.stdout, 'namespace/demo created\n');
    const listed = await kubectl.run(['get', 'namespaces', '-o', 'name']);
    assert.equal(listed.stdout, 'namespace/default\nnamespace/demo\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n');
  });

  it('creates a ClusterRole from a file under --validate=strict and prints it every way', async () => {
    const file = join(kubectl.dir, 'reader.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: rbac.authorization.k8s.io/v1',
        'kind: ClusterRole',
        'metadata:',
        '  name: reader',
        '  labels:',
        '    app: demo',
        'rules:',
        '- apiGroups: [""]',
        '  resources: ["configmaps"]',
        '  verbs: ["get", "list"]',
        '',
      ].join('\n'),
    );
    const created = await kubectl.run(['create', '-f', file]);
    assert.equal(created.stdout, 'clusterrole.rbac.authorization.k8s.io/reader created\n');
    const again = await kubectl.run(['create', '-f', file]);
    assert.equal(
      again.stderr,
      `Error from server (AlreadyExists): error when creating "${file}": clusterroles.rbac.authorization.k8s.io "reader" already exists\n`,
    );

    const table = await kubectl.run(['get', 'clusterroles', '-l', 'app=demo']);
    assert.match(table.stdout, /^NAME\s+CREATED AT\nreader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
    const wide = await kubectl.run(['get', 'clusterroles', '-l', 'app=demo', '-o', 'wide']);
    assert.match(wide.stdout, /^NAME\s+CREATED AT\nreader\s+/);
    assert.equal((await kubectl.run(['get', 'clusterroles', '-l', 'app=demo', '-o', 'name'])).stdout, 'clusterrole.rbac.authorization.k8s.io/reader\n');
    const json = JSON.parse((await kubectl.run(['get', 'clusterrole', 'reader', '-o', 'json'])).stdout);
    assert.equal(json.kind, 'ClusterRole');
    assert.deepEqual(json.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    const yaml = (await kubectl.run(['get', 'clusterrole', 'reader', '-o', 'yaml'])).stdout;
    assert.match(yaml, /^apiVersion: rbac.authorization.k8s.io\/v1\nkind: ClusterRole\nmetadata:\n/);
  });

  it('rejects unknown fields under strict validation with the server text', async () => {
    const file = join(kubectl.dir, 'bad.yaml');
    writeFileSync(
      file,
      ['apiVersion: rbac.authorization.k8s.io/v1', 'kind: ClusterRole', 'metadata:', '  name: bad', 'color: blue', 'rules: []', ''].join('\n'),
    );
    const result = await kubectl.run(['create', '-f', file]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `Error from server (BadRequest): error when creating "${file}": ClusterRole in version "v1" cannot be handled as a ClusterRole: strict decoding error: unknown field "color"\n`,
    );
    assert.equal((await kubectl.run(['get', 'clusterrole', 'bad', '--ignore-not-found'])).stdout, '');
  });

  it('labels and annotates with merge patches, deletes by name and by label', async () => {
    assert.equal((await kubectl.run(['label', 'clusterrole', 'reader', 'tier=gold'])).stdout, 'clusterrole.rbac.authorization.k8s.io/reader labeled\n');
    assert.equal((await kubectl.run(['annotate', 'clusterrole', 'reader', 'note=hello'])).stdout, 'clusterrole.rbac.authorization.k8s.io/reader annotated\n');
    const object = JSON.parse((await kubectl.run(['get', 'clusterrole', 'reader', '-o', 'json'])).stdout);
    assert.deepEqual(object.metadata.labels, { app: 'demo', tier: 'gold' });
    assert.deepEqual(object.metadata.annotations, { note: 'hello' });

    await kubectl.run(['create', 'clusterrole', 'temp-a', '--verb=get', '--resource=clusterroles']);
    await kubectl.run(['create', 'clusterrole', 'temp-b', '--verb=get', '--resource=clusterroles']);
    await kubectl.run(['label', 'clusterrole', 'temp-a', 'temp-b', 'batch=one']);
    const deleted = await kubectl.run(['delete', 'clusterrole', '-l', 'batch=one']);
    assert.equal(deleted.stdout, 'clusterrole.rbac.authorization.k8s.io "temp-a" deleted\nclusterrole.rbac.authorization.k8s.io "temp-b" deleted\n');
    const byName = await kubectl.run(['delete', 'clusterrole', 'reader']);
    assert.equal(byName.stdout, 'clusterrole.rbac.authorization.k8s.io "reader" deleted\n');
    const gone = await kubectl.run(['get', 'clusterrole', 'reader']);
    assert.equal(gone.stderr, 'Error from server (NotFound): clusterroles.rbac.authorization.k8s.io "reader" not found\n');
  });

  it('shows events from both groups, -A and wide, and events about a namespace', async () => {
    const uid = (await kubectl.run(['get', 'namespace', 'demo', '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const response = await events('/apis/events.k8s.io/v1/namespaces/default/events', {
      metadata: { name: 'demo-checked' },
      eventTime: new Date().toISOString().replace('Z', '000Z'),
      reportingController: 'example.com/checker',
      reportingInstance: 'checker-1',
      action: 'Check',
      reason: 'Checked',
      type: 'Normal',
      note: 'namespace looked at',
      regarding: { kind: 'Namespace', name: 'demo', uid, apiVersion: 'v1' },
    });
    assert.equal(response.status, 201);
    const all = await kubectl.run(['get', 'events', '-A']);
    assert.match(
      all.stdout,
      /^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\ndefault\s+\d+s\s+Normal\s+Checked\s+namespace\/demo\s+namespace looked at\n$/,
    );
    const wide = await kubectl.run(['get', 'events', '-A', '-o', 'wide']);
    assert.match(wide.stdout, /SOURCE.*\n.*example\.com\/checker, checker-1\s+namespace looked at\s+\d+s\s+1\s+demo-checked\n$/);
    const v1 = await kubectl.run(['get', 'events.v1.events.k8s.io', '-n', 'default', '-o', 'name']);
    assert.equal(v1.stdout, 'event.events.k8s.io/demo-checked\n');
    const about = await kubectl.run([
      'get',
      'events',
      '-A',
      '--field-selector',
      `involvedObject.kind=Namespace,involvedObject.name=demo,involvedObject.uid=${uid}`,
      '-o',
      'name',
    ]);
    assert.equal(about.stdout, 'event/demo-checked\n');
    // kubectl's namespace describer prints quotas and limit ranges, never events (describe.go);
    // `kubectl events --for` is how kubectl shows the events about one object.
    const described = await kubectl.run(['describe', 'namespace', 'demo']);
    assert.match(described.stdout, /^Name:\s+demo\nLabels:\s+kubernetes.io\/metadata.name=demo\nAnnotations:\s+<none>\nStatus:\s+Active\n/);
    const eventsFor = await kubectl.run(['events', '--for', 'namespace/demo', '-A']);
    assert.match(
      eventsFor.stdout,
      /^NAMESPACE\s+LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\ndefault\s+\d+s\s+Normal\s+Checked\s+Namespace\/demo\s+namespace looked at\n$/,
    );
  });

  it('explains fields and serves raw discovery', async () => {
    const explained = await kubectl.run(['explain', 'clusterroles.rules']);
    assert.match(explained.stdout, /^GROUP:\s+rbac.authorization.k8s.io\nKIND:\s+ClusterRole\nVERSION:\s+v1\n\nFIELD: rules <\[\]PolicyRule>\n/);
    assert.match(explained.stdout, /verbs\t<\[\]string> -required-/);
    const raw = JSON.parse((await kubectl.run(['get', '--raw', '/apis'])).stdout);
    assert.deepEqual(
      raw.groups.map((group: { name: string }) => group.name),
      [
        'apiregistration.k8s.io',
        'apps',
        'events.k8s.io',
        'authentication.k8s.io',
        'authorization.k8s.io',
        'autoscaling',
        'batch',
        'certificates.k8s.io',
        'networking.k8s.io',
        'policy',
        'rbac.authorization.k8s.io',
        'storage.k8s.io',
        'admissionregistration.k8s.io',
        'apiextensions.k8s.io',
        'scheduling.k8s.io',
        'coordination.k8s.io',
        'node.k8s.io',
        'discovery.k8s.io',
        'flowcontrol.apiserver.k8s.io',
      ],
    );
    const resources = await kubectl.run(['api-resources', '--api-group=authorization.k8s.io', '--no-headers']);
    assert.deepEqual(
      resources.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).join(' ')),
      [
        'localsubjectaccessreviews authorization.k8s.io/v1 true LocalSubjectAccessReview',
        'selfsubjectaccessreviews authorization.k8s.io/v1 false SelfSubjectAccessReview',
        'selfsubjectrulesreviews authorization.k8s.io/v1 false SelfSubjectRulesReview',
        'subjectaccessreviews authorization.k8s.io/v1 false SubjectAccessReview',
      ],
    );
  });

  it('watches and sees a create made by another client', async () => {
    await kubectl.run(['create', 'clusterrole', 'existing', '--verb=list', '--resource=clusterroles']);
    const watcher = kubectl.start(['get', 'clusterroles', '-w']);
    try {
      // The watch resumes from the list's resourceVersion, so a create right after the list is seen.
      await waitFor(() => /existing\s+\d{4}-/.test(watcher.output()), 'the initial list');
      const created = await kubectl.run(['create', 'clusterrole', 'watched', '--verb=list', '--resource=clusterroles']);
      assert.equal(created.code, 0);
      await waitFor(() => /watched\s+\d{4}-/.test(watcher.output()), 'the watch to show the new role');
    } finally {
      watcher.child.kill();
    }
  });

  it('deletes a namespace together with its events', async () => {
    await events('/api/v1/namespaces/demo/events', {
      metadata: { name: 'inside' },
      involvedObject: { kind: 'Namespace', name: 'demo', namespace: 'demo' },
      reason: 'Old',
      message: 'old style',
    });
    assert.equal((await kubectl.run(['delete', 'namespace', 'demo'])).stdout, 'namespace "demo" deleted\n');
    assert.equal((await kubectl.run(['get', 'events', '-n', 'demo'])).stderr, 'No resources found in demo namespace.\n');
    const protectedNs = await kubectl.run(['delete', 'namespace', 'default']);
    assert.equal(protectedNs.stderr, 'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted\n');
  });

  it('prints the Unauthorized error for a bad token', async () => {
    const bad = new Kubectl(server.url, 'not-a-token');
    try {
      const result = await bad.run(['get', 'clusterroles']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /error: You must be logged in to the server \(the server has asked for the client to provide credentials\)\n$/);
    } finally {
      bad.cleanup();
    }
  });
});

describe('fogbank start writes a kubeconfig kubectl can use as is', () => {
  it('writes <data-dir>/kubeconfig with the server and the admin token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fogbank-kubeconfig-'));
    const server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', dataDir, logLevel: 'silent' });
    try {
      assert.equal(server.kubeconfigFile, join(dataDir, 'kubeconfig'));
      const text = readFileSync(server.kubeconfigFile!, 'utf8');
      assert.match(text, new RegExp(`server: http://fogbank:${server.adminToken}@127\\.0\\.0\\.1:${server.port}\\n`));
      const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          findKubectl(),
          ['--kubeconfig', server.kubeconfigFile!, '--cache-dir', join(dataDir, 'cache'), 'get', 'namespace', 'default', '-o', 'name'],
          { env: { PATH: process.env['PATH'], HOME: dataDir }, timeout: 60_000 },
          (error, stdout) => resolve({ code: error === null ? 0 : 1, stdout }),
        );
      });
      assert.deepEqual(result, { code: 0, stdout: 'namespace/default\n' });
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
