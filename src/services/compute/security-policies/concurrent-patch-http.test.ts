import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ComputeClient } from '../../../testing/compute-client.ts';

const TOKEN = 'concurrent';
const POLICY = 'p/regions/us-central1/securityPolicies/pol';

/**
 * Concurrent rule changes on one policy, with realistic Operations (the change lands when the
 * Operation completes, well after the request was validated): every accepted change is in the
 * final policy, and one that can no longer apply fails inside its Operation with a clear error.
 */
describe('concurrent patchRule on one policy', () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'realistic', adminToken: TOKEN, logLevel: 'silent' });
    client = new ComputeClient(server, TOKEN);
    await client.done(await client.ok('POST', 'p/regions/us-central1/securityPolicies', { name: 'pol' }));
    const adds = Array.from({ length: 10 }, (_, i) =>
      client.ok('POST', `${POLICY}/addRule`, { priority: 100 + i, action: 'allow', match: { expr: { expression: `origin.asn == ${i}` } } }),
    );
    for (const op of await Promise.all(adds)) assert.equal((await client.done(op))['error'], undefined);
  });
  after(async () => {
    await server.close();
  });

  it('never loses an update', async () => {
    const patches: [number, Record<string, unknown>][] = [
      ...Array.from({ length: 9 }, (_, i): [number, Record<string, unknown>] => [101 + i, { description: `rule ${101 + i}` }]),
      [100, { description: 'several fields, several requests' }],
      [100, { preview: true }],
      [100, { action: 'deny(404)' }],
      [100, { match: { expr: { expression: "request.path.startsWith('/admin')" } } }],
    ];
    const ops = await Promise.all(patches.map(([priority, body]) => client.ok('POST', `${POLICY}/patchRule?priority=${priority}`, { priority, ...body })));
    assert.ok(
      ops.some((op) => op['status'] !== 'DONE'),
      'the changes are applied after the requests return',
    );
    for (const op of ops) assert.equal((await client.done(op))['error'], undefined);

    const rules = (await client.ok('GET', POLICY))['rules'] as Record<string, unknown>[];
    const byPriority = new Map(rules.map((rule) => [rule['priority'], rule]));
    for (let priority = 101; priority <= 109; priority++) assert.equal(byPriority.get(priority)?.['description'], `rule ${priority}`);
    assert.deepEqual(byPriority.get(100), {
      action: 'deny(404)',
      description: 'several fields, several requests',
      kind: 'compute#securityPolicyRule',
      match: { expr: { expression: "request.path.startsWith('/admin')" } },
      preview: true,
      priority: 100,
    });
  });

  it('a patch racing a removal of its rule either lands first or fails with the real message', async () => {
    const [removal, patch] = await Promise.all([
      client.ok('POST', `${POLICY}/removeRule?priority=109`),
      client.ok('POST', `${POLICY}/patchRule?priority=109`, { priority: 109, description: 'late' }),
    ]);
    assert.equal((await client.done(removal))['error'], undefined);
    const patched = await client.done(patch);
    if (patched['error'] !== undefined) {
      assert.deepEqual(patched['error'], {
        errors: [
          {
            code: 'INVALID_FIELD_VALUE',
            message: "Invalid value for field 'priority': '109'. pol does not contain a rule at priority 109.",
            location: 'priority',
          },
        ],
      });
      assert.equal(patched['httpErrorStatusCode'], 400);
    }
    const rules = (await client.ok('GET', POLICY))['rules'] as Record<string, unknown>[];
    assert.equal(
      rules.find((rule) => rule['priority'] === 109),
      undefined,
    );
  });
});
