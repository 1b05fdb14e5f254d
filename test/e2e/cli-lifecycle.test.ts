import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bundleItems, zipBuffer } from '../../src/services/publisher/artifact-builder.fixture.ts';
import { REPO } from '../harness/paths.ts';
import { spawnOwned, startFogbankProcess, withTimeout } from '../harness/process.ts';
import { tempDir } from '../../src/testing/temp.ts';

const dataDir = (): string => tempDir('cli');

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/compute/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/**
 * firstRequestsToEveryFamily checks, against a fresh bundled server, the answers that come before
 * and with each family's first request: the bundle loads each family's parts from its own chunk
 * then (CommonJS packages among them), and the first answer must already be the right one.
 */
async function firstRequestsToEveryFamily(url: string, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  // Pre-handler answers in each family's dialect, before anything of the family is loaded.
  const malformed = await fetch(`${url}/gmail/v1/users/me/messages/send`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"raw":',
  });
  assert.equal(malformed.status, 400);
  assert.equal(((await malformed.json()) as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
  const anonymous = await fetch(`${url}/api/v1/namespaces`);
  assert.equal(anonymous.status, 401);
  assert.equal(((await anonymous.json()) as { kind: string }).kind, 'Status');
  // The cluster's first request already sees the seeded namespaces and the default policy.
  const namespaces = (await (await fetch(`${url}/api/v1/namespaces`, { headers: auth })).json()) as { items: { metadata: { name: string } }[] };
  assert.deepEqual(
    namespaces.items.map((item) => item.metadata.name).filter((name) => name === 'default' || name === 'kube-system'),
    ['default', 'kube-system'],
  );
  const role = await fetch(`${url}/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin`, { headers: auth });
  assert.equal(role.status, 200);
  const yaml = await fetch(`${url}/api/v1/namespaces`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/yaml' },
    body: 'metadata:\n  name: from-yaml\n',
  });
  assert.equal(yaml.status, 201);
  // YAML past the inline limit decodes on a worker thread, a bundle entry of its own (chunks/yaml-worker.mjs).
  const labels = Array.from({ length: 2000 }, (_, i) => `    k${i}: v${i}`).join('\n');
  const largeYaml = `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: large-yaml\n  labels:\n${labels}\nrules: []\n`;
  const large = await fetch(`${url}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/yaml' },
    body: largeYaml,
  });
  assert.equal(large.status, 201, await large.clone().text());
  assert.equal(Object.keys(((await large.json()) as { metadata: { labels: object } }).metadata.labels).length, 2000);
  // Mail composes with its MIME stack; publisher inspects an unsigned bundle and signs it with its own key (X.509 libraries).
  const raw = Buffer.from('From: admin@fogbank.local\r\nTo: bob@example.com\r\nSubject: first\r\n\r\nhello\r\n').toString('base64url');
  const sent = await fetch(`${url}/gmail/v1/users/me/messages/send`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ raw }),
  });
  assert.equal(sent.status, 200, await sent.clone().text());
  const bundle = await zipBuffer(bundleItems({ packageName: 'com.example.first', versionCode: 1 }));
  const uploaded = await fetch(`${url}/upload/androidpublisher/v3/applications/internalappsharing/com.example.first/artifacts/bundle?uploadType=media`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/octet-stream' },
    body: bundle,
  });
  assert.equal(uploaded.status, 200, await uploaded.clone().text());
  assert.match(((await uploaded.json()) as { certificateFingerprint: string }).certificateFingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
}

describe('fogbank start as a process', () => {
  it('--port 0 picks a free port, prints it, answers /healthz, keeps a generated admin token, and exits 0 on SIGTERM', async () => {
    const dir = dataDir();
    const server = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--log-level', 'warn']);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(server.url, 'http://127.0.0.1:0');
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    const tokenFile = join(dir, 'admin-token');
    assert.ok(existsSync(tokenFile));
    const token = readFileSync(tokenFile, 'utf8').trim();
    assert.match(token, /^fogbank-[0-9a-f]{32}$/);
    assert.ok(server.lines.some((line) => line.includes(`gcloud config set auth/access_token_file ${tokenFile}`)));
    assert.ok(server.lines.some((line) => line.includes(`gcloud config set api_endpoint_overrides/compute ${server.url}/compute/v1/`)));
    assert.equal((await call(server.url, token, 'GET', 'projects/p/global/instanceTemplates')).status, 200);
    assert.equal(await server.stop('SIGTERM'), 0);
    // The same token is used again on the next start.
    const again = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--log-level', 'warn']);
    assert.equal((await call(again.url, token, 'GET', 'projects/p/global/instanceTemplates')).status, 200);
    assert.equal(await again.stop('SIGINT'), 0);
  });

  it('restarting on the same data directory keeps templates and operations', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--operations', 'instant', '--log-level', 'warn']);
    const op = await call(first.url, 'tok', 'POST', 'projects/p/global/instanceTemplates', { name: 'kept', properties: { machineType: 'e2-small' } });
    assert.equal(op.json['status'], 'DONE');
    assert.equal(await first.stop('SIGTERM'), 0);
    const second = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    try {
      const template = await call(second.url, 'tok', 'GET', 'projects/p/global/instanceTemplates/kept');
      assert.equal(template.status, 200);
      assert.equal((template.json['properties'] as { machineType: string }).machineType, 'e2-small');
      const again = await call(second.url, 'tok', 'GET', `projects/p/global/operations/${String(op.json['name'])}`);
      assert.equal(again.status, 200);
      assert.equal(again.json['status'], 'DONE');
      assert.equal(again.json['id'], op.json['id']);
    } finally {
      await second.stop('SIGTERM');
    }
  });

  it('after SIGKILL during inserts, every acknowledged insert is there and its Operation completes', async () => {
    const dir = dataDir();
    const first = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    const acknowledged: { name: string; operation: string }[] = [];
    let stop = false;
    const writers = [0, 1, 2, 3].map(async (writer) => {
      for (let i = 0; !stop && i < 500; i++) {
        const name = `t-${writer}-${i}`;
        // Two allowed outcomes per insert: a 200 (acknowledged), or no answer at all because
        // the server was killed mid-request (never acknowledged). Anything else fails the test.
        let op: Awaited<ReturnType<typeof call>>;
        try {
          op = await call(first.url, 'tok', 'POST', 'projects/p/global/instanceTemplates', { name, properties: { machineType: 'e2-small' } });
        } catch {
          return;
        }
        assert.equal(op.status, 200, JSON.stringify(op.json));
        acknowledged.push({ name, operation: String(op.json['name']) });
      }
    });
    // Bounded: the writers stop on their own after 2000 inserts, well past 40.
    const enough = (async () => {
      while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 5));
    })();
    await Promise.race([enough, Promise.all(writers)]);
    assert.ok(acknowledged.length >= 40, `only ${acknowledged.length} inserts were acknowledged`);
    const killed = first.stop('SIGKILL');
    stop = true;
    await Promise.all(writers);
    assert.equal(await killed, 'SIGKILL');
    const second = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--log-level', 'warn']);
    try {
      for (const { name, operation } of acknowledged) {
        const done = await call(second.url, 'tok', 'POST', `projects/p/global/operations/${operation}/wait`);
        assert.equal(done.status, 200, `operation of ${name}`);
        assert.equal(done.json['status'], 'DONE', `operation of ${name}`);
        assert.equal(done.json['error'], undefined, `operation of ${name}`);
        const template = await call(second.url, 'tok', 'GET', `projects/p/global/instanceTemplates/${name}`);
        assert.equal(template.status, 200, `template ${name}`);
      }
    } finally {
      await second.stop('SIGTERM');
    }
  });

  it('the bundle that npm start runs serves the same API', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO, timeout: 120_000 });
    const bundle = join(REPO, 'dist/fogbank.mjs');
    const dir = dataDir();
    const server = await startFogbankProcess(['--port', '0', '--data-dir', dir, '--admin-token', 'tok', '--operations', 'instant', '--log-level', 'warn'], {
      entry: bundle,
    });
    try {
      const op = await call(server.url, 'tok', 'POST', 'projects/p/global/instanceTemplates', { name: 'bundled', properties: { machineType: 'e2-small' } });
      assert.equal(op.json['status'], 'DONE');
      assert.equal((await call(server.url, 'tok', 'GET', 'projects/p/global/instanceTemplates/bundled')).status, 200);
      assert.equal((await call(server.url, 'tok', 'POST', 'projects/p/regions/us-central1/securityPolicies', { name: 'pol' })).status, 200);
      await firstRequestsToEveryFamily(server.url, 'tok');
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    const help = execFileSync(process.execPath, [bundle, 'protoc', '--help'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(help.match(/^Usage: fogbank protoc/gm)?.length, 1);
  });

  it('on SIGTERM while a large YAML body decodes on a worker thread, answers it and exits 0', async () => {
    const server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', 'tok', '--log-level', 'warn']);
    const labels = Array.from({ length: 50_000 }, (_, i) => `    k${i}: v${i}`).join('\n');
    const body = `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: big\n  labels:\n${labels}\nrules: []\n`;
    // Expect: 100-continue: once the server has said Continue, the request is in flight there, and
    // a closing server answers it rather than dropping it.
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const post = request(`${server.url}/apis/rbac.authorization.k8s.io/v1/clusterroles`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok', 'content-type': 'application/yaml', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      post.on('continue', () => post.end(body, () => void server.stop('SIGTERM').catch(reject)));
      post.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      post.on('error', reject);
    });
    const { status, body: answer } = await answered;
    // Decoding 1 MiB takes seconds: the server closes first, unless this machine is very fast.
    if (status !== 201)
      assert.deepEqual(JSON.parse(answer), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'apiserver is shutting down',
        reason: 'ServiceUnavailable',
        code: 503,
      });
    assert.equal(await server.exited, 0);
  });

  it('rejects unknown flags with a usage message and exit code 2', async () => {
    await assert.rejects(startFogbankProcess(['--bogus']), /ended \(2\) before printing[\s\S]*fogbank: unknown flag --bogus/);
  });
});

// `npm start` (a prestart build, then the bundle) must hand signals to fogbank and exit 0, both
// for a terminal's Ctrl-C, which reaches the whole process group, and for a signal sent to npm.
// This file is the only one that builds dist/, so builds never race.
describe('npm start', () => {
  for (const [how, toGroup] of [
    ['Ctrl-C in a terminal (SIGINT to the process group)', true],
    ['SIGINT sent to npm alone', false],
  ] as const) {
    it(`stops fogbank and exits 0 on ${how}`, async () => {
      const npm = spawnOwned('npm', ['start', '--', '--port', '0', '--ephemeral', '--log-level', 'warn'], { cwd: REPO, detached: true });
      await npm.waitForLine(/listening on http:\/\/127\.0\.0\.1:\d+/, 120_000);
      if (toGroup) {
        assert.equal(await npm.stop('SIGINT'), 0);
      } else {
        process.kill(npm.child.pid!, 'SIGINT');
        assert.equal(await withTimeout(npm.exited, 15_000, 'npm start to exit after SIGINT'), 0);
      }
      assert.ok(npm.lines.includes('fogbank: SIGINT, shutting down'), npm.lines.join('\n'));
    });
  }
});
