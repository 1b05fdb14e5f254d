import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

const TOKEN = 'query-and-limits';
const POLICIES = '/compute/v1/projects/p/regions/us-central1/securityPolicies';
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';

/**
 * Issue 13 item 6: input the real service rejects. A bool query parameter that is not a bool
 * (`validateOnly=maybe` used to perform the write), security-policy labels (same rules as every
 * compute label) and description lengths. Every rejection is the exact 400 and changes nothing.
 */
describe('query parameters, labels and lengths the real service rejects', () => {
  let server: RunningFogbank;

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
    assert.equal((await call('POST', POLICIES, { name: 'pol' })).status, 200);
  });
  after(async () => {
    await server.close();
  });

  async function call(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await server.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: response.statusCode, body: response.json() };
  }

  const envelope = (message: string) => ({ error: { code: 400, message, errors: [{ message, domain: 'global', reason: 'invalid' }] } });

  async function rejects(method: 'GET' | 'POST' | 'PATCH', url: string, body: unknown, message: string): Promise<void> {
    const before = await server.store.currentRevision();
    const reply = await call(method, url, body);
    assert.equal(reply.status, 400, JSON.stringify(reply.body));
    assert.deepEqual(reply.body, envelope(message));
    assert.equal(await server.store.currentRevision(), before, 'a rejected request must not write');
  }

  describe('bool query parameters', () => {
    it('insert with validateOnly=maybe is refused, not performed', async () => {
      await rejects('POST', `${POLICIES}?validateOnly=maybe`, { name: 'made' }, `Invalid value at 'validate_only' (TYPE_BOOL), "maybe"`);
      assert.equal((await call('GET', `${POLICIES}/made`)).status, 404);
    });
    it('addRule and patchRule with a bad validateOnly', async () => {
      await rejects(
        'POST',
        `${POLICIES}/pol/addRule?validateOnly=yes`,
        { priority: 5, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
        `Invalid value at 'validate_only' (TYPE_BOOL), "yes"`,
      );
      await rejects(
        'POST',
        `${POLICIES}/pol/patchRule?priority=2147483647&validateOnly=2`,
        { action: 'deny(403)' },
        `Invalid value at 'validate_only' (TYPE_BOOL), "2"`,
      );
    });
    it('list parameters are read the same way', async () => {
      await rejects(
        'GET',
        '/compute/v1/projects/p/aggregated/securityPolicies?includeAllScopes=maybe',
        undefined,
        `Invalid value at 'include_all_scopes' (TYPE_BOOL), "maybe"`,
      );
      await rejects('GET', `${TEMPLATES}?returnPartialSuccess=nope`, undefined, `Invalid value at 'return_partial_success' (TYPE_BOOL), "nope"`);
    });
    it('the spellings real clients send are accepted', async () => {
      const spellings: [string, boolean][] = [
        ['true', true],
        ['True', true],
        ['TRUE', true],
        ['1', true],
        ['false', false],
        ['False', false],
        ['0', false],
        ['', false],
      ];
      for (const [i, [value]] of spellings.entries()) {
        const reply = await call('POST', `${POLICIES}?validateOnly=${value}`, { name: `v-${i}` });
        assert.equal(reply.status, 200, `${value}: ${JSON.stringify(reply.body)}`);
      }
      // Only the false ones wrote.
      for (const [i, [value, validateOnly]] of spellings.entries()) {
        assert.equal((await call('GET', `${POLICIES}/v-${i}`)).status, validateOnly ? 404 : 200, value);
      }
      assert.equal(
        (await call('GET', '/compute/v1/projects/p/aggregated/securityPolicies?includeAllScopes=True&returnPartialSuccess=True&maxResults=500')).status,
        200,
      );
    });
  });

  describe('security-policy labels follow the compute label rules', () => {
    const keyMessage = (key: string) =>
      `Invalid value for field 'resource.labels.key': '${key}'. Label key '${key}' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed.`;
    const valueMessage = (value: string) =>
      `Invalid value for field 'resource.labels.value': '${value}'. Label value '${value}' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed.`;
    it('setLabels', async () => {
      await rejects('POST', `${POLICIES}/pol/setLabels`, { labels: { Env: 'prod' } }, keyMessage('Env'));
      await rejects('POST', `${POLICIES}/pol/setLabels`, { labels: { '1env': 'prod' } }, keyMessage('1env'));
      await rejects('POST', `${POLICIES}/pol/setLabels`, { labels: { ['k'.repeat(64)]: 'x' } }, keyMessage('k'.repeat(64)));
      await rejects('POST', `${POLICIES}/pol/setLabels`, { labels: { env: 'Prod' } }, valueMessage('Prod'));
      await rejects('POST', `${POLICIES}/pol/setLabels`, { labels: { env: 'v'.repeat(64) } }, valueMessage('v'.repeat(64)));
      const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));
      await rejects('POST', `${POLICIES}/pol/setLabels`, { labels: many }, `Invalid value for field 'resource.labels': ''. At most 64 labels are allowed.`);
      const labelFingerprint = (await call('GET', `${POLICIES}/pol`)).body['labelFingerprint'];
      const fine = { labels: { env: 'prod', 'team_x-1': '', ['k'.repeat(63)]: 'v'.repeat(63), größe: 'ñ' }, labelFingerprint };
      assert.equal((await call('POST', `${POLICIES}/pol/setLabels`, fine)).status, 200);
      assert.deepEqual((await call('GET', `${POLICIES}/pol`)).body['labels'], fine.labels);
    });
    it('insert', async () => {
      await rejects('POST', POLICIES, { name: 'labelled', labels: { 'a b': 'c' } }, keyMessage('a b'));
    });
  });

  describe('description lengths', () => {
    const tooLarge = (field: string, actual: number) => `Value for field '${field}' is too large: maximum size 2048 characters; actual size ${actual}.`;
    it('instance template insert', async () => {
      await rejects(
        'POST',
        TEMPLATES,
        { name: 't-long', description: 'd'.repeat(2049), properties: { machineType: 'e2-small' } },
        tooLarge('resource.description', 2049),
      );
      assert.equal((await call('POST', TEMPLATES, { name: 't-ok', description: '😀'.repeat(2048), properties: { machineType: 'e2-small' } })).status, 200);
    });
    it('security policy insert and patch', async () => {
      await rejects('POST', POLICIES, { name: 'long', description: 'd'.repeat(5000) }, tooLarge('resource.description', 5000));
      await rejects('PATCH', `${POLICIES}/pol`, { description: 'd'.repeat(2049) }, tooLarge('resource.description', 2049));
      const fingerprint = (await call('GET', `${POLICIES}/pol`)).body['fingerprint'];
      assert.equal((await call('PATCH', `${POLICIES}/pol`, { description: 'd'.repeat(2048), fingerprint })).status, 200);
    });
  });
});
