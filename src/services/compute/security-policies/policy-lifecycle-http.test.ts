import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';

const ADMIN = 'lifecycle-admin';
const BASE = 'http://localhost:80/compute/v1/projects';
const REGIONAL = 'p/regions/us-central1/securityPolicies';
const DEFAULT_RULE = {
  action: 'allow',
  description: 'default rule',
  kind: 'compute#securityPolicyRule',
  match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
  preview: false,
  priority: 2147483647,
};

describe('security policies over HTTP: life cycle', () => {
  let server: RunningFogbank;
  let client: ComputeClient;

  before(async () => {
    server = await startFogbank({
      host: '127.0.0.1',
      port: 0,
      store: 'memory',
      operations: 'instant',
      adminToken: ADMIN,
      logLevel: 'silent',
      tokens: [
        { token: 'reader', email: 'reader@example.com', scopes: ['compute.readonly'], permissions: ['compute.regionSecurityPolicies.*'] },
        { token: 'getter', email: 'getter@example.com', scopes: ['compute'], permissions: ['compute.regionSecurityPolicies.get'] },
      ],
    });
    client = new ComputeClient(server, ADMIN);
  });
  after(async () => {
    await server.close();
  });

  it('insert answers an insert Operation on the policy and creates the default rule', async () => {
    const op = await client.ok('POST', REGIONAL, { name: 'pol', description: 'd' });
    assert.equal(op['operationType'], 'insert');
    assert.equal(op['targetLink'], `${BASE}/${REGIONAL}/pol`);
    assert.equal(op['region'], `${BASE}/p/regions/us-central1`);
    const policy = await client.ok('GET', `${REGIONAL}/pol`);
    assert.equal(policy['kind'], 'compute#securityPolicy');
    // No type given: the real one.
    assert.equal(policy['type'], 'CLOUD_ARMOR');
    assert.equal(policy['region'], `${BASE}/p/regions/us-central1`);
    assert.equal(policy['selfLink'], `${BASE}/${REGIONAL}/pol`);
    assert.match(String(policy['fingerprint']), /^[A-Za-z0-9+/]{11}=$/);
    assert.deepEqual(policy['rules'], [DEFAULT_RULE]);
  });

  it('insert rejects a taken name, a bad name, an edge type in a region and duplicate rule priorities', async () => {
    const cases: [unknown, number, string][] = [
      [{ name: 'pol' }, 409, `The resource 'projects/p/regions/us-central1/securityPolicies/pol' already exists`],
      [{ name: 'Pol_1' }, 400, "Invalid value for field 'resource.name': 'Pol_1'. Must be a match of regex '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)'"],
      [
        { name: 'e', type: 'EDGEGUARD_EDGE' },
        400,
        "Invalid value for field 'resource.type': 'EDGEGUARD_EDGE'. Regional security policies must be of type CLOUD_ARMOR, CLOUD_ARMOR_NETWORK or CLOUD_ARMOR_INTERNAL_SERVICE.",
      ],
      [
        { name: 'e', type: 'CLOUD_ARMOR_EDGE' },
        400,
        "Invalid value for field 'resource.type': 'CLOUD_ARMOR_EDGE'. Regional security policies must be of type CLOUD_ARMOR, CLOUD_ARMOR_NETWORK or CLOUD_ARMOR_INTERNAL_SERVICE.",
      ],
      [{ name: 'e', type: 'ARMOR' }, 400, `Invalid value at 'resource.type' (type.googleapis.com/google.cloud.compute.v1.SecurityPolicy.Type), "ARMOR"`],
      [
        {
          name: 'dup',
          rules: [
            { priority: 5, action: 'allow', match: { expr: { expression: 'true' } } },
            { priority: 5, action: 'deny(403)', match: { expr: { expression: 'true' } } },
          ],
        },
        400,
        "Invalid value for field 'resource.rules[1].priority': '5'. Cannot have rules with the same priorities.",
      ],
      [
        { name: 'bad', rules: [{ priority: 5, action: 'redirect', match: { expr: { expression: 'true' } } }] },
        400,
        "Invalid value for field 'resource.rules[0].action': 'redirect'. The redirect action is only supported in global security policies of type CLOUD_ARMOR.",
      ],
    ];
    for (const [body, status, message] of cases) {
      const reply = await client.call('POST', REGIONAL, body);
      assert.equal(reply.status, status);
      assert.equal(errorMessage(reply), message);
    }
  });

  it('addRule keeps rules sorted, fills server fields and rejects a taken priority with the real message', async () => {
    const op = await client.ok('POST', `${REGIONAL}/pol/addRule`, {
      priority: 20,
      action: 'deny(404)',
      match: { expr: { expression: "request.path.startsWith('/x')" } },
      kind: 'ignored',
    });
    assert.equal(op['operationType'], 'addRule');
    await client.ok('POST', `${REGIONAL}/pol/addRule`, {
      priority: 10,
      action: 'allow',
      description: 'first',
      match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['10.0.0.0/8'] } },
    });
    const policy = await client.ok('GET', `${REGIONAL}/pol`);
    assert.deepEqual(
      (policy['rules'] as { priority: number }[]).map((rule) => rule.priority),
      [10, 20, 2147483647],
    );
    assert.deepEqual(await client.ok('GET', `${REGIONAL}/pol/getRule?priority=20`), {
      action: 'deny(404)',
      description: '',
      kind: 'compute#securityPolicyRule',
      match: { expr: { expression: "request.path.startsWith('/x')" } },
      preview: false,
      priority: 20,
    });
    const duplicate = await client.call('POST', `${REGIONAL}/pol/addRule`, { priority: 10, action: 'allow', match: { expr: { expression: 'true' } } });
    assert.equal(duplicate.status, 400);
    assert.equal(errorMessage(duplicate), "Invalid value for field 'resource.priority': '10'. Cannot have rules with the same priorities.");
  });

  it('patchRule with a new body priority moves the rule, unless that priority is taken', async () => {
    await client.ok('POST', `${REGIONAL}/pol/patchRule?priority=20`, { priority: 30 });
    assert.equal((await client.ok('GET', `${REGIONAL}/pol/getRule?priority=30`))['action'], 'deny(404)');
    const taken = await client.call('POST', `${REGIONAL}/pol/patchRule?priority=30`, { priority: 10 });
    assert.equal(errorMessage(taken), "Invalid value for field 'resource.priority': '10'. Cannot have rules with the same priorities.");
    const moveDefault = await client.call('POST', `${REGIONAL}/pol/patchRule?priority=2147483647`, { priority: 5 });
    assert.equal(errorMessage(moveDefault), "Invalid value for field 'resource.priority': '5'. The priority of the default rule cannot be changed.");
  });

  it('removeRule answers a removeRule Operation and refuses the default rule', async () => {
    const op = await client.ok('POST', `${REGIONAL}/pol/removeRule?priority=30`);
    assert.equal(op['operationType'], 'removeRule');
    const reply = await client.call('POST', `${REGIONAL}/pol/removeRule?priority=2147483647`);
    assert.equal(reply.status, 400);
    assert.equal(errorMessage(reply), "Invalid value for field 'priority': '2147483647'. The default rule cannot be removed.");
  });

  it('patch checks the fingerprint as bytes: missing or stale is 412 and changes nothing, current applies and changes it', async () => {
    const policy = await client.ok('GET', `${REGIONAL}/pol`);
    for (const body of [{ description: 'new', fingerprint: 'AAAAAAAAAAA=' }, { description: 'new' }, { description: 'new', fingerprint: '!!' }]) {
      const refused = await client.call('PATCH', `${REGIONAL}/pol`, body);
      assert.equal(refused.status, 412);
      assert.equal(errorMessage(refused), 'Invalid fingerprint.');
    }
    assert.deepEqual(await client.ok('GET', `${REGIONAL}/pol`), policy);
    const op = await client.ok('PATCH', `${REGIONAL}/pol`, {
      description: 'new',
      fingerprint: policy['fingerprint'],
      advancedOptionsConfig: { logLevel: 'VERBOSE' },
    });
    assert.equal(op['operationType'], 'patch');
    const patched = await client.ok('GET', `${REGIONAL}/pol`);
    assert.equal(patched['description'], 'new');
    assert.deepEqual(patched['advancedOptionsConfig'], { logLevel: 'VERBOSE' });
    assert.notEqual(patched['fingerprint'], policy['fingerprint']);
    // gcloud sends the fingerprint back URL-safe and may drop the padding: the same bytes.
    const urlSafe = String(patched['fingerprint']).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
    await client.ok('PATCH', `${REGIONAL}/pol?updateMask=advanced_options_config`, { fingerprint: urlSafe });
    const cleared = await client.ok('GET', `${REGIONAL}/pol`);
    assert.equal(cleared['advancedOptionsConfig'], undefined);
    const typeChange = await client.call('PATCH', `${REGIONAL}/pol`, { type: 'EDGEGUARD_NETWORK', fingerprint: cleared['fingerprint'] });
    assert.equal(errorMessage(typeChange), "Invalid value for field 'resource.type': 'EDGEGUARD_NETWORK'. The type of a security policy cannot be changed.");
    // The same type in the other spelling is no change.
    await client.ok('PATCH', `${REGIONAL}/pol`, { type: 'EDGEGUARD', fingerprint: cleared['fingerprint'] });
  });

  it('patch with rules replaces the rule set at once, validated as a whole, keeping the default rule', async () => {
    const policy = await client.ok('GET', `${REGIONAL}/pol`);
    const rules = [
      { priority: 100, action: 'deny(403)', match: { expr: { expression: "request.path.startsWith('/admin')" } } },
      { priority: 200, action: 'allow', description: 'office', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['10.0.0.0/8'] } } },
    ];
    const duplicate = await client.call('PATCH', `${REGIONAL}/pol`, {
      fingerprint: policy['fingerprint'],
      rules: [...rules, { ...rules[0], action: 'allow' }],
    });
    assert.equal(errorMessage(duplicate), "Invalid value for field 'resource.rules[2].priority': '100'. Cannot have rules with the same priorities.");
    const badExpr = await client.call('PATCH', `${REGIONAL}/pol`, {
      fingerprint: policy['fingerprint'],
      rules: [{ priority: 1, action: 'allow', match: { expr: { expression: 'nope' } } }],
    });
    assert.equal(badExpr.status, 400);
    assert.match(errorMessage(badExpr), /^Invalid value for field 'resource\.rules\[0\]\.match\.expr': .*Error parsing Cloud Armor rule matcher expression: /);
    assert.deepEqual(await client.ok('GET', `${REGIONAL}/pol`), policy);
    await client.ok('PATCH', `${REGIONAL}/pol`, { fingerprint: policy['fingerprint'], rules });
    const replaced = await client.ok('GET', `${REGIONAL}/pol`);
    assert.deepEqual(
      (replaced['rules'] as Record<string, unknown>[]).map((rule) => [rule['priority'], rule['action'], rule['description']]),
      [
        [100, 'deny(403)', ''],
        [200, 'allow', 'office'],
        [2147483647, 'allow', 'default rule'],
      ],
    );
  });

  it('setLabels replaces labels with their own fingerprint', async () => {
    const policy = await client.ok('GET', `${REGIONAL}/pol`);
    const stale = await client.call('POST', `${REGIONAL}/pol/setLabels`, { labels: { env: 'dev' }, labelFingerprint: 'AAAAAAAAAAA=' });
    assert.equal(stale.status, 412);
    assert.equal(errorMessage(stale), 'Labels fingerprint either invalid or resource labels have changed');
    const missing = await client.call('POST', `${REGIONAL}/pol/setLabels`, { labels: { env: 'dev' } });
    assert.equal(missing.status, 412);
    const op = await client.ok('POST', `${REGIONAL}/pol/setLabels`, { labels: { env: 'dev' }, labelFingerprint: policy['labelFingerprint'] });
    assert.equal(op['operationType'], 'setLabels');
    const labelled = await client.ok('GET', `${REGIONAL}/pol`);
    assert.deepEqual(labelled['labels'], { env: 'dev' });
    assert.notEqual(labelled['labelFingerprint'], policy['labelFingerprint']);
  });

  it('list items carry region; aggregatedList groups by scope; global policies live apart', async () => {
    await client.ok('POST', 'p/global/securityPolicies', { name: 'edge', type: 'EDGEGUARD_EDGE' });
    await client.ok('POST', 'p/global/securityPolicies', { name: 'real-edge', type: 'CLOUD_ARMOR_EDGE' });
    const list = await client.ok('GET', REGIONAL);
    assert.equal(list['kind'], 'compute#securityPolicyList');
    assert.deepEqual(
      (list['items'] as Record<string, unknown>[]).map((item) => [item['name'], item['region']]),
      [['pol', `${BASE}/p/regions/us-central1`]],
    );
    const aggregated = await client.ok('GET', 'p/aggregated/securityPolicies?includeAllScopes=True&maxResults=500&returnPartialSuccess=True');
    const items = aggregated['items'] as Record<string, { securityPolicies?: { name: string }[] }>;
    assert.deepEqual(
      items['global']?.securityPolicies?.map((p) => p.name),
      ['edge', 'real-edge'],
    );
    assert.deepEqual(
      items['regions/us-central1']?.securityPolicies?.map((p) => p.name),
      ['pol'],
    );
    const global = await client.ok('GET', 'p/global/securityPolicies/edge');
    assert.equal(global['region'], undefined);
    // Each policy answers in the spelling its creator used.
    assert.equal(global['type'], 'EDGEGUARD_EDGE');
    assert.equal((await client.ok('GET', 'p/global/securityPolicies/real-edge'))['type'], 'CLOUD_ARMOR_EDGE');
    const sets = await client.ok('GET', 'p/global/securityPolicies/listPreconfiguredExpressionSets');
    const ids = (sets['preconfiguredExpressionSets'] as { wafRules: { expressionSets: { id: string }[] } }).wafRules.expressionSets.map((set) => set.id);
    assert.ok(ids.includes('xss-stable') && ids.includes('sqli-v33-stable'));
  });

  it('checks scopes and the regional permissions', async () => {
    const reader = new ComputeClient(server, 'reader');
    assert.equal((await reader.call('GET', `${REGIONAL}/pol/getRule?priority=100`)).status, 200);
    const readOnly = await reader.call('POST', `${REGIONAL}/pol/patchRule?priority=10`, { action: 'deny(403)' });
    assert.equal(readOnly.status, 403);
    assert.equal(errorMessage(readOnly), 'Request had insufficient authentication scopes.');
    const getter = new ComputeClient(server, 'getter');
    assert.equal((await getter.call('GET', `${REGIONAL}/pol`)).status, 200);
    for (const [method, path] of [
      ['POST', `${REGIONAL}/pol/patchRule?priority=10`],
      ['POST', `${REGIONAL}/pol/addRule`],
      ['POST', `${REGIONAL}/pol/removeRule?priority=10`],
      ['PATCH', `${REGIONAL}/pol`],
    ] as const) {
      const reply = await getter.call(method, path, { action: 'deny(403)' });
      assert.equal(reply.status, 403);
      assert.equal(
        errorMessage(reply),
        "Required 'compute.regionSecurityPolicies.update' permission for 'projects/p/regions/us-central1/securityPolicies/pol'",
      );
    }
    const create = await getter.call('POST', REGIONAL, { name: 'other' });
    assert.equal(
      errorMessage(create),
      "Required 'compute.regionSecurityPolicies.create' permission for 'projects/p/regions/us-central1/securityPolicies/other'",
    );
    const global = await getter.call('GET', 'p/global/securityPolicies/edge');
    assert.equal(errorMessage(global), "Required 'compute.securityPolicies.get' permission for 'projects/p/global/securityPolicies/edge'");
  });

  it('delete answers a delete Operation; the policy is gone', async () => {
    const op = await client.ok('DELETE', `${REGIONAL}/pol`);
    assert.equal(op['operationType'], 'delete');
    const gone = await client.call('GET', `${REGIONAL}/pol`);
    assert.equal(gone.status, 404);
    assert.equal(errorMessage(gone), "The resource 'projects/p/regions/us-central1/securityPolicies/pol' was not found");
  });
});
