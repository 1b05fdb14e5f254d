import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../../lib/clock.ts';
import { ComputeError } from '../../shared/errors.ts';
import { compiledExpressionCount } from './compile-expression.ts';
import { compilePolicy, PolicyNotEvaluableError, type EvaluatorOptions } from './compile-policy.ts';
import { RateLimitState } from './rate-limit-state.ts';
import type { TrafficRequest } from './traffic-request.ts';

const options = (overrides: Partial<EvaluatorOptions> = {}): EvaluatorOptions => ({
  clock: new ManualClock(Date.UTC(2026, 0, 1)),
  wafUnknown: 'no-match',
  rateLimits: new RateLimitState(),
  ...overrides,
});
const req = (overrides: Partial<TrafficRequest> = {}): TrafficRequest => ({
  method: 'GET',
  url: 'https://example.com/',
  headers: {},
  sourceIp: '192.0.2.1',
  ...overrides,
});
const everyone = { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } };
const throttle = (priority: number, count: number, extra: Record<string, unknown> = {}) => ({
  priority,
  action: 'throttle',
  match: everyone,
  rateLimitOptions: { rateLimitThreshold: { count, intervalSec: 60 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'IP' },
  ...extra,
});

describe('compilePolicy', () => {
  it('validates the policy as the API does, with its errors', () => {
    assert.throws(
      () => compilePolicy({ name: 'pol', rules: [{ priority: 1, action: 'deny(451)', match: everyone }] }, options()),
      (error: unknown) => error instanceof ComputeError && error.httpStatus === 400 && error.message.includes('deny(451)'),
    );
    assert.throws(
      () => compilePolicy({ name: 'pol', rules: [{ priority: 1, action: 'deny(403)', match: { expr: { expression: 'request.path == 1' } } }] }, options()),
      (error: unknown) => error instanceof ComputeError && error.message.includes("found no matching overload for '_==_'"),
    );
  });

  it('reads the policy as `get` returns it, output-only fields and the spec spelling of the type included', () => {
    const policy = compilePolicy(
      {
        kind: 'compute#securityPolicy',
        id: '123',
        creationTimestamp: '2026-01-01T00:00:00.000-08:00',
        name: 'pol',
        type: 'EDGEGUARD',
        fingerprint: 'abc=',
        labelFingerprint: '42WmSpB8rSM=',
        selfLink: 'https://compute.googleapis.com/compute/v1/projects/p/regions/r/securityPolicies/pol',
        region: 'https://compute.googleapis.com/compute/v1/projects/p/regions/r',
        rules: [{ kind: 'compute#securityPolicyRule', priority: 2147483647, action: 'deny(404)', preview: false, description: '', match: everyone }],
      },
      options(),
    );
    assert.equal(policy.type, 'CLOUD_ARMOR');
    assert.equal(policy.evaluate(req()).response.kind, 'deny');
  });

  it('treats a policy with a region as regional: no redirects there', () => {
    const redirect = { priority: 1, action: 'redirect', match: everyone, redirectOptions: { type: 'EXTERNAL_302', target: 'https://example.net' } };
    assert.throws(() => compilePolicy({ name: 'pol', region: 'regions/us-central1', rules: [redirect] }, options()), ComputeError);
    assert.equal(compilePolicy({ name: 'pol', rules: [redirect] }, options()).evaluate(req()).response.kind, 'redirect');
  });

  it('refuses a network policy: it has nothing to say about HTTP requests', () => {
    assert.throws(
      () => compilePolicy({ name: 'net', type: 'CLOUD_ARMOR_NETWORK' }, options({ scope: { kind: 'region', name: 'r' } })),
      (error: unknown) =>
        error instanceof PolicyNotEvaluableError &&
        error.message === 'Security policy net is of type CLOUD_ARMOR_NETWORK: it matches packets, not HTTP requests.',
    );
  });

  it('evaluates in priority order whatever the order given, stops at the first non-preview match, and explains each rule evaluated', () => {
    const policy = compilePolicy(
      {
        name: 'pol',
        rules: [
          { priority: 30, action: 'deny(403)', match: everyone },
          { priority: 10, action: 'deny(404)', match: { expr: { expression: "request.headers['x'] == 'y'" } } },
          { priority: 20, action: 'allow', match: { expr: { expression: "request.method == 'GET' && request.path == '/'" } } },
        ],
      },
      options(),
    );
    const decision = policy.evaluate(req());
    assert.deepEqual(decision.rule, { priority: 20, action: 'allow', preview: false });
    assert.deepEqual(
      decision.explanation.map(({ priority, matched, error }) => ({ priority, matched, error })),
      [
        { priority: 10, matched: false, error: 'no such key: x' },
        { priority: 20, matched: true, error: undefined },
      ],
    );
    assert.equal(decision.explanation[1]?.detail, 'expression is true; request.method == "GET" → true && request.path == "/" → true');
    const brief = compilePolicy(
      { name: 'pol', rules: [{ priority: 20, action: 'allow', match: { expr: { expression: "request.method == 'GET' && request.path == '/'" } } }] },
      options({ explain: false }),
    );
    assert.equal(brief.evaluate(req()).explanation[0]?.detail, 'expression is true');
  });

  it('adds the enforced allow rule’s headers, never a preview rule’s or a deny’s', () => {
    const policy = compilePolicy(
      {
        name: 'pol',
        rules: [
          {
            priority: 1,
            action: 'allow',
            preview: true,
            match: everyone,
            headerAction: { requestHeadersToAdds: [{ headerName: 'x-preview', headerValue: '1' }] },
          },
          {
            priority: 2,
            action: 'allow',
            match: { expr: { expression: "request.path == '/'" } },
            headerAction: { requestHeadersToAdds: [{ headerName: 'x-bot', headerValue: 'no' }] },
          },
        ],
      },
      options(),
    );
    assert.deepEqual(policy.evaluate(req()).headersToAdd, [{ name: 'x-bot', value: 'no' }]);
    assert.deepEqual(policy.evaluate(req({ url: 'https://example.com/other' })).headersToAdd, []);
  });

  it('compiles each distinct expression once, across rules and recompiles', () => {
    const text = `request.path == '/once-${process.hrtime.bigint()}'`;
    const rules = [1, 2, 3].map((priority) => ({ priority, action: 'deny(403)', match: { expr: { expression: text } } }));
    const before = compiledExpressionCount();
    compilePolicy({ name: 'pol', rules }, options());
    compilePolicy({ name: 'pol', rules: [...rules, { priority: 4, action: 'allow', match: everyone }] }, options());
    assert.equal(compiledExpressionCount(), before + 1);
  });

  it('keeps counting across a recompile that shares the RateLimitState', () => {
    const shared = options();
    const first = compilePolicy({ name: 'pol', rules: [throttle(100, 2)] }, shared);
    first.evaluate(req());
    first.evaluate(req());
    const second = compilePolicy(
      { name: 'pol', rules: [throttle(100, 2), { priority: 50, action: 'deny(403)', match: { expr: { expression: "request.path == '/blocked'" } } }] },
      shared,
    );
    const decision = second.evaluate(req());
    assert.equal(decision.enforcedSecurityPolicy.rateLimitAction?.outcome, 'RATE_LIMIT_THRESHOLD_EXCEED');
    assert.deepEqual(decision.response, { kind: 'deny', status: 429 });
    assert.equal(decision.rateLimit?.count, 3);
    // Another policy's rule at the same priority has its own buckets, also one of the same name elsewhere.
    const other = compilePolicy({ name: 'other', rules: [throttle(100, 2)] }, shared);
    assert.equal(other.evaluate(req()).rateLimit?.count, 1);
    const link = (region: string, host: string) => `${host}/compute/v1/projects/p/regions/${region}/securityPolicies/pol`;
    const inRegion = (region: string, host: string) =>
      compilePolicy(
        { name: 'pol', region: `${host}/compute/v1/projects/p/regions/${region}`, selfLink: link(region, host), rules: [throttle(100, 2)] },
        shared,
      );
    inRegion('r1', 'http://127.0.0.1:1').evaluate(req());
    assert.equal(inRegion('r1', 'http://localhost:2').evaluate(req()).rateLimit?.count, 2);
    assert.equal(inRegion('r2', 'http://127.0.0.1:1').evaluate(req()).rateLimit?.count, 1);
  });

  it('counts a preview rate limit and reports it, enforcing the rule below', () => {
    const policy = compilePolicy({ name: 'pol', rules: [throttle(100, 1, { preview: true })] }, options());
    policy.evaluate(req());
    const decision = policy.evaluate(req());
    assert.deepEqual(decision.previewSecurityPolicy, {
      name: 'pol',
      priority: 100,
      configuredAction: 'THROTTLE',
      outcome: 'DENY',
      rateLimitAction: { key: '192.0.2.1', outcome: 'RATE_LIMIT_THRESHOLD_EXCEED' },
    });
    assert.equal(decision.previewRateLimit?.count, 2);
    assert.equal(decision.enforcedSecurityPolicy.priority, 2147483647);
    assert.deepEqual(decision.response, { kind: 'forward' });
  });

  it('reports a rate-limited rule’s counters and its ban', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ban = {
      priority: 10,
      action: 'rate_based_ban',
      match: everyone,
      rateLimitOptions: {
        rateLimitThreshold: { count: 1, intervalSec: 10 },
        banDurationSec: 60,
        conformAction: 'allow',
        exceedAction: 'deny(403)',
        enforceOnKey: 'ALL',
      },
    };
    const policy = compilePolicy({ name: 'pol', rules: [ban] }, options({ clock }));
    policy.evaluate(req());
    const decision = policy.evaluate(req());
    assert.deepEqual(decision.rateLimit, {
      key: '',
      keyType: 'ALL',
      count: 2,
      threshold: 1,
      intervalSec: 10,
      windowStart: clock.now(),
      banned: true,
      banUntil: clock.now() + 70_000,
    });
    assert.deepEqual(decision.enforcedSecurityPolicy.rateLimitAction, { outcome: 'RATE_LIMIT_THRESHOLD_EXCEED' });
    assert.match(decision.explanation.at(-1)?.detail ?? '', /rate limit the ALL bucket: 2 of 1 in the 10 s window → RATE_LIMIT_THRESHOLD_EXCEED$/);
  });

  it('counts fairshare like a throttle, logged as FAIRSHARE (internal-service policies)', () => {
    const fairshare = {
      priority: 10,
      action: 'fairshare',
      match: everyone,
      rateLimitOptions: { rateLimitThreshold: { count: 1, intervalSec: 10 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'ALL' },
    };
    const policy = compilePolicy({ name: 'mesh', type: 'CLOUD_ARMOR_INTERNAL_SERVICE', rules: [fairshare] }, options());
    assert.equal(policy.evaluate(req()).enforcedSecurityPolicy.configuredAction, 'FAIRSHARE');
    assert.deepEqual(policy.evaluate(req()).response, { kind: 'deny', status: 429 });
  });

  it('resolves origin.user_ip through advancedOptionsConfig.userIpRequestHeaders', () => {
    const policy = compilePolicy(
      {
        name: 'pol',
        advancedOptionsConfig: { userIpRequestHeaders: ['True-Client-IP'] },
        rules: [{ priority: 1, action: 'deny(403)', match: { expr: { expression: "inIpRange(origin.user_ip, '203.0.113.0/24')" } } }],
      },
      options(),
    );
    assert.equal(policy.evaluate(req({ headers: { 'true-client-ip': '203.0.113.4' } })).rule.priority, 1);
    assert.equal(policy.evaluate(req({ headers: { 'true-client-ip': 'nonsense' } })).rule.priority, 2147483647);
    assert.equal(policy.evaluate(req()).rule.priority, 2147483647);
    assert.deepEqual(
      policy.evaluate(req({ headers: { 'true-client-ip': '203.0.113.4' }, regionCode: 'FR', asn: 64500, tlsJa4Fingerprint: 't13d' })).securityPolicyRequestData,
      {
        remoteIpInfo: { ipAddress: '192.0.2.1', regionCode: 'FR', asn: 64500 },
        userIpInfo: { source: 'True-Client-IP', ipAddress: '203.0.113.4' },
        tlsJa4Fingerprint: 't13d',
      },
    );
    assert.deepEqual(policy.evaluate(req()).securityPolicyRequestData, { remoteIpInfo: { ipAddress: '192.0.2.1' } });
  });

  it('flags a decision that rests on a call not evaluated locally, either way', () => {
    const rules = [
      { priority: 5, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('sqli-v33-stable') || request.path == '/sqli'" } } },
    ];
    for (const wafUnknown of ['match', 'no-match'] as const) {
      const decision = compilePolicy({ name: 'pol', rules }, options({ wafUnknown })).evaluate(req());
      const entry = decision.explanation[0];
      assert.equal(entry?.notEvaluatedLocally, true);
      assert.equal(entry?.matched, wafUnknown === 'match');
      assert.match(
        entry?.detail ?? '',
        new RegExp(`not evaluated locally: evaluatePreconfiguredWaf\\('sqli-v33-stable'\\) decided as wafUnknown=${wafUnknown}`),
      );
    }
    // The other side of || decided: the WAF call was still reached and is flagged, but its set is not named as a match.
    const byPath = compilePolicy({ name: 'pol', rules }, options()).evaluate(req({ url: 'https://example.com/sqli' }));
    assert.equal(byPath.rule.priority, 5);
    assert.equal(byPath.explanation[0]?.notEvaluatedLocally, true);
    assert.equal(byPath.enforcedSecurityPolicy.preconfiguredExprIds, undefined);
    const byWaf = compilePolicy({ name: 'pol', rules }, options({ wafUnknown: 'match' })).evaluate(req());
    assert.deepEqual(byWaf.enforcedSecurityPolicy.preconfiguredExprIds, ['sqli-v33-stable']);
  });
});
