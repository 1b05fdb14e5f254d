import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { REGION_NAMES } from '../shared/locations.ts';
import { AUTO_MODE_SUBNET_RANGES } from './networks.ts';

const ADMIN = { authorization: 'Bearer admin' };

describe('the default network', () => {
  let srv: RunningFogbank;
  const get = async (url: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await srv.app.inject({ method: 'GET', url: `/compute/v1/projects/p/${url}`, headers: ADMIN });
    return { status: response.statusCode, body: response.json() };
  };

  before(async () => {
    srv = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: 'admin', logLevel: 'silent' });
  });
  after(async () => {
    await srv.close();
  });

  it('has the real auto-mode range in every catalog region, each range once', () => {
    assert.deepEqual(Object.keys(AUTO_MODE_SUBNET_RANGES).sort(), [...REGION_NAMES]);
    assert.equal(new Set(Object.values(AUTO_MODE_SUBNET_RANGES)).size, REGION_NAMES.length);
  });

  it('serves each region’s default subnetwork with its auto-mode range and gateway', async () => {
    for (const [region, range, gateway] of [
      ['us-central1', '10.128.0.0/20', '10.128.0.1'],
      ['europe-west1', '10.132.0.0/20', '10.132.0.1'],
      ['us-west1', '10.138.0.0/20', '10.138.0.1'],
      ['asia-southeast2', '10.184.0.0/20', '10.184.0.1'],
      ['europe-central2', '10.186.0.0/20', '10.186.0.1'],
      ['me-west1', '10.208.0.0/20', '10.208.0.1'],
    ]) {
      const { status, body } = await get(`regions/${region}/subnetworks/default`);
      assert.equal(status, 200);
      assert.equal(body['ipCidrRange'], range, region);
      assert.equal(body['gatewayAddress'], gateway, region);
      assert.equal(body['region'], `http://localhost:80/compute/v1/projects/p/regions/${region}`);
    }
  });

  it('aggregated/subnetworks lists the default subnetwork of every region, paged and filtered', async () => {
    const { status, body } = await get('aggregated/subnetworks');
    assert.equal(status, 200);
    assert.equal(body['kind'], 'compute#subnetworkAggregatedList');
    const scopes = Object.entries(body['items'] as Record<string, { subnetworks?: { ipCidrRange: string }[] }>).filter(
      ([, entry]) => entry.subnetworks !== undefined,
    );
    assert.equal(scopes.length, REGION_NAMES.length);
    const europe = (body['items'] as Record<string, { subnetworks: { ipCidrRange: string }[] }>)['regions/europe-west1'];
    assert.deepEqual(
      europe?.subnetworks.map((subnet) => subnet.ipCidrRange),
      ['10.132.0.0/20'],
    );
    const page = await get('aggregated/subnetworks?maxResults=2');
    assert.equal(Object.values(page.body['items'] as Record<string, { subnetworks?: unknown[] }>).filter((entry) => entry.subnetworks !== undefined).length, 2);
    assert.equal(typeof page.body['nextPageToken'], 'string');
    const filtered = await get(`aggregated/subnetworks?filter=${encodeURIComponent('ipCidrRange = "10.128.0.0/20"')}`);
    const filteredItems = filtered.body['items'] as Record<string, { subnetworks?: unknown[] }>;
    assert.deepEqual(
      Object.keys(filteredItems).filter((scope) => filteredItems[scope]?.subnetworks !== undefined),
      ['regions/us-central1'],
    );
  });

  it('the network lists one subnetwork per region', async () => {
    const { body } = await get('global/networks/default');
    assert.equal((body['subnetworks'] as string[]).length, REGION_NAMES.length);
    assert.equal(body['autoCreateSubnetworks'], true);
  });
});
