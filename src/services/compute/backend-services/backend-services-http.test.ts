import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

const ADMIN = 'backend-admin';
const BASE = 'http://localhost:80/compute/v1/projects';

describe('backend services over HTTP', () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: ADMIN, logLevel: 'silent' });
    client = new ComputeClient(server, ADMIN);
    await client.ok('POST', 'p/global/securityPolicies', { name: 'pol' });
    await client.ok('POST', 'p/global/securityPolicies', { name: 'other' });
    await client.ok('POST', 'p/global/securityPolicies', { name: 'edge', type: 'CLOUD_ARMOR_EDGE' });
    await client.ok('POST', 'p/regions/us-central1/securityPolicies', { name: 'rpol' });
    await client.ok('POST', 'p/regions/us-central1/securityPolicies', { name: 'rnet', type: 'CLOUD_ARMOR_NETWORK' });
  });
  after(async () => {
    await server.close();
  });

  it('insert fills the defaults and get answers them, links on the caller address', async () => {
    const op = await client.ok('POST', 'p/global/backendServices', { name: 'web', healthChecks: ['global/healthChecks/hc'] });
    assert.equal(op['operationType'], 'insert');
    assert.equal(op['targetLink'], `${BASE}/p/global/backendServices/web`);
    const web = await client.ok('GET', 'p/global/backendServices/web');
    assert.equal(web['kind'], 'compute#backendService');
    assert.equal(web['protocol'], 'HTTP');
    assert.equal(web['port'], 80);
    assert.equal(web['portName'], 'http');
    assert.equal(web['timeoutSec'], 30);
    assert.equal(web['loadBalancingScheme'], 'EXTERNAL');
    assert.deepEqual(web['connectionDraining'], { drainingTimeoutSec: 300 });
    assert.deepEqual(web['healthChecks'], [`${BASE}/p/global/healthChecks/hc`]);
    assert.equal(web['selfLink'], `${BASE}/p/global/backendServices/web`);
    assert.match(String(web['fingerprint']), /^[A-Za-z0-9+/]{11}=$/);
    assert.equal(web['securityPolicy'], undefined);
  });

  it('refuses a taken name, a bad name and an unknown enum value', async () => {
    const taken = await client.call('POST', 'p/global/backendServices', { name: 'web' });
    assert.equal(taken.status, 409);
    assert.equal(errorMessage(taken), "The resource 'projects/p/global/backendServices/web' already exists");
    const bad = await client.call('POST', 'p/global/backendServices', { name: 'Web_1' });
    assert.equal(bad.status, 400);
    assert.equal(errorMessage(bad), "Invalid value for field 'resource.name': 'Web_1'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'");
    const scheme = await client.call('POST', 'p/global/backendServices', { name: 'x', loadBalancingScheme: 'PUBLIC' });
    assert.equal(scheme.status, 400);
    assert.equal(
      errorMessage(scheme),
      `Invalid value at 'resource.load_balancing_scheme' (type.googleapis.com/google.cloud.compute.v1.BackendService.LoadBalancingScheme), "PUBLIC"`,
    );
  });

  it('setSecurityPolicy attaches a policy, changes the fingerprint, and an empty reference detaches it', async () => {
    const before = await client.ok('GET', 'p/global/backendServices/web');
    const op = await client.ok('POST', 'p/global/backendServices/web/setSecurityPolicy', { securityPolicy: `${BASE}/p/global/securityPolicies/pol` });
    assert.equal(op['operationType'], 'setSecurityPolicy');
    const attached = await client.ok('GET', 'p/global/backendServices/web');
    assert.equal(attached['securityPolicy'], `${BASE}/p/global/securityPolicies/pol`);
    assert.notEqual(attached['fingerprint'], before['fingerprint']);
    await client.ok('POST', 'p/global/backendServices/web/setSecurityPolicy', {});
    assert.equal((await client.ok('GET', 'p/global/backendServices/web'))['securityPolicy'], undefined);
    // A partial path is read against the request's project.
    await client.ok('POST', 'p/global/backendServices/web/setSecurityPolicy', { securityPolicy: 'global/securityPolicies/pol' });
    assert.equal((await client.ok('GET', 'p/global/backendServices/web'))['securityPolicy'], `${BASE}/p/global/securityPolicies/pol`);
  });

  it('patch replaces the policy it names and keeps what it does not name; update replaces the whole resource', async () => {
    await client.ok('PATCH', 'p/global/backendServices/web', { securityPolicy: 'projects/p/global/securityPolicies/other', timeoutSec: 45 });
    let web = await client.ok('GET', 'p/global/backendServices/web');
    assert.equal(web['securityPolicy'], `${BASE}/p/global/securityPolicies/other`);
    assert.equal(web['timeoutSec'], 45);
    await client.ok('PATCH', 'p/global/backendServices/web', { description: 'front' });
    web = await client.ok('GET', 'p/global/backendServices/web');
    assert.equal(web['securityPolicy'], `${BASE}/p/global/securityPolicies/other`);
    const stale = await client.call('PATCH', 'p/global/backendServices/web', { description: 'x', fingerprint: 'AAAAAAAAAAA=' });
    assert.equal(stale.status, 400);
    assert.equal(errorMessage(stale), "Invalid value for field 'resource.fingerprint': 'AAAAAAAAAAA='. Invalid fingerprint.");
    // gcloud's update: GET, change, PUT the whole resource back.
    await client.ok('PUT', 'p/global/backendServices/web', { ...web, securityPolicy: `${BASE}/p/global/securityPolicies/pol`, timeoutSec: 60 });
    web = await client.ok('GET', 'p/global/backendServices/web');
    assert.equal(web['securityPolicy'], `${BASE}/p/global/securityPolicies/pol`);
    assert.equal(web['timeoutSec'], 60);
    assert.equal(web['description'], 'front');
  });

  it('edge policies attach only as the edge policy, and only edge policies do', async () => {
    const asBackend = await client.call('POST', 'p/global/backendServices/web/setSecurityPolicy', { securityPolicy: 'global/securityPolicies/edge' });
    assert.equal(asBackend.status, 400);
    assert.equal(
      errorMessage(asBackend),
      "Invalid value for field 'securityPolicy': 'global/securityPolicies/edge'. Security policy type CLOUD_ARMOR_EDGE can only be set as the edge security policy of a backend service.",
    );
    const notEdge = await client.call('POST', 'p/global/backendServices/web/setEdgeSecurityPolicy', { securityPolicy: 'global/securityPolicies/pol' });
    assert.equal(notEdge.status, 400);
    assert.match(errorMessage(notEdge), /Security policy type CLOUD_ARMOR is not supported as an edge security policy/);
    await client.ok('POST', 'p/global/backendServices/web/setEdgeSecurityPolicy', { securityPolicy: 'global/securityPolicies/edge' });
    const web = await client.ok('GET', 'p/global/backendServices/web');
    assert.equal(web['edgeSecurityPolicy'], `${BASE}/p/global/securityPolicies/edge`);
    assert.equal(web['securityPolicy'], `${BASE}/p/global/securityPolicies/pol`);
  });

  it('regional policies attach only to regional backend services of the same region and a scheme their type serves', async () => {
    const global = await client.call('POST', 'p/global/backendServices/web/setSecurityPolicy', { securityPolicy: 'regions/us-central1/securityPolicies/rpol' });
    assert.equal(global.status, 400);
    assert.match(errorMessage(global), /A regional security policy cannot be attached to a global backend service\.$/);
    await client.ok('POST', 'p/regions/us-central1/backendServices', { name: 'rweb', loadBalancingScheme: 'EXTERNAL_MANAGED' });
    const wrongScope = await client.call('POST', 'p/regions/us-central1/backendServices/rweb/setSecurityPolicy', {
      securityPolicy: 'global/securityPolicies/pol',
    });
    assert.match(errorMessage(wrongScope), /A global security policy cannot be attached to a regional backend service\.$/);
    await client.ok('POST', 'p/regions/us-east1/securityPolicies', { name: 'east' });
    const otherRegion = await client.call('POST', 'p/regions/us-central1/backendServices/rweb/setSecurityPolicy', {
      securityPolicy: 'regions/us-east1/securityPolicies/east',
    });
    assert.match(errorMessage(otherRegion), /must be in the same region as the backend service\.$/);
    const network = await client.call('POST', 'p/regions/us-central1/backendServices/rweb/setSecurityPolicy', {
      securityPolicy: 'regions/us-central1/securityPolicies/rnet',
    });
    assert.match(
      errorMessage(network),
      /Security policy type CLOUD_ARMOR_NETWORK is not supported for regional backend services with load balancing scheme EXTERNAL_MANAGED\.$/,
    );
    await client.ok('POST', 'p/regions/us-central1/backendServices/rweb/setSecurityPolicy', { securityPolicy: 'regions/us-central1/securityPolicies/rpol' });
    const rweb = await client.ok('GET', 'p/regions/us-central1/backendServices/rweb');
    assert.equal(rweb['securityPolicy'], `${BASE}/p/regions/us-central1/securityPolicies/rpol`);
    assert.equal(rweb['region'], `${BASE}/p/regions/us-central1`);
    const edge = await client.call('PATCH', 'p/regions/us-central1/backendServices/rweb', { edgeSecurityPolicy: 'global/securityPolicies/edge' });
    assert.match(errorMessage(edge), /Edge security policies can only be attached to global backend services\.$/);
    // Regional backend services have no setEdgeSecurityPolicy in v1.
    assert.equal((await client.call('POST', 'p/regions/us-central1/backendServices/rweb/setEdgeSecurityPolicy', {})).status, 404);
  });

  it('a missing policy is a 404 and changes nothing', async () => {
    const missing = await client.call('POST', 'p/global/backendServices/web/setSecurityPolicy', { securityPolicy: 'global/securityPolicies/none' });
    assert.equal(missing.status, 404);
    assert.equal(errorMessage(missing), "The resource 'projects/p/global/securityPolicies/none' was not found");
    assert.equal((await client.ok('GET', 'p/global/backendServices/web'))['securityPolicy'], `${BASE}/p/global/securityPolicies/pol`);
  });

  it('a policy attached to a backend service cannot be deleted until it is detached', async () => {
    const refused = await client.call('DELETE', 'p/global/securityPolicies/pol');
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body['error'], {
      code: 400,
      message: "The security_policy resource 'projects/p/global/securityPolicies/pol' is already being used by 'projects/p/global/backendServices/web'",
      errors: [
        {
          message: "The security_policy resource 'projects/p/global/securityPolicies/pol' is already being used by 'projects/p/global/backendServices/web'",
          domain: 'global',
          reason: 'resourceInUseByAnotherResource',
        },
      ],
    });
    const edge = await client.call('DELETE', 'p/global/securityPolicies/edge');
    assert.match(errorMessage(edge), /is already being used by 'projects\/p\/global\/backendServices\/web'$/);
    await client.ok('POST', 'p/global/backendServices/web/setSecurityPolicy', { securityPolicy: '' });
    await client.ok('DELETE', 'p/global/securityPolicies/pol');
  });

  it('list and aggregatedList show both scopes; delete removes', async () => {
    const list = await client.ok('GET', 'p/global/backendServices');
    assert.equal(list['kind'], 'compute#backendServiceList');
    assert.deepEqual(
      (list['items'] as { name: string }[]).map((s) => s.name),
      ['web'],
    );
    const aggregated = await client.ok('GET', 'p/aggregated/backendServices');
    const items = aggregated['items'] as Record<string, { backendServices?: { name: string }[] }>;
    assert.deepEqual(
      items['global']?.backendServices?.map((s) => s.name),
      ['web'],
    );
    assert.deepEqual(
      items['regions/us-central1']?.backendServices?.map((s) => s.name),
      ['rweb'],
    );
    await client.ok('DELETE', 'p/global/backendServices/web');
    assert.equal((await client.call('GET', 'p/global/backendServices/web')).status, 404);
  });
});
