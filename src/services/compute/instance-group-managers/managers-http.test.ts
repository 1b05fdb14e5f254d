import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

const ADMIN = 'managers-admin';
const BASE = 'http://localhost:80/compute/v1/projects';
const GROUPS = 'p/zones/us-central1-a/instanceGroupManagers';

interface Managed {
  readonly instance: string;
  readonly currentAction: string;
  readonly instanceStatus?: string;
  readonly version: { readonly instanceTemplate: string };
}

describe('managed instance groups over HTTP', () => {
  let server: RunningFogbank;
  let client: ComputeClient;
  const managed = async (group = `${GROUPS}/mig`): Promise<Managed[]> =>
    (await client.ok('POST', `${group}/listManagedInstances`))['managedInstances'] as Managed[];

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: ADMIN, logLevel: 'silent' });
    client = new ComputeClient(server, ADMIN);
    for (const name of ['t1', 't2']) {
      await client.ok('POST', 'p/global/instanceTemplates', {
        name,
        properties: { machineType: 'e2-small', networkInterfaces: [{ network: 'global/networks/default' }] },
      });
    }
  });
  after(async () => {
    await server.close();
  });

  it('insert makes targetSize instances from the template, RUNNING with currentAction NONE', async () => {
    const op = await client.ok('POST', GROUPS, { name: 'mig', instanceTemplate: 'global/instanceTemplates/t1', baseInstanceName: 'web', targetSize: 3 });
    assert.equal(op['operationType'], 'compute.instanceGroupManagers.insert');
    const members = await managed();
    assert.equal(members.length, 3);
    for (const member of members) {
      assert.match(member.instance, /^http:\/\/localhost:80\/compute\/v1\/projects\/p\/zones\/us-central1-a\/instances\/web-[a-z0-9]{4}$/);
      assert.equal(member.currentAction, 'NONE');
      assert.equal(member.instanceStatus, 'RUNNING');
      assert.equal(member.version.instanceTemplate, `${BASE}/p/global/instanceTemplates/t1`);
    }
    const instances = await client.ok('GET', 'p/zones/us-central1-a/instances');
    assert.equal((instances['items'] as unknown[]).length, 3);
    const group = await client.ok('GET', `${GROUPS}/mig`);
    assert.equal(group['targetSize'], 3);
    assert.deepEqual((group['status'] as { isStable: boolean }).isStable, true);
  });

  it('a template in use cannot be deleted', async () => {
    const refused = await client.call('DELETE', 'p/global/instanceTemplates/t1');
    assert.equal(refused.status, 400);
    assert.equal((refused.body['error'] as { errors: { reason: string }[] }).errors[0]?.reason, 'resourceInUseByAnotherResource');
    assert.equal(
      errorMessage(refused),
      "The instance_template resource 'projects/p/global/instanceTemplates/t1' is already being used by 'projects/p/zones/us-central1-a/instanceGroupManagers/mig'",
    );
  });

  it('resize grows and shrinks; deleteInstances, recreateInstances and abandonInstances act on the named ones', async () => {
    await client.ok('POST', `${GROUPS}/mig/resize?size=4`);
    assert.equal((await managed()).length, 4);
    await client.ok('POST', `${GROUPS}/mig/resize?size=3`);
    let members = await managed();
    assert.equal(members.length, 3);
    await client.ok('POST', `${GROUPS}/mig/deleteInstances`, { instances: [members[0]!.instance] });
    members = await managed();
    assert.equal(members.length, 2);
    assert.equal((await client.ok('GET', `${GROUPS}/mig`))['targetSize'], 2);
    await client.ok('POST', `${GROUPS}/mig/recreateInstances`, { instances: [members[0]!.instance] });
    assert.equal((await managed())[0]?.instance, members[0]!.instance);
    await client.ok('POST', `${GROUPS}/mig/abandonInstances`, { instances: [members[1]!.instance] });
    assert.equal((await managed()).length, 1);
    // The abandoned instance lives on, outside the group.
    const name = members[1]!.instance.slice(members[1]!.instance.lastIndexOf('/') + 1);
    assert.equal((await client.ok('GET', `p/zones/us-central1-a/instances/${name}`))['status'], 'RUNNING');
    const stranger = await client.call('POST', `${GROUPS}/mig/deleteInstances`, { instances: [`zones/us-central1-a/instances/${name}`] });
    assert.equal(stranger.status, 400);
    await client.ok('POST', `${GROUPS}/mig/resize?size=3`);
    const tooMany = await client.call('POST', `${GROUPS}/mig/resize?size=1001`);
    assert.equal(tooMany.status, 400);
    assert.equal(errorMessage(tooMany), "Invalid value for field 'size': '1001'. Target size must be at most 1000.");
  });

  it('a rolling update (patch with versions and a PROACTIVE policy) replaces every instance; then the old template can go', async () => {
    const before = (await managed()).map((m) => m.instance);
    await client.ok('PATCH', `${GROUPS}/mig`, {
      versions: [{ instanceTemplate: `${BASE}/p/global/instanceTemplates/t2` }],
      updatePolicy: { type: 'PROACTIVE', maxSurge: { fixed: 1 }, maxUnavailable: { fixed: 0 } },
    });
    const after = await managed();
    assert.equal(after.length, 3);
    for (const member of after) {
      assert.equal(member.version.instanceTemplate, `${BASE}/p/global/instanceTemplates/t2`);
      assert.equal(before.includes(member.instance), false);
    }
    await client.ok('DELETE', 'p/global/instanceTemplates/t1');
  });

  it('setInstanceTemplate changes what new instances get; delete removes the group and its instances; a regional group spreads over zones', async () => {
    await client.ok('POST', `${GROUPS}/mig/setInstanceTemplate`, { instanceTemplate: 'global/instanceTemplates/t2' });
    await client.ok('DELETE', `${GROUPS}/mig`);
    assert.equal((await client.call('GET', `${GROUPS}/mig`)).status, 404);
    const left = await client.ok('GET', 'p/zones/us-central1-a/instances');
    assert.equal((left['items'] as unknown[]).length, 1);
    await client.ok('POST', 'p/regions/us-central1/instanceGroupManagers', {
      name: 'rmig',
      instanceTemplate: 'global/instanceTemplates/t2',
      baseInstanceName: 'r',
      targetSize: 3,
    });
    const zones = (await managed('p/regions/us-central1/instanceGroupManagers/rmig')).map((m) => m.instance.split('/zones/')[1]?.split('/')[0]);
    assert.deepEqual(zones, ['us-central1-a', 'us-central1-b', 'us-central1-c']);
    const missing = await client.call('POST', GROUPS, { name: 'x', instanceTemplate: 'global/instanceTemplates/none', baseInstanceName: 'x', targetSize: 1 });
    assert.equal(missing.status, 404);
    assert.equal(errorMessage(missing), "The resource 'projects/p/global/instanceTemplates/none' was not found");
  });
});
