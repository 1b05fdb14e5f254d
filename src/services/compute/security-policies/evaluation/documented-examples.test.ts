import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../../lib/clock.ts';
import { compilePolicy } from './compile-policy.ts';
import type { Decision, Outcome, RateLimitOutcome } from './decision.ts';
import { RateLimitState } from './rate-limit-state.ts';
import type { TrafficRequest } from './traffic-request.ts';
import type { WafUnknown } from './unevaluated-calls.ts';

/**
 * The examples of Cloud Armor's documentation as a table (the reference's §8, numbered as there:
 * R rules-language-reference, O security-policy-overview, L rate limiting, U common use cases),
 * each run through compilePolicy with the documented outcome. Policies hold the listed rules plus
 * the API's default rule (allow) unless a row gives its own default.
 */

const DEFAULT = 2147483647;
const ALLOW_ALL = { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } };

type Rule = Record<string, unknown>;
const expr = (priority: number, action: string, expression: string, extra: Rule = {}): Rule => ({
  priority,
  action,
  match: { expr: { expression } },
  ...extra,
});
const ips = (priority: number, action: string, ranges: string[], extra: Rule = {}): Rule => ({
  priority,
  action,
  match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ranges } },
  ...extra,
});

/** Req is a request in short: the path (on https://example.com), the peer and whatever else differs. */
type Req = Partial<Omit<TrafficRequest, 'url'>> & { readonly path?: string; readonly url?: string };

interface Expect {
  readonly priority: number;
  readonly outcome: Outcome;
  readonly configuredAction?: string;
  readonly status?: number;
  readonly location?: string;
  /** preview: the expected previewSecurityPolicy (priority/outcome), or null for none. */
  readonly preview?: { readonly priority: number; readonly outcome: Outcome } | null;
  readonly rateLimit?: RateLimitOutcome;
  readonly key?: string | null;
  /** errorAt: a rule that hit a run-time error (and so did not match). */
  readonly errorAt?: number;
  readonly notEvaluatedLocally?: number;
  readonly preconfiguredExprIds?: readonly string[];
  /** noteAt: a rule whose explanation says this. */
  readonly noteAt?: readonly [number, RegExp];
}

interface Step {
  readonly request: Req;
  /** times sends the request this often; `expect` is checked on the last, `expectEach` on every one. */
  readonly times?: number;
  readonly expectEach?: Expect;
  readonly expect?: Expect;
  /** advanceSec moves the clock before the step. */
  readonly advanceSec?: number;
}

interface Example {
  readonly id: string;
  readonly rules: readonly Rule[];
  readonly steps: readonly Step[];
  readonly wafUnknown?: WafUnknown;
}

const deny403 = (priority: number): Expect => ({ priority, outcome: 'DENY', configuredAction: 'DENY', status: 403 });
const allowedBy = (priority: number): Expect => ({ priority, outcome: 'ACCEPT', configuredAction: 'ALLOW' });
const defaultAllow: Expect = allowedBy(DEFAULT);
const one = (request: Req, expect: Expect): Step => ({ request, expect });

const EXAMPLES: readonly Example[] = [
  {
    id: '1 R deny an IPv4 range',
    rules: [expr(1000, 'deny(403)', "inIpRange(origin.ip, '198.51.100.0/24')")],
    steps: [one({ sourceIp: '198.51.100.7' }, deny403(1000))],
  },
  {
    id: '2 R outside the range: default rule',
    rules: [expr(1000, 'deny(403)', "inIpRange(origin.ip, '198.51.100.0/24')")],
    steps: [one({ sourceIp: '198.51.101.1' }, defaultAllow)],
  },
  {
    id: '3 R deny an IPv6 range',
    rules: [expr(1000, 'deny(403)', "inIpRange(origin.ip, '2001:db8::/32')")],
    steps: [one({ sourceIp: '2001:db8::1' }, deny403(1000))],
  },
  {
    id: '4 U allowlist with a deny default',
    rules: [ips(1000, 'allow', ['192.0.2.0/24']), ips(DEFAULT, 'deny(403)', ['*'])],
    steps: [one({ sourceIp: '192.0.2.10' }, allowedBy(1000)), one({ sourceIp: '203.0.113.5' }, deny403(DEFAULT))],
  },
  {
    id: '5 U denylist of one address, deny(404)',
    rules: [ips(1000, 'deny(404)', ['198.51.100.1'])],
    steps: [one({ sourceIp: '198.51.100.1' }, { priority: 1000, outcome: 'DENY', status: 404 }), one({ sourceIp: '198.51.100.2' }, defaultAllow)],
  },
  {
    id: '6 R cookie contains, guarded by has',
    rules: [expr(1000, 'deny(403)', "has(request.headers['cookie']) && request.headers['cookie'].contains('80=BLAH')")],
    steps: [one({ headers: { cookie: 'a=1; 80=BLAH' } }, deny403(1000)), one({}, defaultAllow)],
  },
  {
    id: '7 R non-empty referer',
    rules: [expr(1000, 'deny(403)', "has(request.headers['referer']) && request.headers['referer'] != \"\"")],
    steps: [one({ headers: { referer: 'x' } }, deny403(1000)), one({ headers: { referer: '' } }, defaultAllow), one({}, defaultAllow)],
  },
  {
    id: '8 R host, lower-cased',
    rules: [expr(1000, 'deny(403)', "request.headers['host'].lower() == 'test.example.com'")],
    steps: [one({ headers: { host: 'TEST.example.com' } }, deny403(1000))],
  },
  {
    id: '9 R host suffix',
    rules: [expr(1000, 'deny(403)', "request.headers['host'].lower().endsWith('.example.com')")],
    steps: [one({ headers: { host: 'a.example.com' } }, deny403(1000)), one({ headers: { host: 'example.com' } }, defaultAllow)],
  },
  {
    // The docs write `(sub\.)?`; the API rejects capture groups in matches() (see check-regex.ts), so the group is non-capturing here.
    id: '10 R host regex: RE2 partial match',
    rules: [expr(1000, 'deny(403)', "request.headers['host'].matches('(?i:(?:sub\\\\.)?test\\\\.example\\\\.com)')")],
    steps: [one({ headers: { host: 'Sub.Test.example.com' } }, deny403(1000)), one({ headers: { host: 'xtest.example.com.evil' } }, deny403(1000))],
  },
  {
    id: '11 R region equals',
    rules: [expr(1000, 'deny(403)', "origin.region_code == 'AU'")],
    steps: [one({ regionCode: 'AU' }, deny403(1000)), one({ regionCode: 'US' }, defaultAllow)],
  },
  {
    id: '12 R region differs',
    rules: [expr(1000, 'deny(403)', "origin.region_code != 'AU'")],
    steps: [one({ regionCode: 'AU' }, defaultAllow), one({ regionCode: 'US' }, deny403(1000))],
  },
  { id: '13 R ASN', rules: [expr(1000, 'deny(403)', 'origin.asn == 123')], steps: [one({ asn: 123 }, deny403(1000)), one({ asn: 124 }, defaultAllow)] },
  {
    id: '14 R region and range',
    rules: [expr(1000, 'deny(403)', 'origin.region_code == "AU" && inIpRange(origin.ip, \'1.2.3.0/24\')')],
    steps: [one({ regionCode: 'AU', sourceIp: '1.2.3.9' }, deny403(1000)), one({ regionCode: 'AU', sourceIp: '5.6.7.8' }, defaultAllow)],
  },
  {
    id: '15 R address and user agent',
    rules: [
      expr(
        1000,
        'deny(403)',
        "inIpRange(origin.ip, '1.2.3.4/32') && has(request.headers['user-agent']) && request.headers['user-agent'].contains('WordPress')",
      ),
    ],
    steps: [one({ sourceIp: '1.2.3.4', headers: { 'user-agent': 'WordPress/6' } }, deny403(1000)), one({ sourceIp: '1.2.3.4' }, defaultAllow)],
  },
  {
    id: '16 R path regex',
    rules: [expr(1000, 'deny(403)', "request.path.matches('/example_path/')")],
    steps: [one({ path: '/a/example_path/b' }, deny403(1000)), one({ path: '/a/b' }, defaultAllow)],
  },
  {
    id: '17 R user agent regex; without the header an evaluation error, no match',
    rules: [expr(1000, 'deny(403)', "request.headers['user-agent'].matches('(?i:wordpress)')")],
    steps: [one({ headers: { 'user-agent': 'wordPress' } }, deny403(1000)), one({}, { ...defaultAllow, errorAt: 1000 })],
  },
  {
    id: '18 R base64Decode',
    rules: [expr(1000, 'deny(403)', "has(request.headers['user-id']) && request.headers['user-id'].base64Decode().contains('myValue')")],
    steps: [
      one({ headers: { 'user-id': 'bXlWYWx1ZQ==' } }, deny403(1000)),
      one({ headers: { 'user-id': '!!not base64' } }, { ...defaultAllow, noteAt: [1000, /base64Decode: "!!not base64" is not valid base64, read as ""/] }),
    ],
  },
  {
    id: '19 R path length',
    rules: [expr(1000, 'deny(403)', 'size(request.path) > 10')],
    steps: [one({ path: '/abcdefghij' }, deny403(1000)), one({ path: '/abc' }, defaultAllow)],
  },
  {
    id: '20 R header size',
    rules: [expr(1000, 'deny(403)', "size(request.headers['x-data']) >= 1024")],
    steps: [one({ headers: { 'x-data': 'a'.repeat(1024) } }, deny403(1000)), one({ headers: { 'x-data': 'a'.repeat(1023) } }, defaultAllow)],
  },
  {
    id: '21 R int() of a header',
    rules: [expr(1000, 'deny(403)', 'int(request.headers["content-length"]) == 0')],
    steps: [one({ headers: { 'content-length': '0' } }, deny403(1000)), one({ headers: { 'content-length': 'zero' } }, { ...defaultAllow, errorAt: 1000 })],
  },
  {
    id: '22 R urlDecode',
    rules: [expr(1000, 'deny(403)', "has(request.headers['cookie']) && request.headers['cookie'].urlDecode().contains('<')")],
    steps: [one({ headers: { cookie: 'q=%3c' } }, deny403(1000)), one({ headers: { cookie: 'q=%zz' } }, defaultAllow)],
  },
  {
    id: '23 R urlDecodeUni',
    rules: [expr(1000, 'deny(403)', "has(request.headers['cookie']) && request.headers['cookie'].urlDecodeUni() == 'Match+Value'")],
    steps: [one({ headers: { cookie: 'Match%2BValue' } }, deny403(1000)), one({ headers: { cookie: 'Match%u002BValue' } }, deny403(1000))],
  },
  {
    id: '24 R utf8ToUnicode',
    rules: [expr(1000, 'deny(403)', "has(request.headers['cookie']) && request.headers['cookie'].utf8ToUnicode() == '%u00ac'")],
    steps: [one({ headers: { cookie: '¬' } }, deny403(1000))],
  },
  {
    id: '25 R JA4 over plain HTTP is empty',
    rules: [expr(1000, 'deny(403)', "origin.tls_ja4_fingerprint == 't13d1516h2_8daaf6152771_b186095e22b6'")],
    steps: [one({ url: 'http://example.com/' }, defaultAllow), one({ tlsJa4Fingerprint: 't13d1516h2_8daaf6152771_b186095e22b6' }, deny403(1000))],
  },
  {
    id: '26 U /admin only from the allowed range',
    rules: [expr(1000, 'deny(403)', 'request.path.contains("/admin") && !inIpRange(origin.ip, \'10.0.0.0/8\')')],
    steps: [one({ path: '/admin', sourceIp: '203.0.113.9' }, deny403(1000)), one({ path: '/admin', sourceIp: '10.1.2.3' }, defaultAllow)],
  },
  {
    id: '27 O WAF rule above an allow; WAF not evaluated locally, --waf-unknown=no-match',
    rules: [
      expr(1, 'deny(403)', "inIpRange(origin.ip, '10.10.10.0/24')"),
      expr(2, 'deny(403)', "evaluatePreconfiguredWaf('xss-v422-stable')"),
      expr(3, 'allow', "inIpRange(origin.ip, '9.9.9.0/24')"),
      ips(DEFAULT, 'deny(403)', ['*']),
    ],
    steps: [one({ sourceIp: '9.9.9.1' }, { ...allowedBy(3), notEvaluatedLocally: 2 })],
  },
  {
    id: '27 O the same with --waf-unknown=match: the WAF rule decides, flagged',
    wafUnknown: 'match',
    rules: [
      expr(1, 'deny(403)', "inIpRange(origin.ip, '10.10.10.0/24')"),
      expr(2, 'deny(403)', "evaluatePreconfiguredWaf('xss-v422-stable')"),
      expr(3, 'allow', "inIpRange(origin.ip, '9.9.9.0/24')"),
      ips(DEFAULT, 'deny(403)', ['*']),
    ],
    steps: [one({ sourceIp: '9.9.9.1' }, { ...deny403(2), notEvaluatedLocally: 2, preconfiguredExprIds: ['xss-v422-stable'] })],
  },
  {
    id: '28 O allow above the WAF rule: allowed without a scan',
    wafUnknown: 'match',
    rules: [expr(2, 'allow', "inIpRange(origin.ip, '9.9.9.0/24')"), expr(3, 'deny(403)', "evaluatePreconfiguredWaf('xss-v422-stable')")],
    steps: [one({ sourceIp: '9.9.9.1' }, allowedBy(2))],
  },
  {
    id: '29 O preview rule above the enforced one',
    rules: [expr(900, 'deny(403)', "request.path.startsWith('/x')", { preview: true }), ips(1000, 'allow', ['*'])],
    steps: [
      one({ path: '/x' }, { ...allowedBy(1000), preview: { priority: 900, outcome: 'DENY' } }),
      one({ path: '/y' }, { ...allowedBy(1000), preview: null }),
    ],
  },
  {
    id: '30 O preview rule below the enforced one is never evaluated',
    rules: [ips(900, 'allow', ['*']), ips(1000, 'deny(403)', ['*'], { preview: true })],
    steps: [one({}, { ...allowedBy(900), preview: null })],
  },
  {
    id: '31 L throttle 100/60 s per IP, exceed deny(429)',
    rules: [
      ips(105, 'throttle', ['1.2.3.0/24'], {
        rateLimitOptions: { rateLimitThreshold: { count: 100, intervalSec: 60 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'IP' },
      }),
    ],
    steps: [
      {
        request: { sourceIp: '1.2.3.4' },
        times: 100,
        expectEach: { priority: 105, outcome: 'ACCEPT', configuredAction: 'THROTTLE', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM', key: '1.2.3.4' },
      },
      one(
        { sourceIp: '1.2.3.4' },
        { priority: 105, outcome: 'DENY', configuredAction: 'THROTTLE', status: 429, rateLimit: 'RATE_LIMIT_THRESHOLD_EXCEED', key: '1.2.3.4' },
      ),
      one({ sourceIp: '1.2.3.5' }, { priority: 105, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM', key: '1.2.3.5' }),
      { advanceSec: 60, ...one({ sourceIp: '1.2.3.4' }, { priority: 105, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM' }) },
    ],
  },
  {
    id: '32 L throttle per User-Agent; without one, the ALL bucket',
    rules: [
      ips(110, 'throttle', ['*'], {
        rateLimitOptions: {
          rateLimitThreshold: { count: 10, intervalSec: 60 },
          conformAction: 'allow',
          exceedAction: 'deny(429)',
          enforceOnKey: 'HTTP_HEADER',
          enforceOnKeyName: 'User-Agent',
        },
      }),
    ],
    steps: [
      {
        request: { headers: { 'user-agent': 'bot/1' } },
        times: 10,
        expectEach: { priority: 110, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM', key: 'bot/1' },
      },
      one({ headers: { 'user-agent': 'bot/1' } }, { priority: 110, outcome: 'DENY', status: 429, rateLimit: 'RATE_LIMIT_THRESHOLD_EXCEED', key: 'bot/1' }),
      one({}, { priority: 110, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM', key: null }),
    ],
  },
  {
    id: '33 L throttle on the exemption cookie, exceed redirect to reCAPTCHA',
    rules: [
      expr(115, 'throttle', 'token.recaptcha_exemption.valid', {
        rateLimitOptions: {
          rateLimitThreshold: { count: 20, intervalSec: 300 },
          conformAction: 'allow',
          exceedAction: 'redirect',
          exceedRedirectOptions: { type: 'GOOGLE_RECAPTCHA' },
          enforceOnKey: 'HTTP_COOKIE',
          enforceOnKeyName: 'recaptcha-ca-e',
        },
      }),
    ],
    steps: [
      {
        request: { headers: { cookie: 'recaptcha-ca-e=abc' }, recaptcha: { exemptionValid: true } },
        times: 20,
        expectEach: { priority: 115, outcome: 'ACCEPT', key: 'abc' },
      },
      one(
        { headers: { cookie: 'recaptcha-ca-e=abc' }, recaptcha: { exemptionValid: true } },
        { priority: 115, outcome: 'REDIRECT', configuredAction: 'THROTTLE', status: 302, rateLimit: 'RATE_LIMIT_THRESHOLD_EXCEED' },
      ),
      one({}, defaultAllow),
    ],
  },
  {
    id: '34 L rate_based_ban on fish: tuna, 50/120 s, ban 300 s, deny(404)',
    rules: [
      expr(100, 'rate_based_ban', "request.headers['fish'] == 'tuna'", {
        rateLimitOptions: {
          rateLimitThreshold: { count: 50, intervalSec: 120 },
          banDurationSec: 300,
          conformAction: 'allow',
          exceedAction: 'deny(404)',
          enforceOnKey: 'IP',
        },
      }),
    ],
    steps: [
      {
        request: { headers: { fish: 'tuna' } },
        times: 50,
        expectEach: { priority: 100, outcome: 'ACCEPT', configuredAction: 'RATE_BASED_BAN', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM' },
      },
      one({ headers: { fish: 'tuna' } }, { priority: 100, outcome: 'DENY', status: 404, rateLimit: 'RATE_LIMIT_THRESHOLD_EXCEED' }),
      one({}, { ...defaultAllow, errorAt: 100 }),
      // Past the 120 s interval the key stays banned for 300 s more.
      { advanceSec: 200, ...one({ headers: { fish: 'tuna' } }, { priority: 100, outcome: 'DENY', status: 404, rateLimit: 'BAN_THRESHOLD_EXCEED' }) },
      { advanceSec: 219, ...one({ headers: { fish: 'tuna' } }, { priority: 100, outcome: 'DENY', status: 404, rateLimit: 'BAN_THRESHOLD_EXCEED' }) },
      { advanceSec: 1, ...one({ headers: { fish: 'tuna' } }, { priority: 100, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM' }) },
    ],
  },
  {
    id: '35 L rate_based_ban with a ban threshold, key ALL',
    rules: [
      expr(101, 'rate_based_ban', "origin.region_code == 'US'", {
        rateLimitOptions: {
          rateLimitThreshold: { count: 10, intervalSec: 60 },
          banThreshold: { count: 1000, intervalSec: 600 },
          banDurationSec: 300,
          conformAction: 'allow',
          exceedAction: 'deny(403)',
          enforceOnKey: 'ALL',
        },
      }),
    ],
    steps: [
      {
        request: { regionCode: 'US', sourceIp: '192.0.2.1' },
        times: 10,
        expectEach: { priority: 101, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM', key: null },
      },
      {
        request: { regionCode: 'US', sourceIp: '192.0.2.2' },
        times: 1000,
        expectEach: { priority: 101, outcome: 'DENY', status: 403, rateLimit: 'RATE_LIMIT_THRESHOLD_EXCEED' },
      },
      one({ regionCode: 'US', sourceIp: '192.0.2.3' }, { priority: 101, outcome: 'DENY', status: 403, rateLimit: 'BAN_THRESHOLD_EXCEED' }),
      { advanceSec: 120, ...one({ regionCode: 'US' }, { priority: 101, outcome: 'DENY', status: 403, rateLimit: 'BAN_THRESHOLD_EXCEED' }) },
      { advanceSec: 180, ...one({ regionCode: 'US' }, { priority: 101, outcome: 'ACCEPT', rateLimit: 'RATE_LIMIT_THRESHOLD_CONFORM' }) },
      one({ regionCode: 'FR' }, defaultAllow),
    ],
  },
  {
    id: '36 L composite key HTTP_PATH + HTTP_COOKIE site_id: separate buckets',
    rules: [
      ips(105, 'throttle', ['*'], {
        rateLimitOptions: {
          rateLimitThreshold: { count: 2, intervalSec: 60 },
          conformAction: 'allow',
          exceedAction: 'deny(429)',
          enforceOnKeyConfigs: [{ enforceOnKeyType: 'HTTP_PATH' }, { enforceOnKeyType: 'HTTP_COOKIE', enforceOnKeyName: 'site_id' }],
        },
      }),
    ],
    steps: [
      { request: { path: '/p', headers: { cookie: 'site_id=a' } }, times: 2, expectEach: { priority: 105, outcome: 'ACCEPT', key: '/p|a' } },
      { request: { path: '/p', headers: { cookie: 'site_id=b' } }, times: 2, expectEach: { priority: 105, outcome: 'ACCEPT', key: '/p|b' } },
      one({ path: '/p', headers: { cookie: 'site_id=a' } }, { priority: 105, outcome: 'DENY', status: 429 }),
      one({ path: '/q', headers: { cookie: 'site_id=a' } }, { priority: 105, outcome: 'ACCEPT' }),
    ],
  },
  {
    id: 'O redirect EXTERNAL_302 (global policy)',
    rules: [expr(1000, 'redirect', "request.path.startsWith('/old')", { redirectOptions: { type: 'EXTERNAL_302', target: 'https://example.net/new' } })],
    steps: [
      one({ path: '/old/x' }, { priority: 1000, outcome: 'REDIRECT', configuredAction: 'EXTERNAL_302', status: 302, location: 'https://example.net/new' }),
    ],
  },
  {
    id: 'O deny(502)',
    rules: [expr(1000, 'deny(502)', "request.method == 'DELETE'")],
    steps: [one({ method: 'DELETE' }, { priority: 1000, outcome: 'DENY', status: 502 }), one({ method: 'GET' }, defaultAllow)],
  },
];

function request(req: Req): TrafficRequest {
  const { path, url, ...rest } = req;
  return { method: 'GET', headers: {}, sourceIp: '198.51.100.200', ...rest, url: url ?? `https://example.com${path ?? '/'}` };
}

function check(decision: Decision, expect: Expect, where: string): void {
  const enforced = decision.enforcedSecurityPolicy;
  assert.equal(enforced.priority, expect.priority, `${where}: priority (${JSON.stringify(decision.explanation)})`);
  assert.equal(enforced.outcome, expect.outcome, `${where}: outcome`);
  assert.equal(enforced.name, 'pol');
  if (expect.configuredAction !== undefined) assert.equal(enforced.configuredAction, expect.configuredAction, `${where}: configuredAction`);
  const response = decision.response;
  if (expect.outcome === 'ACCEPT') assert.deepEqual(response, { kind: 'forward' }, `${where}: forwarded`);
  if (expect.status !== undefined) assert.equal('status' in response ? response.status : undefined, expect.status, `${where}: status`);
  if (expect.location !== undefined) assert.equal(response.kind === 'redirect' ? response.location : undefined, expect.location, `${where}: location`);
  if (expect.preview === null) assert.equal(decision.previewSecurityPolicy, undefined, `${where}: no preview record`);
  else if (expect.preview !== undefined) {
    assert.equal(decision.previewSecurityPolicy?.priority, expect.preview.priority, `${where}: preview priority`);
    assert.equal(decision.previewSecurityPolicy?.outcome, expect.preview.outcome, `${where}: preview outcome`);
  }
  if (expect.rateLimit !== undefined) assert.equal(enforced.rateLimitAction?.outcome, expect.rateLimit, `${where}: rate limit outcome`);
  if (expect.key === null) assert.equal(enforced.rateLimitAction?.key, undefined, `${where}: no key logged`);
  else if (expect.key !== undefined) assert.equal(enforced.rateLimitAction?.key, expect.key, `${where}: key`);
  if (expect.errorAt !== undefined) {
    const entry = decision.explanation.find((e) => e.priority === expect.errorAt);
    assert.equal(entry?.matched, false, `${where}: errored rule did not match`);
    assert.match(entry?.error ?? '', /./, `${where}: error reported`);
  }
  if (expect.notEvaluatedLocally !== undefined) {
    const entry = decision.explanation.find((e) => e.priority === expect.notEvaluatedLocally);
    assert.equal(entry?.notEvaluatedLocally, true, `${where}: flagged as not evaluated locally`);
    assert.match(entry?.detail ?? '', /not evaluated locally/);
  }
  if (expect.noteAt !== undefined) {
    const [priority, pattern] = expect.noteAt;
    assert.match(decision.explanation.find((e) => e.priority === priority)?.detail ?? '', pattern, `${where}: explanation of ${priority}`);
  }
  if (expect.preconfiguredExprIds !== undefined) assert.deepEqual(enforced.preconfiguredExprIds, expect.preconfiguredExprIds, `${where}: preconfiguredExprIds`);
  // The explanation always ends with the deciding rule.
  assert.equal(decision.explanation.at(-1)?.priority, expect.priority, `${where}: explanation ends at the deciding rule`);
}

/** withoutExplanation is a decision less its explanation (whose detail depends on `explain`), and each explained rule's verdict. */
function withoutExplanation(decision: Decision): Record<string, unknown> {
  const { explanation, ...rest } = decision;
  return { ...rest, verdicts: explanation.map((entry) => [entry.priority, entry.matched, entry.error !== undefined, entry.notEvaluatedLocally === true]) };
}

describe("Cloud Armor's documented examples", () => {
  for (const example of EXAMPLES) {
    it(example.id, () => {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const policy = compilePolicy(
        { name: 'pol', rules: example.rules },
        { clock, wafUnknown: example.wafUnknown ?? 'no-match', rateLimits: new RateLimitState() },
      );
      const twin = (fastPaths: boolean) =>
        compilePolicy(
          { name: 'pol', rules: example.rules },
          { clock, wafUnknown: example.wafUnknown ?? 'no-match', rateLimits: new RateLimitState(), explain: false, fastPaths },
        );
      const quick = twin(true);
      const slow = twin(false);
      example.steps.forEach((step, i) => {
        if (step.advanceSec !== undefined) clock.advance(step.advanceSec * 1000);
        const times = step.times ?? 1;
        for (let n = 1; n <= times; n++) {
          const decision = policy.evaluate(request(step.request));
          // The fast closures (explain false) decide exactly as the CEL runtime does.
          const fast = withoutExplanation(quick.evaluate(request(step.request)));
          assert.deepEqual(fast, withoutExplanation(slow.evaluate(request(step.request))), `step ${i} request ${n}: fast paths agree with CEL`);
          assert.deepEqual(fast, withoutExplanation(decision), `step ${i} request ${n}: explain false decides as explain true`);
          if (step.expectEach !== undefined) check(decision, step.expectEach, `step ${i} request ${n}`);
          if (n === times && step.expect !== undefined) check(decision, step.expect, `step ${i}`);
        }
      });
    });
  }

  it('37 L throttle 2000/1200 s: a client sending 2,500 evenly gets about 20% exceeded', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const rules = [
      ips(1000, 'throttle', ['*'], {
        rateLimitOptions: { rateLimitThreshold: { count: 2000, intervalSec: 1200 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'IP' },
      }),
    ];
    const policy = compilePolicy({ name: 'pol', rules }, { clock, wafUnknown: 'no-match', rateLimits: new RateLimitState() });
    let exceeded = 0;
    for (let i = 0; i < 2500; i++) {
      if (policy.evaluate(request({ sourceIp: '203.0.113.1' })).enforcedSecurityPolicy.outcome === 'DENY') exceeded++;
      clock.advance(480); // 2,500 requests over 1,200 s
    }
    assert.equal(exceeded / 2500, 0.2);
  });

  it('the default rule allows when a policy has only it (API doc: insert adds allow *)', () => {
    const policy = compilePolicy({ name: 'pol' }, { clock: new ManualClock(), wafUnknown: 'no-match', rateLimits: new RateLimitState() });
    const decision = policy.evaluate(request({}));
    check(decision, defaultAllow, 'default');
    assert.deepEqual(
      policy.rules.map((rule) => rule.priority),
      [DEFAULT],
    );
    assert.equal(ALLOW_ALL.versionedExpr, 'SRC_IPS_V1');
  });
});
