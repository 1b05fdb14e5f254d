import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Gcloud } from '../harness/gcloud.ts';

const TOKEN = 'e2e-compute-faults';

describe('gcloud compute through injected faults', { skip: skipUnless('gcloud') }, () => {
  let server: RunningFogbank;
  let gcloud: Gcloud;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: TOKEN, logLevel: 'silent' });
    gcloud = new Gcloud(server.url, TOKEN);
  });
  after(async () => {
    gcloud.dispose();
    await server.close();
  });

  it('instance-templates create fails with the real Quota exceeded text of an asynchronous QUOTA_EXCEEDED', async () => {
    await server.faults.add({
      method: 'compute.instanceTemplates.insert',
      operationError: {
        code: 'QUOTA_EXCEEDED',
        quotaInfo: { metricName: 'compute.googleapis.com/cpus', limitName: 'CPUS-per-project-region', dimensions: { region: 'us-central1' }, limit: 100 },
      },
      times: 1,
    });
    const result = await gcloud.run('compute', 'instance-templates', 'create', 'over-quota', '--machine-type=e2-small');
    assert.equal(result.code, 1, result.stdout);
    assert.equal(
      result.stderr,
      [
        'ERROR: (gcloud.compute.instance-templates.create) Could not fetch resource:',
        " - Quota 'CPUS' exceeded.  Limit: 100.0 in region us-central1.",
        '\tmetric name = compute.googleapis.com/cpus',
        '\tlimit name = CPUS-per-project-region',
        '\tlimit = 100.0',
        '\tdimensions = region: us-central1',
        'Try your request in another zone, or view documentation on how to increase quotas: https://cloud.google.com/compute/quotas.',
        '',
        '',
      ].join('\n'),
    );
    const listed = await gcloud.run('compute', 'instance-templates', 'list', '--format=value(name)');
    assert.equal(listed.stdout, '', 'nothing was created');
  });

  it('instance-templates list warns with the rateLimitExceeded text of an injected 403 (gcloud lists what it could)', async () => {
    await server.faults.add({ method: 'compute.instanceTemplates.aggregatedList', status: 403, times: 1 });
    const result = await gcloud.run('compute', 'instance-templates', 'list');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, 'WARNING: Some requests did not succeed.\n - Rate Limit Exceeded\n\nListed 0 items.\n');
    assert.deepEqual(server.faults.list(), []);
  });
});
