/**
 * The WAF engine's bounds and failures: an inspection past its deadline is a finding that says so,
 * and the call then decides as wafUnknown says, named in the explanation (never silently false);
 * the sets CRS 3.3 cannot supply are reported as not evaluated; the engine's inputs are the raw
 * target, headers and the first bytes of the body.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ManualClock } from '../../../../lib/clock.ts';
import { compilePolicy, RateLimitState, type TrafficRequest } from '../evaluation/index.ts';
import { engineRequestOf, WafEngine } from './waf-engine.ts';

const engines: WafEngine[] = [];
after(() => Promise.all(engines.map((engine) => engine.close())));

function policyOf(expression: string, wafUnknown: 'match' | 'no-match' = 'no-match') {
  return compilePolicy(
    {
      name: 'waf',
      rules: [
        { priority: 1000, action: 'deny(403)', match: { expr: { expression } } },
        { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
      ],
    },
    { clock: new ManualClock(0), wafUnknown, rateLimits: new RateLimitState() },
  );
}

// The five costliest sets (an expression holds at most five calls).
const HEAVY_SETS = ['sqli', 'xss', 'php', 'rce', 'java'].map((family) => `evaluatePreconfiguredWaf('${family}-v33-stable')`).join(' || ');

test('an inspection past its deadline decides as wafUnknown says, and the explanation names why', async () => {
  const engine = new WafEngine({ deadlineMs: 1 });
  engines.push(engine);
  const compiled = policyOf(HEAVY_SETS, 'match');
  // A 64 KB form of many arguments costs the engine hundreds of milliseconds with these sets.
  const body = Buffer.from(Array.from({ length: 4000 }, (_, i) => `a${i}=${"x'or".repeat(2)}`).join('&'));
  const request: TrafficRequest = {
    method: 'POST',
    url: 'http://example.com/form',
    headers: { host: 'example.com', 'content-type': 'application/x-www-form-urlencoded' },
    sourceIp: '203.0.113.9',
    body,
  };
  assert.ok(compiled.wafPlan !== undefined);
  const findings = await engine.inspect(compiled.wafPlan, request);
  assert.match(findings.failure ?? '', /did not finish within 1 ms/);
  const decision = compiled.evaluate(request, findings);
  assert.equal(decision.rule.priority, 1000);
  const rule = decision.explanation.find((entry) => entry.priority === 1000);
  assert.equal(rule?.notEvaluatedLocally, true);
  assert.match(rule?.detail ?? '', /did not finish within 1 ms.*decided as wafUnknown=match/);
});

/** hostileForm is 8 KB of two-byte arguments (`a=1&a=1&…`): every one of 2,048 arguments goes through every rule of the heavy sets. */
function hostileForm(): TrafficRequest {
  return {
    method: 'POST',
    url: 'http://example.com/form',
    headers: { host: 'example.com', 'content-type': 'application/x-www-form-urlencoded' },
    sourceIp: '203.0.113.9',
    body: Buffer.from('a=1&'.repeat(2048)),
  };
}

const INJECTION: TrafficRequest = {
  method: 'GET',
  url: "http://example.com/search?id=1'%20or%20'1'='1",
  headers: { host: 'example.com' },
  sourceIp: '203.0.113.9',
};

test('a hostile body past the deadline decides as wafUnknown says; its thread is replaced, rules loaded, and the next request is inspected', async () => {
  const engine = new WafEngine({ workers: 1, deadlineMs: 50 });
  engines.push(engine);
  const compiled = policyOf(HEAVY_SETS, 'match');
  assert.ok(compiled.wafPlan !== undefined);
  await engine.warm(compiled.wafPlan);
  for (let round = 0; round < 2; round++) {
    const hostile = hostileForm();
    const findings = await engine.inspect(compiled.wafPlan, hostile);
    assert.match(findings.failure ?? '', /did not finish within 50 ms/);
    assert.equal(compiled.evaluate(hostile, findings).rule.priority, 1000);
    // The replacement thread loads the warm configuration before it takes the next request, whose verdict is the engine's.
    const next = await engine.inspect(compiled.wafPlan, INJECTION);
    assert.equal(next.failure, undefined);
    const decision = compiled.evaluate(INJECTION, next);
    assert.equal(decision.rule.priority, 1000);
    assert.notEqual(decision.explanation.find((entry) => entry.priority === 1000)?.notEvaluatedLocally, true);
  }
});

test('with waitMs, a request that finds no free thread in time decides as wafUnknown says', async () => {
  const engine = new WafEngine({ workers: 1, deadlineMs: 60_000, waitMs: 20 });
  engines.push(engine);
  const compiled = policyOf(HEAVY_SETS, 'no-match');
  assert.ok(compiled.wafPlan !== undefined);
  await engine.warm(compiled.wafPlan);
  const busy = engine.inspect(compiled.wafPlan, hostileForm());
  const waiting = await engine.inspect(compiled.wafPlan, INJECTION);
  assert.match(waiting.failure ?? '', /no WAF engine thread was free within 20 ms/);
  assert.equal(compiled.evaluate(INJECTION, waiting).rule.priority, 2147483647);
  assert.equal((await busy).failure, undefined);
});

test('sets the Core Rule Set 3.3 cannot supply are reported as not evaluated', async () => {
  const engine = new WafEngine();
  engines.push(engine);
  for (const [set, reason] of [
    ['cve-canary', /Google-authored signatures/],
    ['json-sqli-canary', /942550, which CRS 3.3 does not have/],
    ['sqli-v422-stable', /CRS 4\.22, which Debian does not ship/],
  ] as const) {
    const expression = set !== 'sqli-v422-stable' ? `evaluatePreconfiguredExpr('${set}')` : `evaluatePreconfiguredWaf('${set}')`;
    for (const wafUnknown of ['match', 'no-match'] as const) {
      const compiled = policyOf(`${expression} || evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})`, wafUnknown);
      const request: TrafficRequest = { method: 'GET', url: 'http://example.com/x', headers: { host: 'example.com' }, sourceIp: '203.0.113.9' };
      assert.ok(compiled.wafPlan !== undefined);
      const decision = compiled.evaluate(request, await engine.inspect(compiled.wafPlan, request));
      assert.equal(decision.rule.priority, wafUnknown === 'match' ? 1000 : 2147483647, set);
      const rule = decision.explanation.find((entry) => entry.priority === 1000);
      assert.equal(rule?.notEvaluatedLocally, true, set);
      assert.match(rule?.detail ?? '', reason);
      if (wafUnknown === 'match') assert.deepEqual(decision.enforcedSecurityPolicy.preconfiguredExprIds, [set]);
    }
  }
});

test('a policy that calls no set the engine evaluates has no plan', () => {
  assert.equal(policyOf("evaluatePreconfiguredExpr('cve-canary')").wafPlan, undefined);
  assert.equal(policyOf("request.path.startsWith('/admin')").wafPlan, undefined);
});

test('without findings (no engine asked) the calls decide as wafUnknown says, as before', () => {
  const compiled = policyOf("evaluatePreconfiguredWaf('sqli-v33-stable')", 'match');
  const decision = compiled.evaluate({ method: 'GET', url: 'http://example.com/x', headers: { host: 'example.com' }, sourceIp: '203.0.113.9' });
  assert.equal(decision.rule.priority, 1000);
  assert.deepEqual(decision.enforcedSecurityPolicy.preconfiguredExprIds, ['sqli-v33-stable']);
});

test('the engine reads the raw target without the fragment, the headers, and the first bytes of the body', () => {
  const request: TrafficRequest = {
    method: 'POST',
    url: 'https://example.com:8443/a%20b?q=%27#frag',
    headers: { host: 'example.com', 'x-a': '1' },
    sourceIp: '2001:db8::1',
    body: Buffer.from('0123456789'),
  };
  const read = engineRequestOf(request, 4);
  assert.equal(read.target, '/a%20b?q=%27');
  assert.deepEqual(read.headers, [
    ['host', 'example.com'],
    ['x-a', '1'],
  ]);
  assert.equal(Buffer.from(read.body ?? []).toString(), '0123');
  assert.equal(read.clientIp, '2001:db8::1');
  assert.equal(engineRequestOf({ ...request, url: 'http://example.com' }, 4).target, '/');
});

test('requestBodyInspectionSize takes 8KB to 64KB, case-insensitive, and refuses anything else', () => {
  const compile = (size: string) =>
    compilePolicy(
      {
        name: 'waf',
        advancedOptionsConfig: { requestBodyInspectionSize: size },
        rules: [{ priority: 1000, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('sqli-v33-stable')" } } }],
      },
      { clock: new ManualClock(0), wafUnknown: 'no-match', rateLimits: new RateLimitState() },
    );
  assert.equal(compile('16kb').wafPlan?.inspectionLimit, 16 * 1024);
  assert.equal(compile('64KB').wafPlan?.inspectionLimit, 64 * 1024);
  assert.throws(
    () => compile('10KB'),
    /Invalid value for field 'resource\.advancedOptionsConfig\.requestBodyInspectionSize': '10KB'\. Supported values are "8KB", "16KB", "32KB", "48KB", "64KB"\./,
  );
});
