import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { ComputeClient, errorMessage } from '../../../testing/compute-client.ts';

const TOKEN = 'expression-limits-http';

/**
 * Issue 13 item 4: a rule expression with 3,000 chained calls overflowed the checker's stack and
 * answered 500. It must be the 400 in CEL's words, and a hostile `matches()` pattern is RE2's
 * business (item 2), with the policy left unchanged either way.
 */
describe('rule expressions beyond the parser limits, over HTTP', () => {
  let server: RunningFogbank;
  let client: ComputeClient;
  const policy = 'p/regions/us-central1/securityPolicies/pol';

  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
    client = new ComputeClient(server, TOKEN);
    await client.ok('POST', 'p/regions/us-central1/securityPolicies', { name: 'pol' });
  });
  after(async () => {
    await server.close();
  });

  const quoted = (expression: string): string => `{ "expression": ${JSON.stringify(expression).replaceAll("'", '\\u0027')}}`.slice(0, 100) + '...';
  const cases: [string, string, string][] = [
    ['3,000 chained calls', `request.path${'.lower()'.repeat(3000)} == 'a'`, '<input>:-1:0: expression recursion limit exceeded: 250'],
    ['40,000 nested parentheses', `${'('.repeat(40000)}true${')'.repeat(40000)}`, '<input>:-1:0: expression recursion limit exceeded: 250'],
    [
      'a 120,000-character expression',
      `request.path == '${'a'.repeat(120_000)}'`,
      '<input>:-1:0: expression code point size exceeds limit: size: 120018, limit 100000',
    ],
  ];
  for (const [name, expression, detail] of cases) {
    it(`addRule: ${name} is a 400 with CEL's message and changes nothing`, async () => {
      const before = await client.ok('GET', policy);
      const reply = await client.call('POST', `${policy}/addRule`, { priority: 10, action: 'allow', match: { expr: { expression } } });
      assert.equal(reply.status, 400);
      assert.equal(
        errorMessage(reply),
        `Invalid value for field 'resource.match.expr': '${quoted(expression)}'. Error parsing Cloud Armor rule matcher expression: ${detail}`,
      );
      assert.deepEqual(await client.ok('GET', policy), before);
    });
  }

  it('matches() takes exactly RE2: a backtracking pattern is fine, JavaScript-only syntax is refused in RE2 words', async () => {
    const accepted = await client.call('POST', `${policy}/addRule`, {
      priority: 20,
      action: 'allow',
      match: { expr: { expression: "request.path.matches('\\\\A/(?:.|.)*Q[[:alpha:]]\\\\z')" } },
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const expression = "request.path.matches('/a{2,1}')";
    const refused = await client.call('POST', `${policy}/addRule`, { priority: 30, action: 'allow', match: { expr: { expression } } });
    assert.equal(refused.status, 400);
    assert.equal(
      errorMessage(refused),
      `Invalid value for field 'resource.match.expr': '${quoted(expression).replace(/\.\.\.$/, '')}'. Error parsing Cloud Armor rule matcher expression: Invalid regular expression: /a{2,1}, invalid repeat count: {2,1}.`,
    );
  });
});
