import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

const ADMIN = 'instances-admin';
const BASE = 'http://localhost:80/compute/v1/projects';
const ZONE = 'p/zones/us-central1-a/instances';
const DISK = { boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12', diskSizeGb: '20' } };

interface Nic {
  readonly networkIP: string;
  readonly subnetwork: string;
  readonly accessConfigs?: { readonly natIP: string }[];
}

describe('instances over HTTP', () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: ADMIN, logLevel: 'silent' });
    client = new ComputeClient(server, ADMIN);
    await client.ok('POST', 'p/global/instanceTemplates', {
      name: 't1',
      properties: {
        machineType: 'e2-small',
        labels: { app: 'web' },
        disks: [DISK],
        networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] }],
        metadata: { items: [{ key: 'startup-script', value: 'echo hi' }] },
      },
    });
    await client.ok('POST', 'p/regions/us-east1/instanceTemplates', { name: 'east', properties: { machineType: 'e2-small' } });
  });
  after(async () => {
    await server.close();
  });

  it('insert from properties: RUNNING, an internal address from the subnetwork range, links on the caller address', async () => {
    const op = await client.ok('POST', ZONE, {
      name: 'vm1',
      machineType: 'zones/us-central1-a/machineTypes/e2-medium',
      disks: [DISK],
      networkInterfaces: [{ network: 'global/networks/default' }],
    });
    assert.equal(op['operationType'], 'insert');
    assert.equal(op['zone'], `${BASE}/p/zones/us-central1-a`);
    const vm = await client.ok('GET', `${ZONE}/vm1`);
    assert.equal(vm['kind'], 'compute#instance');
    assert.equal(vm['status'], 'RUNNING');
    assert.equal(vm['machineType'], `${BASE}/p/zones/us-central1-a/machineTypes/e2-medium`);
    assert.equal(vm['zone'], `${BASE}/p/zones/us-central1-a`);
    const [nic] = vm['networkInterfaces'] as Nic[];
    assert.equal(nic?.networkIP, '10.128.0.2');
    assert.equal(nic?.subnetwork, `${BASE}/p/regions/us-central1/subnetworks/default`);
    const [disk] = vm['disks'] as { source: string; boot: boolean; diskSizeGb: string }[];
    assert.deepEqual([disk?.source, disk?.boot, disk?.diskSizeGb], [`${BASE}/p/zones/us-central1-a/disks/vm1`, true, '20']);
    assert.match(String(vm['lastStartTimestamp']), /^\d{4}-/);
  });

  it('insert from a template copies its properties, merges overrides, adds the next free addresses', async () => {
    await client.ok('POST', `${ZONE}?sourceInstanceTemplate=global/instanceTemplates/t1`, { name: 'vm2', labels: { tier: 'front' } });
    const vm = await client.ok('GET', `${ZONE}/vm2`);
    assert.equal(vm['machineType'], `${BASE}/p/zones/us-central1-a/machineTypes/e2-small`);
    assert.deepEqual(vm['labels'], { app: 'web', tier: 'front' });
    const [nic] = vm['networkInterfaces'] as Nic[];
    assert.equal(nic?.networkIP, '10.128.0.3');
    assert.equal(nic?.accessConfigs?.[0]?.natIP, '203.0.113.1');
    const items = (vm['metadata'] as { items: { key: string; value: string }[] }).items;
    assert.deepEqual(items, [
      { key: 'startup-script', value: 'echo hi' },
      { key: 'instance-template', value: 'projects/p/global/instanceTemplates/t1' },
    ]);
    // An override replaces the template's field.
    await client.ok('POST', `${ZONE}?sourceInstanceTemplate=${encodeURIComponent(`${BASE}/p/global/instanceTemplates/t1`)}`, {
      name: 'vm3',
      machineType: 'zones/us-central1-a/machineTypes/n1-standard-1',
    });
    assert.equal((await client.ok('GET', `${ZONE}/vm3`))['machineType'], `${BASE}/p/zones/us-central1-a/machineTypes/n1-standard-1`);
  });

  it('refuses a missing template, a regional template of another region, an unknown machine type and a taken name', async () => {
    const missing = await client.call('POST', `${ZONE}?sourceInstanceTemplate=global/instanceTemplates/nope`, { name: 'x' });
    assert.equal(missing.status, 404);
    assert.equal(errorMessage(missing), "The resource 'projects/p/global/instanceTemplates/nope' was not found");
    const otherRegion = await client.call('POST', `${ZONE}?sourceInstanceTemplate=regions/us-east1/instanceTemplates/east`, { name: 'x' });
    assert.equal(otherRegion.status, 400);
    const unknown = await client.call('POST', ZONE, { name: 'x', machineType: 'zones/us-central1-a/machineTypes/e2-huge' });
    assert.equal(unknown.status, 400);
    assert.equal(
      errorMessage(unknown),
      "Invalid value for field 'resource.machineType': 'zones/us-central1-a/machineTypes/e2-huge'. Machine type with name 'e2-huge' does not exist in zone 'us-central1-a'.",
    );
    const otherZone = await client.call('POST', ZONE, { name: 'x', machineType: 'zones/us-east1-b/machineTypes/e2-small' });
    assert.match(errorMessage(otherZone), /does not exist in zone 'us-central1-a'\.$/);
    const taken = await client.call('POST', ZONE, { name: 'vm1', machineType: 'zones/us-central1-a/machineTypes/e2-small' });
    assert.equal(taken.status, 409);
    assert.equal(errorMessage(taken), "The resource 'projects/p/zones/us-central1-a/instances/vm1' already exists");
    assert.equal((await client.call('GET', `${ZONE}/x`)).status, 404);
  });

  it('stop, start, suspend, resume and reset move the status; a suspend of a stopped instance is refused', async () => {
    await client.ok('POST', `${ZONE}/vm1/stop`);
    let vm = await client.ok('GET', `${ZONE}/vm1`);
    assert.equal(vm['status'], 'TERMINATED');
    assert.match(String(vm['lastStopTimestamp']), /^\d{4}-/);
    const refused = await client.call('POST', `${ZONE}/vm1/suspend`);
    assert.equal(refused.status, 400);
    // A stop of a stopped instance is a no-op Operation.
    await client.ok('POST', `${ZONE}/vm1/stop`);
    await client.ok('POST', `${ZONE}/vm1/start`);
    assert.equal((await client.ok('GET', `${ZONE}/vm1`))['status'], 'RUNNING');
    await client.ok('POST', `${ZONE}/vm1/suspend`);
    vm = await client.ok('GET', `${ZONE}/vm1`);
    assert.equal(vm['status'], 'SUSPENDED');
    await client.ok('POST', `${ZONE}/vm1/resume`);
    await client.ok('POST', `${ZONE}/vm1/reset`);
    assert.equal((await client.ok('GET', `${ZONE}/vm1`))['status'], 'RUNNING');
  });

  it('setLabels, setMetadata and setTags need the current fingerprint', async () => {
    const vm = await client.ok('GET', `${ZONE}/vm1`);
    const stale = await client.call('POST', `${ZONE}/vm1/setLabels`, { labels: { a: 'b' }, labelFingerprint: 'AAAAAAAAAAA=' });
    assert.equal(stale.status, 412);
    await client.ok('POST', `${ZONE}/vm1/setLabels`, { labels: { a: 'b' }, labelFingerprint: vm['labelFingerprint'] });
    const metadata = vm['metadata'] as { fingerprint: string };
    assert.equal((await client.call('POST', `${ZONE}/vm1/setMetadata`, { fingerprint: 'AAAAAAAAAAA=', items: [] })).status, 412);
    await client.ok('POST', `${ZONE}/vm1/setMetadata`, { fingerprint: metadata.fingerprint, items: [{ key: 'k', value: 'v' }] });
    const tags = vm['tags'] as { fingerprint: string };
    await client.ok('POST', `${ZONE}/vm1/setTags`, { fingerprint: tags.fingerprint, items: ['http-server'] });
    const changed = await client.ok('GET', `${ZONE}/vm1`);
    assert.deepEqual(changed['labels'], { a: 'b' });
    assert.deepEqual((changed['metadata'] as { items: unknown }).items, [{ key: 'k', value: 'v' }]);
    assert.deepEqual((changed['tags'] as { items: unknown }).items, ['http-server']);
    assert.notEqual(changed['fingerprint'], vm['fingerprint']);
  });

  it('list filters, aggregatedList groups by zone, delete removes', async () => {
    const list = await client.ok('GET', `${ZONE}?filter=${encodeURIComponent('status = RUNNING')}`);
    assert.deepEqual(
      (list['items'] as { name: string }[]).map((i) => i.name),
      ['vm1', 'vm2', 'vm3'],
    );
    const aggregated = await client.ok('GET', 'p/aggregated/instances');
    const items = aggregated['items'] as Record<string, { instances?: { name: string }[] }>;
    assert.deepEqual(
      items['zones/us-central1-a']?.instances?.map((i) => i.name),
      ['vm1', 'vm2', 'vm3'],
    );
    await client.ok('DELETE', `${ZONE}/vm3`);
    assert.equal((await client.call('GET', `${ZONE}/vm3`)).status, 404);
  });
});

describe('instances over HTTP: the status while Operations run (realistic operations)', () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: ADMIN, logLevel: 'silent' });
    client = new ComputeClient(server, ADMIN);
  });
  after(async () => {
    await server.close();
  });

  it('PROVISIONING until the insert is DONE, then RUNNING; STOPPING until the stop is DONE, then TERMINATED', async () => {
    const insert = await client.ok('POST', ZONE, { name: 'slow', machineType: 'zones/us-central1-a/machineTypes/e2-small', networkInterfaces: [{}] });
    assert.notEqual(insert['status'], 'DONE');
    assert.equal((await client.ok('GET', `${ZONE}/slow`))['status'], 'PROVISIONING');
    await client.done(insert);
    assert.equal((await client.ok('GET', `${ZONE}/slow`))['status'], 'RUNNING');
    const stop = await client.ok('POST', `${ZONE}/slow/stop`);
    assert.equal((await client.ok('GET', `${ZONE}/slow`))['status'], 'STOPPING');
    await client.done(stop);
    assert.equal((await client.ok('GET', `${ZONE}/slow`))['status'], 'TERMINATED');
  });
});
