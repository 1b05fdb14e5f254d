import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ComputeClient } from '../../testing/compute-client.ts';
import { startFogbank, type RunningFogbank } from '../../testing/fogbank.ts';
import { instanceTemplates, recentOperations, securityPolicies, securityPolicyDetail } from './public.ts';

describe("compute's face reads what the API wrote", () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({ operations: 'instant', adminToken: 'face-admin' });
    client = new ComputeClient(server, 'face-admin');
    // A frozen clock moved a second between the writes, so each Operation has its own insert time.
    server.control.clock.freeze();
    await client.ok('POST', 'p/regions/us-central1/securityPolicies', { name: 'pol', description: 'regional' });
    server.control.clock.advance(1000);
    await client.ok('POST', 'p/regions/us-central1/securityPolicies/pol/addRule', {
      priority: 10,
      action: 'deny(403)',
      match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['10.0.0.0/8'] } },
    });
    server.control.clock.advance(1000);
    await client.ok('POST', 'q/global/instanceTemplates', { name: 'tpl', description: 'small', properties: { machineType: 'e2-small' } });
  });
  after(async () => {
    await server.close();
  });

  it('lists security policies with where they are and how many rules they have', async () => {
    assert.deepEqual(await securityPolicies(server.store), [
      { key: 'p/regions/us-central1/pol', project: 'p', location: 'us-central1', name: 'pol', type: 'CLOUD_ARMOR', description: 'regional', rules: 2 },
    ]);
  });

  it('reads one policy with its rules in priority order and its changes newest first', async () => {
    const detail = await securityPolicyDetail(server.store, 'p/regions/us-central1/pol');
    assert.ok(detail);
    assert.deepEqual(
      detail.rules.map((rule) => rule.priority),
      [10, 2147483647],
    );
    assert.deepEqual(
      detail.history.map((change) => [change.method, change.user, change.before === null, change.after.rules.length]),
      [
        ['addRule', 'admin@fogbank.local', false, 2],
        ['insert', 'admin@fogbank.local', true, 1],
      ],
    );
    assert.ok((detail.history[0]?.revision ?? 0) > (detail.history[1]?.revision ?? 0));
    assert.equal(await securityPolicyDetail(server.store, 'p/regions/us-central1/none'), undefined);
  });

  it('lists instance templates with their machine type', async () => {
    const [template, ...rest] = await instanceTemplates(server.store);
    assert.deepEqual(rest, []);
    assert.deepEqual(
      { ...template, created: typeof template?.created },
      {
        key: 'q/global/tpl',
        project: 'q',
        name: 'tpl',
        description: 'small',
        created: 'number',
        machineType: 'e2-small',
      },
    );
  });

  it('lists the newest Operations first, at most as many as asked', async () => {
    const all = await recentOperations(server.store, 10);
    assert.deepEqual(
      all.map((op) => [op.operationType, op.status, op.location]),
      [
        ['insert', 'DONE', 'global'],
        ['addRule', 'DONE', 'us-central1'],
        ['insert', 'DONE', 'us-central1'],
      ],
    );
    assert.deepEqual(await recentOperations(server.store, 1), all.slice(0, 1));
  });
});
