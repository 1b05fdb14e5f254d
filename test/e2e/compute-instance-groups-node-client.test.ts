// The official Node client (@google-cloud/compute, REST transport), unmodified, through issue 43's
// flow: instance templates → an instance from one → a managed instance group of three → the
// rolling update (a PATCH with versions and a PROACTIVE policy, as `rolling-action
// start-update` sends) replacing them in waves on fogbank's clock → the templates' deletes
// refused while in use → a backend service with a security policy the policy's delete then
// refuses. The clock is frozen: each step of the group's update happens when the test moves it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BackendServicesClient,
  GlobalOperationsClient,
  InstanceGroupManagersClient,
  InstanceGroupsClient,
  InstancesClient,
  InstanceTemplatesClient,
  SecurityPoliciesClient,
  ZoneOperationsClient,
} from '@google-cloud/compute';
import { OAuth2Client } from 'google-auth-library';
import { advanceFiring } from '../../src/lib/controlled-clock.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'e2e-groups-node-client';
const PROJECT = 'p';
const ZONE = 'us-central1-a';
const GROUP = { project: PROJECT, zone: ZONE, instanceGroupManager: 'mig' };

type ClientOptions = ConstructorParameters<typeof InstanceTemplatesClient>[0] & object;

/** An Operation as the client hands it back: `latestResponse` is the compute#operation. */
interface StartedOperation {
  readonly latestResponse: { readonly name?: string | null };
}

/** errorOf runs a call expected to fail and returns the HTTP status, the reason and the message fogbank sent. */
async function errorOf(call: Promise<unknown>): Promise<{ status: number; reason: string; message: string }> {
  try {
    await call;
  } catch (error) {
    const failure = error as { status?: number; message: string };
    const body = JSON.parse(failure.message) as { error: { code: number; message: string; errors: { reason: string }[] } };
    return { status: failure.status ?? 0, reason: body.error.errors[0]?.reason ?? '', message: body.error.message };
  }
  assert.fail('the call succeeded');
}

/** fixedOrPercent reads a FixedOrPercent's set fields (the client's message objects also carry their oneof markers). */
const fixedOrPercent = (value: { fixed?: number | null; percent?: number | null; calculated?: number | null } | null | undefined) =>
  Object.fromEntries(
    Object.entries({ fixed: value?.fixed, percent: value?.percent, calculated: value?.calculated }).filter(([, v]) => v !== undefined && v !== null),
  );

const last = (url: string | null | undefined) => String(url).slice(String(url).lastIndexOf('/') + 1);

describe('@google-cloud/compute: instances, managed instance groups and backend services against fogbank', () => {
  let server: RunningFogbank;
  let options: ClientOptions;
  let templates: InstanceTemplatesClient;
  let instances: InstancesClient;
  let groups: InstanceGroupManagersClient;
  let zoneOperations: ZoneOperationsClient;
  let globalOperations: GlobalOperationsClient;

  /** tick moves fogbank's clock, firing what falls due on the way (an Operation's steps, the group's update). */
  const tick = (ms: number) => advanceFiring(server.control.clock, server.control.timers, ms);

  /** done lets the Operation's own time pass (PENDING, RUNNING) and waits on it with the client's wait method. */
  const zoneDone = async (operation: unknown): Promise<Record<string, unknown>> => {
    await tick(1_000);
    const [current] = await zoneOperations.wait({ project: PROJECT, zone: ZONE, operation: (operation as StartedOperation).latestResponse.name! });
    assert.equal(current.status, 'DONE');
    assert.equal(current.error ?? undefined, undefined);
    return current as Record<string, unknown>;
  };
  const globalDone = async (operation: unknown): Promise<Record<string, unknown>> => {
    await tick(1_000);
    const [current] = await globalOperations.wait({ project: PROJECT, operation: (operation as StartedOperation).latestResponse.name! });
    assert.equal(current.status, 'DONE');
    return current as Record<string, unknown>;
  };

  /** members are listManagedInstances' rows: name, instance status, current action, template. */
  const members = async (): Promise<string[][]> => {
    const [rows] = await groups.listManagedInstances(GROUP);
    return rows.map((row) => [last(row.instance), String(row.instanceStatus), String(row.currentAction), last(row.version?.instanceTemplate)]);
  };

  before(async () => {
    server = await startFogbank({ operations: 'realistic', adminToken: TOKEN });
    server.control.clock.freeze();
    const url = new URL(server.url);
    const authClient = new OAuth2Client();
    authClient.setCredentials({ access_token: TOKEN });
    options = { apiEndpoint: url.hostname, port: Number(url.port), protocol: 'http', fallback: true, authClient };
    templates = new InstanceTemplatesClient(options);
    instances = new InstancesClient(options);
    groups = new InstanceGroupManagersClient(options);
    zoneOperations = new ZoneOperationsClient(options);
    globalOperations = new GlobalOperationsClient(options);
  });
  after(async () => {
    await server.close();
  });

  it('inserts two templates and an instance from one, PROVISIONING, then STAGING, then RUNNING', async () => {
    for (const [name, machineType] of [
      ['t1', 'e2-small'],
      ['t2', 'e2-medium'],
    ] as const) {
      const [operation] = await templates.insert({
        project: PROJECT,
        instanceTemplateResource: { name, properties: { machineType, networkInterfaces: [{ network: 'global/networks/default' }] } },
      });
      await globalDone(operation);
    }
    const [operation] = await instances.insert({
      project: PROJECT,
      zone: ZONE,
      sourceInstanceTemplate: 'global/instanceTemplates/t1',
      instanceResource: { name: 'vm1' },
    });
    const status = async () => (await instances.get({ project: PROJECT, zone: ZONE, instance: 'vm1' }))[0].status;
    assert.equal(await status(), 'PROVISIONING');
    await tick(150);
    assert.equal(await status(), 'STAGING');
    await zoneDone(operation);
    const [vm] = await instances.get({ project: PROJECT, zone: ZONE, instance: 'vm1' });
    assert.equal(vm.status, 'RUNNING');
    assert.equal(last(vm.machineType), 'e2-small');
    assert.equal(vm.metadata?.items?.find((item) => item.key === 'instance-template')?.value, 'projects/p/global/instanceTemplates/t1');
  });

  it('a group of three from t1: its Operation is done while its instances come up on the clock, then three RUNNING with currentAction NONE', async () => {
    const [operation] = await groups.insert({
      project: PROJECT,
      zone: ZONE,
      instanceGroupManagerResource: { name: 'mig', baseInstanceName: 'web', instanceTemplate: 'global/instanceTemplates/t1', targetSize: 3 },
    });
    const done = await zoneDone(operation);
    assert.equal(done['operationType'], 'compute.instanceGroupManagers.insert');
    assert.deepEqual(
      (await members()).map((row) => row.slice(1)),
      Array(3).fill(['PROVISIONING', 'CREATING', 't1']),
    );
    await tick(5_000);
    assert.deepEqual(
      (await members()).map((row) => row.slice(1, 3)),
      Array(3).fill(['STAGING', 'CREATING']),
    );
    await tick(15_000);
    assert.deepEqual(
      (await members()).map((row) => row.slice(1, 3)),
      Array(3).fill(['RUNNING', 'VERIFYING']),
    );
    let [group] = await groups.get(GROUP);
    assert.equal(group.status?.isStable, false);
    assert.equal(group.currentActions?.verifying, 3);
    await tick(10_000);
    const rows = await members();
    for (const [name, ...rest] of rows) {
      assert.match(name!, /^web-[a-z0-9]{4}$/);
      assert.deepEqual(rest, ['RUNNING', 'NONE', 't1']);
    }
    [group] = await groups.get(GROUP);
    assert.equal(group.status?.isStable, true);
    assert.equal(group.status?.versionTarget?.isReached, true);
    assert.equal(group.currentActions?.none, 3);
    // The default policy: opportunistic, replace by substitution, one surge and one unavailable in a zone.
    const policy = group.updatePolicy;
    assert.deepEqual(
      [policy?.type, policy?.minimalAction, policy?.replacementMethod, fixedOrPercent(policy?.maxSurge), fixedOrPercent(policy?.maxUnavailable)],
      ['OPPORTUNISTIC', 'REPLACE', 'SUBSTITUTE', { fixed: 1, calculated: 1 }, { fixed: 1, calculated: 1 }],
    );
  });

  it('the group’s instance group: get shows its size, listInstances its instances', async () => {
    const instanceGroups = new InstanceGroupsClient(options);
    const [group] = await instanceGroups.get({ project: PROJECT, zone: ZONE, instanceGroup: 'mig' });
    assert.equal(group.size, 3);
    assert.equal(group.description?.startsWith("This instance group is controlled by Instance Group Manager 'mig'."), true);
    assert.equal(group.selfLink, (await groups.get(GROUP))[0].instanceGroup);
    const listed: string[][] = [];
    for await (const item of instanceGroups.listInstancesAsync({
      project: PROJECT,
      zone: ZONE,
      instanceGroup: 'mig',
      instanceGroupsListInstancesRequestResource: { instanceState: 'RUNNING' },
    }))
      listed.push([last(item.instance), String(item.status)]);
    assert.deepEqual(listed.sort(), (await members()).map(([name, status]) => [name!, status!]).sort());
  });

  it('t1 cannot be deleted while the group uses it', async () => {
    assert.deepEqual(await errorOf(templates.delete({ project: PROJECT, instanceTemplate: 't1' })), {
      status: 400,
      reason: 'resourceInUseByAnotherResource',
      message:
        "The instance_template resource 'projects/p/global/instanceTemplates/t1' is already being used by 'projects/p/zones/us-central1-a/instanceGroupManagers/mig'",
    });
  });

  it('a RECREATE replacement with a surge is refused with the real message', async () => {
    const refused = await errorOf(
      groups.patch({
        ...GROUP,
        instanceGroupManagerResource: { updatePolicy: { type: 'PROACTIVE', replacementMethod: 'RECREATE', maxSurge: { fixed: 1 } } },
      }),
    );
    assert.deepEqual(refused, {
      status: 400,
      reason: 'invalid',
      message:
        "Invalid value for field 'resource.updatePolicy.maxSurge': '{  \"fixed\": 1}'. maxSurge must be equal to 0 when replacement method is set to RECREATE",
    });
  });

  it('the rolling update (versions t2, PROACTIVE, maxSurge 1, maxUnavailable 0) replaces one instance at a time, never fewer than three serving', async () => {
    const before = (await members()).map(([name]) => name);
    const [operation] = await groups.patch({
      ...GROUP,
      instanceGroupManagerResource: {
        versions: [{ instanceTemplate: `projects/${PROJECT}/global/instanceTemplates/t2` }],
        updatePolicy: { type: 'PROACTIVE', minimalAction: 'REPLACE', maxSurge: { fixed: 1 }, maxUnavailable: { fixed: 0 } },
      },
    });
    assert.equal((await zoneDone(operation))['operationType'], 'compute.instanceGroupManagers.patch');
    let rows = await members();
    assert.equal(rows.length, 4);
    assert.deepEqual(
      rows.filter(([, , action]) => action !== 'NONE').map((row) => row.slice(1)),
      [['PROVISIONING', 'CREATING', 't2']],
    );
    const [group] = await groups.get(GROUP);
    assert.equal(group.status?.isStable, false);
    assert.equal(group.status?.versionTarget?.isReached, false);
    assert.deepEqual(fixedOrPercent(group.updatePolicy?.maxSurge), { fixed: 1, calculated: 1 });
    const seen = new Set<string>();
    for (let step = 0; step < 40; step++) {
      rows = await members();
      const serving = rows.filter(([, status, action]) => status === 'RUNNING' && (action === 'NONE' || action === 'VERIFYING')).length;
      const live = rows.filter(([, , action]) => action !== 'DELETING').length;
      assert.ok(serving >= 3, `fewer than three serving: ${JSON.stringify(rows)}`);
      assert.ok(live <= 4, `more than one surge instance: ${JSON.stringify(rows)}`);
      for (const [, status, action] of rows) seen.add(`${action} ${status}`);
      if ((await groups.get(GROUP))[0].status?.isStable === true) break;
      await tick(5_000);
    }
    assert.deepEqual([...seen].sort(), ['CREATING PROVISIONING', 'CREATING STAGING', 'DELETING STOPPING', 'NONE RUNNING', 'VERIFYING RUNNING']);
    rows = await members();
    assert.equal(rows.length, 3);
    for (const [name, ...rest] of rows) {
      assert.equal(before.includes(name), false);
      assert.deepEqual(rest, ['RUNNING', 'NONE', 't2']);
    }
    const [stable] = await groups.get(GROUP);
    assert.equal(stable.status?.versionTarget?.isReached, true);
    // The replaced instances are gone, the new ones run t2's machine type.
    const [vms] = await instances.list({ project: PROJECT, zone: ZONE });
    assert.deepEqual(vms.map((vm) => [vm.name, last(vm.machineType)]).sort(), [['vm1', 'e2-small'], ...rows.map(([name]) => [name, 'e2-medium'])].sort());
  });

  it('an OPPORTUNISTIC group given t3 leaves its instances be; applyUpdatesToInstances restarts the one named in place, as far as allowed', async () => {
    const [inserted] = await templates.insert({
      project: PROJECT,
      instanceTemplateResource: { name: 't3', properties: { machineType: 'e2-small', networkInterfaces: [{ network: 'global/networks/default' }] } },
    });
    await globalDone(inserted);
    await zoneDone((await groups.patch({ ...GROUP, instanceGroupManagerResource: { updatePolicy: { type: 'OPPORTUNISTIC' } } }))[0]);
    await zoneDone(
      (
        await groups.setInstanceTemplate({
          ...GROUP,
          instanceGroupManagersSetInstanceTemplateRequestResource: { instanceTemplate: 'global/instanceTemplates/t3' },
        })
      )[0],
    );
    const before = await members();
    assert.deepEqual(
      before.map((row) => row.slice(1)),
      Array(3).fill(['RUNNING', 'NONE', 't2']),
    );
    assert.equal((await groups.get(GROUP))[0].status?.versionTarget?.isReached, false);
    const [first, second] = before.map(([name]) => `zones/${ZONE}/instances/${name}`);
    // t2 → t3 changes the machine type: a restart, more than a refresh allows.
    const apply = (instance: string, mostDisruptiveAllowedAction: string) =>
      groups.applyUpdatesToInstances({
        ...GROUP,
        instanceGroupManagersApplyUpdatesRequestResource: { instances: [instance], minimalAction: 'NONE', mostDisruptiveAllowedAction },
      });
    await zoneDone((await apply(second!, 'REFRESH'))[0]);
    await zoneDone((await apply(first!, 'RESTART'))[0]);
    const trail = [await members()];
    for (const step of [20_000, 15_000, 10_000]) {
      await tick(step);
      trail.push(await members());
    }
    assert.deepEqual(
      trail.map((rows) => rows[0]!.slice(1)),
      [
        ['STOPPING', 'RESTARTING', 't3'],
        ['STAGING', 'RESTARTING', 't3'],
        ['RUNNING', 'VERIFYING', 't3'],
        ['RUNNING', 'NONE', 't3'],
      ],
    );
    assert.deepEqual(
      trail.at(-1)!.map(([name, , , template]) => [name, template]),
      before.map(([name], i) => [name, i === 0 ? 't3' : 't2']),
    );
    const [restarted] = await instances.get({ project: PROJECT, zone: ZONE, instance: before[0]![0]! });
    assert.equal(last(restarted.machineType), 'e2-small');
  });

  it('t1 and t2 can go once the group does not name them; t3 only after the group is deleted', async () => {
    await globalDone((await templates.delete({ project: PROJECT, instanceTemplate: 't1' }))[0]);
    await globalDone((await templates.delete({ project: PROJECT, instanceTemplate: 't2' }))[0]);
    const refused = await errorOf(templates.delete({ project: PROJECT, instanceTemplate: 't3' }));
    assert.equal(refused.reason, 'resourceInUseByAnotherResource');
    const [operation] = await groups.delete(GROUP);
    assert.equal((await zoneDone(operation))['operationType'], 'compute.instanceGroupManagers.delete');
    const [vms] = await instances.list({ project: PROJECT, zone: ZONE });
    assert.deepEqual(
      vms.map((vm) => vm.name),
      ['vm1'],
    );
    await globalDone((await templates.delete({ project: PROJECT, instanceTemplate: 't3' }))[0]);
  });

  it('a backend service takes a security policy; get shows it; the policy cannot be deleted while attached', async () => {
    const backends = new BackendServicesClient(options);
    const policies = new SecurityPoliciesClient(options);
    await globalDone(
      (await policies.insert({ project: PROJECT, securityPolicyResource: { name: 'armor', type: 'CLOUD_ARMOR', description: 'edge rules' } }))[0],
    );
    await globalDone(
      (await backends.insert({ project: PROJECT, backendServiceResource: { name: 'web', protocol: 'HTTP', loadBalancingScheme: 'EXTERNAL_MANAGED' } }))[0],
    );
    await globalDone(
      (
        await backends.setSecurityPolicy({
          project: PROJECT,
          backendService: 'web',
          securityPolicyReferenceResource: { securityPolicy: `projects/${PROJECT}/global/securityPolicies/armor` },
        })
      )[0],
    );
    const [service] = await backends.get({ project: PROJECT, backendService: 'web' });
    assert.match(String(service.securityPolicy), /\/projects\/p\/global\/securityPolicies\/armor$/);
    assert.deepEqual(await errorOf(policies.delete({ project: PROJECT, securityPolicy: 'armor' })), {
      status: 400,
      reason: 'resourceInUseByAnotherResource',
      message: "The security_policy resource 'projects/p/global/securityPolicies/armor' is already being used by 'projects/p/global/backendServices/web'",
    });
  });
});
