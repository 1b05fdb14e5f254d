import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WafEngine } from '../waf/waf-engine.ts';
import { buildPolicy } from '../policy-mutations.ts';
import { renderPolicy, type StoredPolicy } from '../policy.ts';
import { PolicyEvaluationError } from '../../../../core/policy-evaluation.ts';
import { replayPolicy, type ReplayDeps } from './replay-policy.ts';
import { replayTimes } from './replay-run.ts';

const T0 = Date.UTC(2026, 0, 1);
const NAME = 'projects/p/global/securityPolicies/edge';
const everyone = { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } };

/** deps replays against one stored global policy; no WAF call is made (the engine must not be asked for). */
function deps(rules: unknown[]): ReplayDeps {
  const stored = buildPolicy({ name: 'edge', rules }, { project: 'p', scope: { kind: 'global' }, id: '1', creationTime: T0, fingerprint: 'AAAAAAAAAAA=' });
  return {
    load: async (name) => (name.name === 'edge' ? stored : undefined),
    wireOf: (policy: StoredPolicy) => renderPolicy(policy, { base: 'https://compute.googleapis.com/compute/v1/' }),
    engine: () => assert.fail('no WAF call in these policies') as unknown as WafEngine,
    now: () => T0,
  };
}
const get = (path: string, seconds: number, ip = '203.0.113.9') => ({ url: `https://example.com${path}`, sourceIp: ip, time: T0 + seconds * 1000 });

describe('replayPolicy', () => {
  it('crosses a rate-based ban’s threshold on the recorded times: the request that exceeds, the banned ones, and the ban ending', async () => {
    const ban = {
      priority: 100,
      action: 'rate_based_ban',
      match: everyone,
      rateLimitOptions: {
        rateLimitThreshold: { count: 2, intervalSec: 10 },
        conformAction: 'allow',
        exceedAction: 'deny(403)',
        enforceOnKey: 'IP',
        banDurationSec: 60,
      },
    };
    const answer = await replayPolicy(
      {
        policy: NAME,
        rules: [{ priority: 100, rule: ban }],
        requests: [get('/', 0), get('/', 1), get('/', 2), get('/', 30), get('/', 2 * 60), get('/', 3, '198.51.100.1')],
      },
      deps([]),
    );
    const changed = answer['changed'] as { index: number; after: { action: string } }[];
    // The third in 10 s exceeds and bans until 10 s + 60 s; at 30 s still banned; at 120 s a new window; another IP is never counted with the first.
    assert.deepEqual(
      changed.map((each) => [each.index, each.after.action]),
      [
        [2, 'rate_based_ban(deny-403)'],
        [3, 'rate_based_ban(banned, deny-403)'],
      ],
    );
    assert.deepEqual(answer['transitions'], [
      { from: 'allow', to: 'rate_based_ban(deny-403)', count: 1 },
      { from: 'allow', to: 'rate_based_ban(banned, deny-403)', count: 1 },
    ]);
  });

  it('counts a preview rule’s matches in the coverage without changing any outcome', async () => {
    const preview = { priority: 10, action: 'deny(403)', preview: true, match: { expr: { expression: "request.path == '/x'" } } };
    const answer = await replayPolicy({ policy: NAME, rules: [{ priority: 10, rule: preview }], requests: [get('/x', 0), get('/y', 1)] }, deps([]));
    assert.deepEqual(answer['changed'], []);
    assert.deepEqual(answer['coverage'], [
      { priority: 10, matchedBefore: null, matchedAfter: 1 },
      { priority: 2147483647, matchedBefore: 2, matchedAfter: 2 },
    ]);
    assert.deepEqual(answer['neverMatched'], []);
  });

  it('refuses an edit as the API refuses the rule, naming the edit, and a policy that is not there with 404', async () => {
    await assert.rejects(
      replayPolicy({ policy: NAME, rules: [{ priority: 7, rule: null }], requests: [] }, deps([])),
      (error: unknown) => error instanceof PolicyEvaluationError && error.httpStatus === 400 && /^"rules\[0\]" \(priority 7\): /.test(error.message),
    );
    await assert.rejects(
      replayPolicy({ policy: 'projects/p/global/securityPolicies/other', rules: [{ priority: 7, rule: null }], requests: [] }, deps([])),
      (error: unknown) => error instanceof PolicyEvaluationError && error.httpStatus === 404,
    );
  });
});

describe('replayTimes', () => {
  it('gives a request without a time its predecessor’s, and holds times that go backwards at the latest', () => {
    const at = (time?: number) => ({ request: { method: 'GET', url: 'https://a/', headers: {}, sourceIp: '1.1.1.1' }, time });
    assert.deepEqual(replayTimes([at(), at(5), at(), at(3), at(9)], 1), [5, 5, 5, 5, 9]);
    assert.deepEqual(replayTimes([at(), at()], 1), [1, 1]);
  });
});
