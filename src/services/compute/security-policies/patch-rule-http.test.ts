import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';
import { ACCEPTED_PATCHES, ALLOW_RULE, RULE_VALIDATION_CASES, type RuleValidationCase } from './testing/rule-validation-cases.ts';

const TOKEN = 'patch-rule-http';

/**
 * patchRule over HTTP, one policy per row: every rejected patch answers 400 with the exact
 * message and leaves the policy (rules and fingerprint) as it was; every validateOnly patch
 * answers a DONE Operation and also leaves it as it was; the same patch without validateOnly
 * changes the rule and the fingerprint.
 */
describe('patchRule over HTTP', () => {
  let server: RunningFogbank;
  let client: ComputeClient;
  let project = 0;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
    client = new ComputeClient(server, TOKEN);
  });
  after(async () => {
    await server.close();
  });

  /** setUp creates the row's policy in a project of its own and returns the policy path. */
  async function setUp(row: Omit<RuleValidationCase, 'message'>): Promise<string> {
    project += 1;
    const collection = row.scope === 'global' ? `p${project}/global/securityPolicies` : `p${project}/regions/us-central1/securityPolicies`;
    const network = row.policyType === 'CLOUD_ARMOR_NETWORK' ? { userDefinedFields: [{ name: 'f1', base: 'IPV4', offset: 8, size: 2 }] } : {};
    await client.ok('POST', collection, { name: 'pol', ...(row.policyType === undefined ? {} : { type: row.policyType }), ...network });
    const path = `${collection}/pol`;
    if (row.priority === undefined) await client.ok('POST', `${path}/addRule`, row.base ?? ALLOW_RULE);
    return path;
  }

  function patchUrl(path: string, row: Omit<RuleValidationCase, 'message'>, validateOnly: boolean): string {
    const mask = row.updateMask === undefined ? '' : `&updateMask=${encodeURIComponent(row.updateMask)}`;
    return `${path}/patchRule?priority=${row.priority ?? 1000}${mask}${validateOnly ? '&validateOnly=true' : ''}`;
  }

  for (const row of RULE_VALIDATION_CASES) {
    it(`rejects: ${row.name}`, async () => {
      const path = await setUp(row);
      const before = await client.ok('GET', path);
      for (const validateOnly of [false, true]) {
        const reply = await client.call('POST', patchUrl(path, row, validateOnly), row.body);
        assert.equal(reply.status, 400, JSON.stringify(reply.body));
        assert.equal(errorMessage(reply), row.message);
      }
      assert.deepEqual(await client.ok('GET', path), before);
    });
  }

  for (const row of ACCEPTED_PATCHES) {
    it(`accepts: ${row.name} (validateOnly changes nothing, the real patch changes rule and fingerprint)`, async () => {
      const path = await setUp(row);
      const before = await client.ok('GET', path);
      const dryRun = await client.ok('POST', patchUrl(path, row, true), row.body);
      assert.equal(dryRun['status'], 'DONE');
      assert.equal(dryRun['operationType'], 'patchRule');
      assert.equal(dryRun['error'], undefined);
      assert.deepEqual(await client.ok('GET', path), before);

      const op = await client.ok('POST', patchUrl(path, row, false), row.body);
      assert.equal(op['status'], 'DONE');
      assert.equal(op['error'], undefined);
      assert.equal(op['targetLink'], `http://localhost:80/compute/v1/projects/${path}`);
      const after = await client.ok('GET', path);
      assert.notEqual(after['fingerprint'], before['fingerprint']);
      assert.notDeepEqual(after['rules'], before['rules']);
    });
  }

  it('rejects a priority without a rule with the real message, and getRule and removeRule likewise', async () => {
    const path = await setUp({ name: 'missing', body: {} });
    const message = "Invalid value for field 'priority': '2000'. pol does not contain a rule at priority 2000.";
    for (const [method, url] of [
      ['POST', `${path}/patchRule?priority=2000`],
      ['GET', `${path}/getRule?priority=2000`],
      ['POST', `${path}/removeRule?priority=2000`],
    ] as const) {
      const reply = await client.call(method, url, method === 'POST' && url.includes('patch') ? { action: 'deny(403)' } : undefined);
      assert.equal(reply.status, 400);
      assert.equal(errorMessage(reply), message);
    }
    const noPriority = await client.call('POST', `${path}/patchRule`, { action: 'deny(403)' });
    assert.equal(errorMessage(noPriority), "Invalid value for field 'priority': '0'. pol does not contain a rule at priority 0.");
  });
});
