import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GlobalOperationsClient, InstanceTemplatesClient, type protos } from '@google-cloud/compute';
import { OAuth2Client } from 'google-auth-library';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'e2e-node-client-faults';
const PROJECT = 'p';

describe('@google-cloud/compute through an injected asynchronous QUOTA_EXCEEDED', () => {
  let server: RunningFogbank;
  let templates: InstanceTemplatesClient;
  let operations: GlobalOperationsClient;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: TOKEN, logLevel: 'silent' });
    const url = new URL(server.url);
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: TOKEN });
    const options = { apiEndpoint: url.hostname, port: Number(url.port), protocol: 'http', fallback: true, authClient };
    templates = new InstanceTemplatesClient(options);
    operations = new GlobalOperationsClient(options);
  });
  after(async () => server.close());

  it('the Operation the client waits on ends DONE with the error and its quotaInfo', async () => {
    const quotaInfo = { metricName: 'compute.googleapis.com/instance_templates', limitName: 'INSTANCE-TEMPLATES-per-project', limit: 100 };
    await server.faults.add({ method: 'compute.instanceTemplates.insert', operationError: { code: 'QUOTA_EXCEEDED', quotaInfo }, times: 1 });
    const [operation] = await templates.insert({ project: PROJECT, instanceTemplateResource: { name: 'over-quota', properties: { machineType: 'e2-small' } } });
    let done: protos.google.cloud.compute.v1.IOperation | undefined;
    for (let attempt = 0; attempt < 20 && done?.status !== 'DONE'; attempt++)
      [done] = await operations.wait({ project: PROJECT, operation: operation.latestResponse.name! });
    assert.equal(done?.status, 'DONE');
    assert.equal(done.httpErrorStatusCode, 403);
    assert.equal(done.httpErrorMessage, 'FORBIDDEN');
    const entry = done.error?.errors?.[0];
    assert.equal(entry?.code, 'QUOTA_EXCEEDED');
    assert.equal(entry?.message, "Quota 'INSTANCE_TEMPLATES' exceeded.  Limit: 100.0 globally.");
    const info = entry?.errorDetails?.[0]?.quotaInfo;
    assert.equal(info?.metricName, quotaInfo.metricName);
    assert.equal(info?.limitName, quotaInfo.limitName);
    assert.equal(info?.limit, 100);
  });
});
