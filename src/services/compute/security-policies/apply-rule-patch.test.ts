import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ComputeError } from '../shared/errors.ts';
import { applyRulePatch, parseUpdateMask } from './apply-rule-patch.ts';
import type { SecurityPolicyRule } from './model.ts';

const throttle: SecurityPolicyRule = {
  priority: 1000,
  action: 'throttle',
  description: 'limit',
  match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['1.2.3.0/24', '5.6.7.0/24'] } },
  rateLimitOptions: {
    rateLimitThreshold: { count: 10, intervalSec: 60 },
    conformAction: 'allow',
    exceedAction: 'deny(429)',
    enforceOnKey: 'IP',
    banThreshold: { count: 100, intervalSec: 60 },
  },
};

describe('applyRulePatch', () => {
  it('replaces present scalars and merges messages recursively', () => {
    const merged = applyRulePatch(throttle, { priority: 1000, rateLimitOptions: { rateLimitThreshold: { count: 20 } } }, undefined);
    assert.deepEqual(merged.rateLimitOptions?.rateLimitThreshold, { count: 20, intervalSec: 60 });
    assert.equal(merged.rateLimitOptions?.exceedAction, 'deny(429)');
    assert.equal(merged.description, 'limit');
  });

  it('replaces repeated fields whole', () => {
    const merged = applyRulePatch(throttle, { match: { config: { srcIpRanges: ['9.9.9.9/32'] } } }, undefined);
    assert.deepEqual(merged.match?.config?.srcIpRanges, ['9.9.9.9/32']);
    assert.equal(merged.match?.versionedExpr, 'SRC_IPS_V1');
  });

  it('keeps a field the body leaves empty unless the mask names it', () => {
    assert.deepEqual(
      applyRulePatch(throttle, { match: { config: { srcIpRanges: [] } } }, undefined).match?.config?.srcIpRanges,
      throttle.match?.config?.srcIpRanges,
    );
    assert.equal(applyRulePatch(throttle, {}, 'description').description, undefined);
  });

  it('clears by camelCase and by gcloud snake_case paths alike', () => {
    for (const mask of ['rateLimitOptions.banThreshold', 'rate_limit_options.ban_threshold', ' rate_limit_options.ban_threshold ,']) {
      const merged = applyRulePatch(throttle, { priority: 1000 }, mask);
      assert.equal(merged.rateLimitOptions?.banThreshold, undefined, mask);
      assert.equal(merged.rateLimitOptions?.enforceOnKey, 'IP', mask);
    }
  });

  it('lets a body value win over a mask naming the same field', () => {
    const merged = applyRulePatch(throttle, { action: 'rate_based_ban', rateLimitOptions: { banDurationSec: 60 } }, 'rate_limit_options.ban_duration_sec');
    assert.equal(merged.rateLimitOptions?.banDurationSec, 60);
  });

  it('clears whole messages as gcloud --action does', () => {
    const merged = applyRulePatch(throttle, { action: 'deny(403)', priority: 1000 }, 'redirect_options,rate_limit_options');
    assert.equal(merged.rateLimitOptions, undefined);
    assert.equal(merged.action, 'deny(403)');
  });

  it('treats expr and versionedExpr+config as alternatives', () => {
    const toExpr = applyRulePatch(throttle, { match: { expr: { expression: 'true' } } }, undefined);
    assert.deepEqual(toExpr.match, { expr: { expression: 'true' } });
    const back = applyRulePatch(toExpr, { match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } }, undefined);
    assert.deepEqual(back.match, { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } });
  });

  it('never modifies its inputs', () => {
    const before = structuredClone(throttle);
    const patch: SecurityPolicyRule = { rateLimitOptions: { rateLimitThreshold: { count: 1 } } };
    const merged = applyRulePatch(throttle, patch, 'rate_limit_options.ban_threshold');
    merged.rateLimitOptions!.rateLimitThreshold!.intervalSec = 10;
    assert.deepEqual(throttle, before);
    assert.deepEqual(patch, { rateLimitOptions: { rateLimitThreshold: { count: 1 } } });
  });
});

describe('parseUpdateMask', () => {
  it('rejects paths that do not name a rule field, naming the path', () => {
    for (const path of ['rate_limit_options.bogus', 'kind', 'match.config.src_ip_ranges.x']) {
      assert.throws(
        () => parseUpdateMask(`description,${path}`),
        (error: unknown) =>
          error instanceof ComputeError &&
          error.message === `Invalid value for field 'updateMask': '${path}'. The field path '${path}' does not name a field of SecurityPolicyRule.`,
      );
    }
  });

  it('accepts every path gcloud sends', () => {
    const gcloudPaths =
      'redirect_options,rate_limit_options,rate_limit_options.exceed_redirect_options,network_match.user_defined_fields,network_match.src_ip_ranges,network_match.dest_ip_ranges,network_match.ip_protocols,network_match.src_ports,network_match.dest_ports,network_match.src_region_codes,network_match.src_asns';
    assert.equal(parseUpdateMask(gcloudPaths).length, 11);
  });
});
