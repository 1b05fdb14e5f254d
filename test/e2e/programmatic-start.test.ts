// start() from the package's door, with the real clients pointed at it through env() alone:
// kubectl by KUBECONFIG, gcloud by CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE and
// CLOUDSDK_AUTH_ACCESS_TOKEN_FILE; then the journal shows what they asked and the clock moves.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Fogbank, start } from '../../src/fogbank.ts';
import { tempDir } from '../../src/testing/temp.ts';
import { clientPath, skipUnless } from '../harness/clients.ts';
import { gcloudEnv } from '../harness/gcloud.ts';
import { runToEnd } from '../harness/process.ts';

let fb: Fogbank;
before(async () => {
  fb = await start();
});
after(() => fb.stop());

describe('start(): fogbank in-process for tests', () => {
  it('listens on a free loopback port with an ephemeral store and the client files written', () => {
    assert.match(fb.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(fb.server.dataDir, undefined);
    assert.deepEqual(Object.keys(fb.env()), [
      'KUBECONFIG',
      'CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE',
      'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
      'FOGBANK_URL',
      'FOGBANK_TOKEN',
    ]);
    assert.equal(fb.env()['KUBECONFIG'], fb.kubeconfig);
    assert.equal(fb.env()['CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE'], `${fb.url}/compute/v1/`);
  });

  it('points kubectl at itself through env() alone', { skip: skipUnless('kubectl') }, async () => {
    const { exit, stdout, stderr } = await runToEnd(clientPath('kubectl'), ['get', 'namespaces', '-o', 'name'], {
      env: { PATH: process.env['PATH'], HOME: tempDir('kube-home'), ...fb.env() },
    });
    assert.equal(exit, 0, stderr);
    assert.match(stdout, /^namespace\/default$/m);
    const [listed] = await fb.requests({ method: 'list namespaces', limit: 1 });
    assert.deepEqual([listed?.family, listed?.principal, listed?.status], ['cluster', 'admin@fogbank.local', 200]);
  });

  it('points gcloud at itself through env() alone', { skip: skipUnless('gcloud') }, async () => {
    const env = gcloudEnv(tempDir('gcloud'), fb.env());
    const { exit, stderr } = await runToEnd(
      clientPath('gcloud'),
      ['compute', 'instance-templates', 'list', '--project', 'p', '--format', 'value(name)'],
      { env },
      120_000,
    );
    assert.equal(exit, 0, stderr);
    const [listed] = await fb.requests({ family: 'compute', limit: 1 });
    assert.deepEqual([listed?.method, listed?.principal, listed?.status], ['compute.instanceTemplates.aggregatedList', 'admin@fogbank.local', 200]);
  });

  it('moves the clock the server reads and refuses a malformed duration', async () => {
    fb.clock.freeze();
    fb.clock.set('2026-01-01T00:00:00Z');
    await fb.clock.advance('1h');
    assert.equal(fb.clock.now().toISOString(), '2026-01-01T01:00:00.000Z');
    await assert.rejects(fb.clock.advance('soon'), { name: 'RangeError', message: 'time: invalid duration "soon"' });
    fb.clock.unfreeze();
  });

  it('snapshots, resets and restores the whole state; a snapshot it cannot read changes nothing', async () => {
    const headers = { authorization: `Bearer ${fb.adminToken}`, 'content-type': 'application/json' };
    const role = `${fb.url}/apis/rbac.authorization.k8s.io/v1/clusterroles/kept-by-start`;
    const body = JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'kept-by-start' }, rules: [] });
    assert.equal((await fetch(`${fb.url}/apis/rbac.authorization.k8s.io/v1/clusterroles`, { method: 'POST', headers, body })).status, 201);
    const before = await (await fetch(role, { headers })).text();
    const snapshot = await fb.snapshot();
    await fb.reset();
    assert.equal((await fetch(role, { headers })).status, 404);
    await assert.rejects(fb.restore(snapshot.subarray(0, snapshot.length - 10)), { name: 'SnapshotError' });
    assert.equal((await fetch(role, { headers })).status, 404);
    const summary = await fb.restore(snapshot);
    assert.ok(summary.records > 0);
    assert.equal(await (await fetch(role, { headers })).text(), before);
  });
});

describe('start() with a data directory and a token of its own', () => {
  it('keeps state in the directory, writes the given token to a file of its own, not into the directory', async () => {
    const dir = tempDir('start-own-token');
    const own = await start({ dataDir: dir, adminToken: 'given-admin-token' });
    try {
      assert.equal(own.server.dataDir, dir);
      assert.equal(own.adminToken, 'given-admin-token');
      assert.equal(readFileSync(own.tokenFile, 'utf8'), 'given-admin-token\n');
      assert.equal(existsSync(join(dir, 'admin-token')), false);
      assert.equal(own.kubeconfig, join(dir, 'kubeconfig'));
    } finally {
      await own.stop();
    }
    assert.equal(existsSync(own.tokenFile), false, 'the token file goes with the server');
  });
});
