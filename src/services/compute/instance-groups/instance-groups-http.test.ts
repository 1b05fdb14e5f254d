import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

const ADMIN = 'instance-groups-admin';
const BASE = 'http://localhost:80/compute/v1/projects';

describe('the instance groups of managed instance groups over HTTP', () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({ operations: 'instant', adminToken: ADMIN });
    client = new ComputeClient(server, ADMIN);
    await client.ok('POST', 'p/global/instanceTemplates', {
      name: 't1',
      properties: { machineType: 'e2-small', networkInterfaces: [{ network: 'global/networks/default' }] },
    });
    await client.ok('POST', 'p/zones/us-central1-a/instanceGroupManagers', { name: 'mig', instanceTemplate: 'global/instanceTemplates/t1', targetSize: 2 });
    await client.ok('POST', 'p/regions/us-central1/instanceGroupManagers', { name: 'rmig', instanceTemplate: 'global/instanceTemplates/t1', targetSize: 3 });
  });
  after(async () => {
    await server.close();
  });

  it('get shows the group’s instance group as the real service does: its manager named in the description, its size, its network', async () => {
    const group = await client.ok('GET', 'p/zones/us-central1-a/instanceGroups/mig');
    const manager = await client.ok('GET', 'p/zones/us-central1-a/instanceGroupManagers/mig');
    assert.equal(manager['instanceGroup'], group['selfLink']);
    const { id, creationTimestamp, ...rest } = group;
    assert.match(String(id), /^\d+$/);
    assert.notEqual(id, manager['id']);
    assert.equal(creationTimestamp, manager['creationTimestamp']);
    assert.deepEqual(rest, {
      kind: 'compute#instanceGroup',
      name: 'mig',
      description:
        "This instance group is controlled by Instance Group Manager 'mig'. To modify instances in this group, use the Instance Group Manager API: https://cloud.google.com/compute/docs/reference/latest/instanceGroupManagers",
      network: `${BASE}/p/global/networks/default`,
      fingerprint: '42WmSpB8rSM=',
      zone: `${BASE}/p/zones/us-central1-a`,
      selfLink: `${BASE}/p/zones/us-central1-a/instanceGroups/mig`,
      size: 2,
      subnetwork: `${BASE}/p/regions/us-central1/subnetworks/default`,
    });
    const regional = await client.ok('GET', 'p/regions/us-central1/instanceGroups/rmig');
    assert.equal(regional['region'], `${BASE}/p/regions/us-central1`);
    assert.equal(regional['size'], 3);
  });

  it('list, aggregatedList and listInstances (ALL or RUNNING); a missing group is the real 404', async () => {
    const listed = await client.ok('GET', 'p/zones/us-central1-a/instanceGroups');
    assert.equal(listed['kind'], 'compute#instanceGroupList');
    assert.deepEqual(
      (listed['items'] as { name: string }[]).map((g) => g.name),
      ['mig'],
    );
    const aggregated = (await client.ok('GET', 'p/aggregated/instanceGroups'))['items'] as Record<string, { instanceGroups?: { name: string }[] }>;
    assert.deepEqual(
      aggregated['zones/us-central1-a']?.instanceGroups?.map((g) => g.name),
      ['mig'],
    );
    assert.deepEqual(
      aggregated['regions/us-central1']?.instanceGroups?.map((g) => g.name),
      ['rmig'],
    );
    const members = (await client.ok('POST', 'p/zones/us-central1-a/instanceGroupManagers/mig/listManagedInstances'))['managedInstances'] as {
      instance: string;
    }[];
    const all = await client.ok('POST', 'p/zones/us-central1-a/instanceGroups/mig/listInstances', { instanceState: 'ALL' });
    assert.equal(all['kind'], 'compute#instanceGroupsListInstances');
    assert.deepEqual(
      (all['items'] as { instance: string; status: string }[]).map((i) => [i.instance, i.status]).sort(),
      members.map((m) => [m.instance, 'RUNNING']).sort(),
    );
    const name = members[0]!.instance.slice(members[0]!.instance.lastIndexOf('/') + 1);
    await client.ok('POST', `p/zones/us-central1-a/instances/${name}/stop`);
    const running = await client.ok('POST', 'p/zones/us-central1-a/instanceGroups/mig/listInstances', { instanceState: 'RUNNING' });
    assert.equal((running['items'] as unknown[]).length, 1);
    const regional = await client.ok('POST', 'p/regions/us-central1/instanceGroups/rmig/listInstances', {});
    assert.equal(regional['kind'], 'compute#regionInstanceGroupsListInstances');
    assert.equal((regional['items'] as unknown[]).length, 3);
    const missing = await client.call('GET', 'p/zones/us-central1-a/instanceGroups/none');
    assert.equal(missing.status, 404);
    assert.equal(errorMessage(missing), "The resource 'projects/p/zones/us-central1-a/instanceGroups/none' was not found");
  });
});
