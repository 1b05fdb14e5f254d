import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { skipUnless } from '../harness/clients.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Gcloud } from '../harness/gcloud.ts';

const TOKEN = 'e2e-instance-templates';

describe('gcloud compute instance-templates against fogbank (realistic operations)', { skip: skipUnless('gcloud') }, () => {
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

  it('an insert answers with a PENDING Operation that gcloud then waits on', async () => {
    const response = await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'probe', properties: { machineType: 'e2-small' } }),
    });
    assert.equal(response.status, 200);
    const op = (await response.json()) as Record<string, unknown>;
    assert.equal(op['status'], 'PENDING');
    assert.equal(op['operationType'], 'insert');
    assert.equal(op['targetLink'], `${server.url}/compute/v1/projects/p/global/instanceTemplates/probe`);
    const waited = await fetch(`${server.url}/compute/v1/projects/p/global/operations/${String(op['name'])}/wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const done = (await waited.json()) as Record<string, unknown>;
    assert.equal(done['status'], 'DONE');
    assert.equal(done['progress'], 100);
  });

  it('create prints Created and the table row', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'create', 't1', '--machine-type=e2-small');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr + result.stdout, new RegExp(`Created \\[${server.url}/compute/v1/projects/p/global/instanceTemplates/t1\\]\\.`));
    assert.match(result.stdout, /^t1\s+e2-small\s+\d{4}-\d\d-\d\dT/m);
  });

  it('describe shows the server-filled fields', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'describe', 't1', '--format=yaml');
    assert.equal(result.code, 0, result.stderr);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary nested fields of gcloud's YAML output
    const template = parseYaml(result.stdout) as Record<string, any>;
    assert.equal(template['kind'], 'compute#instanceTemplate');
    assert.match(template['id'], /^\d+$/);
    assert.match(template['creationTimestamp'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[-+]\d\d:\d\d$/);
    assert.equal(template['selfLink'], `${server.url}/compute/v1/projects/p/global/instanceTemplates/t1`);
    const properties = template['properties'];
    assert.equal(properties.machineType, 'e2-small');
    assert.equal(properties.networkInterfaces[0].name, 'nic0');
    assert.equal(properties.networkInterfaces[0].kind, 'compute#networkInterface');
    assert.equal(properties.networkInterfaces[0].network, `${server.url}/compute/v1/projects/p/global/networks/default`);
    assert.deepEqual(properties.networkInterfaces[0].accessConfigs, [
      { kind: 'compute#accessConfig', name: 'external-nat', networkTier: 'PREMIUM', type: 'ONE_TO_ONE_NAT' },
    ]);
    const disk = properties.disks[0];
    assert.equal(disk.deviceName, 'persistent-disk-0');
    assert.equal(disk.index, 0);
    assert.equal(disk.kind, 'compute#attachedDisk');
    assert.equal(disk.initializeParams.diskSizeGb, '10');
    assert.equal(properties.metadata.kind, 'compute#metadata');
    // gcloud re-encodes bytes fields in the URL-safe alphabet.
    assert.match(properties.metadata.fingerprint, /^[A-Za-z0-9+/_-]{11}=$/);
    assert.deepEqual(properties.scheduling, { automaticRestart: true, onHostMaintenance: 'MIGRATE', preemptible: false, provisioningModel: 'STANDARD' });
  });

  it('list shows the templates (through aggregatedList)', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'list', '--format=value(name)');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.stdout.trim().split('\n').sort(), ['probe', 't1']);
  });

  it('an invalid name fails with the real message', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'create', 'T_1', '--machine-type=e2-small');
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /Could not fetch resource:\n - Invalid value for field 'resource.name': 'T_1'\. Must be a match of regex '\(\?:\[a-z\]\(\?:\[-a-z0-9\]\{0,61\}\[a-z0-9\]\)\?\)'/,
    );
  });

  it('a machine type URL fails through the Operation and creates nothing', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'create', 't2', '--machine-type=zones/us-central1-a/machineTypes/e2-small');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Could not fetch resource:\n - Internal error\. Please try again or contact Google Support\./);
    const describe = await gcloud.run('compute', 'instance-templates', 'describe', 't2');
    assert.equal(describe.code, 1);
    assert.match(describe.stderr, /The resource 'projects\/p\/global\/instanceTemplates\/t2' was not found/);
  });

  it('a duplicate name fails with 409 on the request', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'create', 't1', '--machine-type=e2-small');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /The resource 'projects\/p\/global\/instanceTemplates\/t1' already exists/);
  });

  it('delete removes the template', async () => {
    const result = await gcloud.run('compute', 'instance-templates', 'delete', 't1', 'probe', '--quiet');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Deleted \[.*\/global\/instanceTemplates\/t1\]/);
    const list = await gcloud.run('compute', 'instance-templates', 'list');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stderr, /Listed 0 items\./);
  });

  it('a request without a token gets 401', async () => {
    const anonymous = new Gcloud(server.url, undefined);
    const result = await anonymous.run('compute', 'instance-templates', 'describe', 't1');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /Request is missing required authentication credential/);
    const raw = await fetch(`${server.url}/compute/v1/projects/p/global/instanceTemplates/t1`);
    assert.equal(raw.status, 401);
  });
});
