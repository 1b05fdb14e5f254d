import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ComputeClient } from '../../testing/compute-client.ts';
import { startFogbank, type RunningFogbank } from '../../testing/fogbank.ts';

const ADMIN = 'console-workloads-admin';
const ZONE = 'p/zones/us-central1-a';
const API = '/_fogbank/console/api/compute';
const key = (text: string) => encodeURIComponent(text);

describe("the console's instances, groups and backend services views and their actions", () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  /** console calls the console's API with the admin token (a script's way: no CSRF token needed). */
  const console = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => {
    const response = await server.app.inject({
      method,
      url: `${API}${path}`,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> & { error?: { code: number; message: string } } };
  };

  before(async () => {
    server = await startFogbank({ operations: 'instant', adminToken: ADMIN, logLevel: 'silent' });
    client = new ComputeClient(server, ADMIN);
    await client.ok('POST', 'p/global/instanceTemplates', {
      name: 'tpl',
      properties: { machineType: 'e2-small', networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ type: 'ONE_TO_ONE_NAT' }] }] },
    });
    await client.ok('POST', `${ZONE}/instances?sourceInstanceTemplate=global/instanceTemplates/tpl`, { name: 'vm1', labels: { tier: 'front' } });
    await client.ok('POST', `${ZONE}/instanceGroupManagers`, {
      name: 'mig',
      instanceTemplate: 'global/instanceTemplates/tpl',
      baseInstanceName: 'web',
      targetSize: 2,
    });
    await client.ok('POST', 'p/global/securityPolicies', { name: 'pol' });
    await client.ok('POST', 'p/global/securityPolicies', { name: 'edge', type: 'CLOUD_ARMOR_EDGE' });
    await client.ok('POST', 'p/global/backendServices', {
      name: 'web',
      securityPolicy: 'global/securityPolicies/pol',
      edgeSecurityPolicy: 'global/securityPolicies/edge',
    });
    await client.ok('POST', 'p/regions/us-central1/backendServices', { name: 'internal', loadBalancingScheme: 'INTERNAL_MANAGED', protocol: 'HTTP' });
  });
  after(async () => {
    await server.close();
  });

  it('lists instances with zone, status, machine type, addresses, template and labels; the group made its own', async () => {
    const { status, body } = await console('GET', '/instances');
    assert.equal(status, 200);
    const list = body['instances'] as Record<string, unknown>[];
    assert.equal(list.length, 3);
    const vm = list.find((instance) => instance['name'] === 'vm1');
    assert.deepEqual(
      { ...vm, created: typeof vm?.['created'] },
      {
        key: `${ZONE}/vm1`,
        project: 'p',
        zone: 'us-central1-a',
        name: 'vm1',
        path: 'projects/p/zones/us-central1-a/instances/vm1',
        status: 'RUNNING',
        machineType: 'e2-small',
        internalIp: '10.128.0.2',
        externalIp: '203.0.113.1',
        sourceTemplate: 'projects/p/global/instanceTemplates/tpl',
        createdBy: '',
        labels: { tier: 'front' },
        created: 'number',
      },
    );
    const managed = list.filter((instance) => instance['createdBy'] === 'projects/p/zones/us-central1-a/instanceGroupManagers/mig');
    assert.equal(managed.length, 2);
    const detail = await console('GET', `/instances/${key(`${ZONE}/vm1`)}`);
    assert.equal(detail.status, 200);
    assert.ok(Array.isArray((detail.body['properties'] as Record<string, unknown>)['networkInterfaces']));
    const missing = await console('GET', `/instances/${key(`${ZONE}/nope`)}`);
    assert.deepEqual(missing, { status: 404, body: { error: { code: 404, status: 'NOT_FOUND', message: `No instance "${ZONE}/nope".` } } });
  });

  it('shows a group with its template, update policy and managed instances; resizing it is the API resize', async () => {
    const groups = await console('GET', '/groups');
    assert.deepEqual(
      (groups.body['groups'] as Record<string, unknown>[]).map((group) => [group['key'], group['targetSize'], group['instances'], group['isStable']]),
      [[`${ZONE}/mig`, 2, 2, true]],
    );
    const resized = await console('POST', `/groups/${key(`${ZONE}/mig`)}/resize`, { size: 3 });
    assert.equal(resized.status, 200, JSON.stringify(resized.body));
    const operation = resized.body['operation'] as Record<string, unknown>;
    assert.equal(operation['operationType'], 'compute.instanceGroupManagers.resize');
    assert.equal(operation['user'], 'admin@fogbank.local');
    const group = (await console('GET', `/groups/${key(`${ZONE}/mig`)}`)).body;
    assert.equal(group['targetSize'], 3);
    assert.equal((group['updatePolicy'] as Record<string, unknown>)['type'], 'OPPORTUNISTIC');
    assert.equal(group['instanceTemplate'], 'projects/p/global/instanceTemplates/tpl');
    const members = group['managedInstances'] as Record<string, unknown>[];
    assert.deepEqual(
      members.map((member) => [member['currentAction'], member['status'], member['zone']]),
      [
        ['NONE', 'RUNNING', 'us-central1-a'],
        ['NONE', 'RUNNING', 'us-central1-a'],
        ['NONE', 'RUNNING', 'us-central1-a'],
      ],
    );
    // The API's own refusal, in the console's dialect.
    const negative = await console('POST', `/groups/${key(`${ZONE}/mig`)}/resize`, { size: -1 });
    assert.deepEqual(negative.body, {
      error: { code: 400, status: 'INVALID_ARGUMENT', message: "Invalid value for field 'size': '-1'. Target size must be non-negative." },
    });
    const malformed = await console('POST', `/groups/${key(`${ZONE}/mig`)}/resize`, { size: '3', more: 1 });
    assert.equal(malformed.status, 400);
    assert.match(String(malformed.body.error?.message), /^Unknown field "more"/);
  });

  it('starts and stops an instance through the API', async () => {
    const stopped = await console('POST', `/instances/${key(`${ZONE}/vm1`)}/stop`);
    assert.equal((stopped.body['operation'] as Record<string, unknown>)['operationType'], 'stop');
    assert.equal((await console('GET', `/instances/${key(`${ZONE}/vm1`)}`)).body['status'], 'TERMINATED');
    const again = await console('POST', `/instances/${key(`${ZONE}/vm1`)}/start`);
    assert.equal(again.status, 200);
    assert.equal((await console('GET', `/instances/${key(`${ZONE}/vm1`)}`)).body['status'], 'RUNNING');
    const unknown = await console('POST', `/instances/${key(`${ZONE}/vm1`)}/explode`);
    assert.equal(unknown.status, 404);
  });

  it('shows a backend service with its policies, the policy with the services using it, and detaches and attaches through the API', async () => {
    const list = (await console('GET', '/backend-services')).body['backendServices'] as Record<string, unknown>[];
    assert.deepEqual(
      list.map((service) => [service['key'], service['location'], service['loadBalancingScheme']]),
      [
        ['p/global/web', 'global', 'EXTERNAL'],
        ['p/regions/us-central1/internal', 'us-central1', 'INTERNAL_MANAGED'],
      ],
    );
    const web = (await console('GET', `/backend-services/${key('p/global/web')}`)).body;
    assert.deepEqual(web['securityPolicy'], { path: 'projects/p/global/securityPolicies/pol', key: 'p/global/pol', name: 'pol' });
    assert.deepEqual(web['edgeSecurityPolicy'], { path: 'projects/p/global/securityPolicies/edge', key: 'p/global/edge', name: 'edge' });
    const usedBy = async (policy: string) =>
      ((await console('GET', `/policies/${key(policy)}`)).body['usedBy'] as Record<string, unknown>[]).map((service) => service['key']);
    assert.deepEqual(await usedBy('p/global/pol'), ['p/global/web']);
    assert.deepEqual(await usedBy('p/global/edge'), ['p/global/web']);
    // A reference may cross projects.
    await client.ok('POST', 'q/global/backendServices', { name: 'other', securityPolicy: 'projects/p/global/securityPolicies/pol' });
    assert.deepEqual(await usedBy('p/global/pol'), ['p/global/web', 'q/global/other']);
    await client.ok('DELETE', 'q/global/backendServices/other');

    const detached = await console('POST', `/backend-services/${key('p/global/web')}/security-policy`, { slot: 'securityPolicy', policy: null });
    assert.equal((detached.body['operation'] as Record<string, unknown>)['operationType'], 'setSecurityPolicy');
    assert.equal((await console('GET', `/backend-services/${key('p/global/web')}`)).body['securityPolicy'], undefined);
    assert.deepEqual(await usedBy('p/global/pol'), []);
    const missing = await console('POST', `/backend-services/${key('p/global/web')}/security-policy`, { slot: 'securityPolicy', policy: 'p/global/none' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error?.message, "The resource 'projects/p/global/securityPolicies/none' was not found");
    // A regional backend service has no edge policy: the API has no such method for it.
    const regional = await console('POST', `/backend-services/${key('p/regions/us-central1/internal')}/security-policy`, {
      slot: 'edgeSecurityPolicy',
      policy: 'p/global/edge',
    });
    assert.equal(regional.status, 404);
    const attached = await console('POST', `/backend-services/${key('p/global/web')}/security-policy`, { slot: 'securityPolicy', policy: 'p/global/pol' });
    assert.equal(attached.status, 200);
    assert.deepEqual(await usedBy('p/global/pol'), ['p/global/web']);
  });

  it('refuses an action without a session, and leaves the instance alone', async () => {
    const anonymous = await server.app.inject({ method: 'DELETE', url: `${API}/instances/${key(`${ZONE}/vm1`)}` });
    assert.equal(anonymous.statusCode, 401);
    assert.equal((await console('GET', `/instances/${key(`${ZONE}/vm1`)}`)).body['status'], 'RUNNING');
  });

  it('deletes a group and its instances through the API', async () => {
    const deleted = await console('DELETE', `/groups/${key(`${ZONE}/mig`)}`);
    assert.equal((deleted.body['operation'] as Record<string, unknown>)['operationType'], 'compute.instanceGroupManagers.delete');
    assert.deepEqual((await console('GET', '/groups')).body['groups'], []);
    assert.deepEqual(
      ((await console('GET', '/instances')).body['instances'] as Record<string, unknown>[]).map((instance) => instance['name']),
      ['vm1'],
    );
  });
});
