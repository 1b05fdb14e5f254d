// start() from the package's door, with the real clients pointed at it through env() alone:
// kubectl by KUBECONFIG, gcloud by CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE and
// CLOUDSDK_AUTH_ACCESS_TOKEN_FILE; then the journal shows what they asked and the clock moves.
import assert from 'node:assert/strict';
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
});
