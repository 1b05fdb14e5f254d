import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.ts';
import { type RunningFogbank, startFogbank } from '../../testing/fogbank.ts';
import { jsonCaller } from '../../testing/json-call.ts';

let fb: RunningFogbank;
let admin: Record<string, string>;
const POLICY = 'projects/p/regions/us-central1/securityPolicies/edge';
const COMPUTE = '/compute/v1/projects/p/regions/us-central1/securityPolicies';
const T0 = Date.UTC(2026, 0, 1);

before(async () => {
  fb = await startFogbank({ clock: new ManualClock(T0), operations: 'instant' });
  admin = { authorization: `Bearer ${fb.adminToken}` };
  assert.equal((await call('POST', COMPUTE, { name: 'edge' })).status, 200);
  const rule = { priority: 1000, action: 'deny(403)', match: { expr: { expression: "request.path.startsWith('/admin')" } } };
  assert.equal((await call('POST', `${COMPUTE}/edge/addRule`, rule)).status, 200);
});
after(() => fb.close());

const call = jsonCaller(
  () => fb.url,
  () => admin,
);

const replay = (body: unknown) => call('POST', '/_fogbank/securityPolicies:replay', body);
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();
const get = (path: string, seconds: number, ip = '203.0.113.9') => ({ method: 'GET', url: `https://example.com${path}`, sourceIp: ip, time: at(seconds) });

const THROTTLE = {
  action: 'throttle',
  match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
  rateLimitOptions: { rateLimitThreshold: { count: 2, intervalSec: 60 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'IP' },
};

describe('POST /_fogbank/securityPolicies:replay', () => {
  it('lists exactly the requests whose outcome changes, with the deciding rule before and after, counts per rule and coverage', async () => {
    const got = await replay({
      policy: POLICY,
      // /admin is opened to 10.0.0.0/8 (patching 1000), and a throttle of 2 a minute per IP is added at 2000.
      rules: [
        { priority: 1000, rule: { match: { expr: { expression: "request.path.startsWith('/admin') && !inIpRange(origin.ip, '10.0.0.0/8')" } } } },
        { priority: 2000, rule: THROTTLE },
      ],
      requests: [
        get('/admin', 0, '10.1.2.3'), // deny → throttle(allow): changes
        get('/admin', 1), // deny both
        get('/a', 2), // allow → throttle(allow), counted 1 (the deny at 1 s was decided above the throttle): forwarded both ways, no change
        get('/b', 3), // counted 2: conforms, no change
        get('/c', 4), // counted 3, past the threshold: allow → throttle(deny-429)
        get('/d', 65), // a new window: conforms again, no change
      ],
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.policy, POLICY);
    assert.equal(got.body.evaluated, 6);
    assert.deepEqual(
      got.body.changed.map((each: { index: number; before: { action: string }; after: { action: string } }) => [
        each.index,
        each.before.action,
        each.after.action,
      ]),
      [
        [0, 'deny(403)', 'throttle(allow)'],
        [4, 'allow', 'throttle(deny-429)'],
      ],
    );
    assert.deepEqual(got.body.changed[1], {
      index: 4,
      request: { method: 'GET', url: 'https://example.com/c', sourceIp: '203.0.113.9', time: at(4) },
      before: { action: 'allow', effect: 'allow', priority: 2147483647 },
      after: {
        action: 'throttle(deny-429)',
        effect: 'deny-429',
        priority: 2000,
        rateLimit: { outcome: 'RATE_LIMIT_THRESHOLD_EXCEED', count: 3, threshold: 2 },
      },
    });
    assert.deepEqual(got.body.countsByRule, [
      { priority: 1000, before: 1, after: 0 },
      { priority: 2000, before: 0, after: 2 },
      { priority: 2147483647, before: 1, after: 0 },
    ]);
    assert.deepEqual(got.body.transitions, [
      { from: 'deny(403)', to: 'throttle(allow)', count: 1 },
      { from: 'allow', to: 'throttle(deny-429)', count: 1 },
    ]);
    assert.deepEqual(got.body.coverage, [
      { priority: 1000, matchedBefore: 2, matchedAfter: 1 },
      { priority: 2000, matchedBefore: null, matchedAfter: 5 },
      { priority: 2147483647, matchedBefore: 4, matchedAfter: 0 },
    ]);
    assert.deepEqual(got.body.neverMatched, [2147483647]);
    assert.deepEqual(got.body.skipped, []);
  });

  it('takes a whole proposed policy, in either spelling of its type, and replays the journal’s guard decisions', async () => {
    const payload = (path: string, ip: string, time: string) => ({
      '@type': 'type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry',
      statusDetails: 'response_sent_by_backend',
      remoteIp: ip,
      enforcedSecurityPolicy: { name: 'edge', priority: 2147483647, configuredAction: 'ALLOW', outcome: 'ACCEPT' },
      fogbankRequest: { time, url: `http://shop.example${path}`, headers: { host: 'shop.example', 'user-agent': 'curl/8' } },
    });
    const entries = [
      { httpMethod: 'GET', url: '/', status: 200, latencyMs: 1, jsonPayload: payload('/', '198.51.100.7', at(10)) },
      { httpMethod: 'GET', url: '/x', status: 400, latencyMs: 1, jsonPayload: { statusDetails: 'request_unreadable_by_guard', remoteIp: '198.51.100.7' } },
      { httpMethod: 'GET', url: '/cart', status: 200, latencyMs: 1, jsonPayload: payload('/cart', '198.51.100.7', at(11)) },
    ];
    assert.equal((await call('POST', '/_fogbank/requests', { entries })).status, 201);
    const got = await replay({
      policy: POLICY,
      source: 'journal',
      proposed: {
        name: 'edge',
        type: 'EDGEGUARD',
        rules: [
          { priority: 10, action: 'deny(404)', match: { expr: { expression: "request.headers['user-agent'].contains('curl')" } } },
          { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
        ],
      },
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual(
      got.body.changed.map((each: { at: string; request: { url: string }; after: { action: string } }) => [each.at, each.request.url, each.after.action]),
      [
        ['journal[0]', 'http://shop.example/', 'deny(404)'],
        ['journal[2]', 'http://shop.example/cart', 'deny(404)'],
      ],
    );
    assert.deepEqual(got.body.skipped, [{ at: 'journal[1]', reason: 'the guard answered it itself (request_unreadable_by_guard): no policy decided it' }]);
  });

  it('reads a guard log given as text, its listening line passed over', async () => {
    const logLine = (path: string, seconds: number) =>
      JSON.stringify({
        timestamp: at(seconds),
        httpRequest: { requestMethod: 'GET', requestUrl: `http://127.0.0.1:8080${path}`, status: 200, remoteIp: '10.0.0.9' },
        jsonPayload: {
          statusDetails: 'response_sent_by_backend',
          remoteIp: '10.0.0.9',
          enforcedSecurityPolicy: { name: 'edge', priority: 2147483647, configuredAction: 'ALLOW', outcome: 'ACCEPT' },
          fogbankRequest: { time: at(seconds), url: `http://127.0.0.1:8080${path}`, headers: { host: '127.0.0.1:8080' } },
        },
      });
    const text = ['guard listening on http://127.0.0.1:8080', logLine('/admin', 0), logLine('/', 1), ''].join('\n');
    const rule = { action: 'deny(403)', match: { expr: { expression: "request.path == '/admin' && inIpRange(origin.ip, '10.0.0.0/8')" } } };
    const got = await replay({ policy: POLICY, source: 'guard-log', text, rules: [{ priority: 900, rule }] });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    // /admin was denied by 1000 and still is (by 900 now): same effect, no change. Nothing else changes.
    assert.deepEqual([got.body.evaluated, got.body.changed], [2, []]);
    assert.deepEqual(got.body.countsByRule, []);
    assert.deepEqual(got.body.coverage, [
      { priority: 900, matchedBefore: null, matchedAfter: 1 },
      { priority: 1000, matchedBefore: 1, matchedAfter: 0 },
      { priority: 2147483647, matchedBefore: 1, matchedAfter: 1 },
    ]);
    assert.deepEqual(got.body.neverMatched, [1000]);
  });

  it('reads a HAR file given as text, and names a broken one precisely', async () => {
    const har = {
      log: {
        version: '1.2',
        entries: [
          { startedDateTime: at(0), request: { method: 'GET', url: 'https://example.com/admin/x', headers: [{ name: ':authority', value: 'example.com' }] } },
          { startedDateTime: at(1), request: { method: 'GET', url: 'data:text/plain,hi', headers: [] } },
        ],
      },
    };
    const got = await replay({ policy: POLICY, source: 'har', text: JSON.stringify(har), sourceIp: '10.0.0.1', rules: [{ priority: 1000, rule: null }] });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual(
      got.body.changed.map((each: { at: string; before: { action: string }; after: { action: string } }) => [each.at, each.before.action, each.after.action]),
      [['entries[0]', 'deny(403)', 'allow']],
    );
    assert.deepEqual(got.body.skipped, [{ at: 'entries[1]', reason: 'not an http(s) request (data:)' }]);
    const broken = JSON.stringify({
      log: { entries: [{ request: { method: 'GET', url: 'https://a/' } }, {}, {}, { request: { method: 'GET', url: 'nope' } }] },
    });
    assert.deepEqual((await replay({ policy: POLICY, source: 'har', text: broken, rules: [{ priority: 1000, rule: null }] })).body, {
      error: { code: 400, status: 'INVALID_ARGUMENT', message: 'har: entries[1].request is missing' },
    });
    // A request the evaluation refuses is named where it was read.
    const badHeader = { log: { entries: [{ request: { method: 'GET', url: 'https://a/', headers: [{ name: 'x-a', value: 'a\u0001b' }] } }] } };
    assert.deepEqual(
      (await replay({ policy: POLICY, source: 'har', text: JSON.stringify(badHeader), rules: [{ priority: 1000, rule: null }] })).body.error.message,
      'har: entries[0]: "headers.x-a" holds a character a header value cannot carry.',
    );
    const notJson = '{\n  "log": {\n    "entries": [x]\n  }\n}';
    assert.deepEqual(
      (await replay({ policy: POLICY, source: 'har', text: notJson, rules: [{ priority: 1000, rule: null }] })).body.error.message,
      "har: the file is not JSON at line 3, column 17: Unexpected token 'x'",
    );
  });

  it('answers bad bodies in the admin API’s dialect, naming what is wrong', async () => {
    const cases: [unknown, number, string][] = [
      [[], 400, 'The body must be a JSON object: {"policy": NAME, "proposed": {…} or "rules": [{"priority", "rule"}], "requests": [{…}] or "source": …}.'],
      [
        { policy: POLICY, requests: [] },
        400,
        'Give one of "proposed" (a whole policy, as gcloud compute security-policies export writes it) or "rules" (edits to a copy of the current policy).',
      ],
      [{ policy: POLICY, rules: [{ priority: 5, rule: { action: 'explode' } }], requests: [] }, 400, ''],
      [
        { policy: POLICY, rules: [{ priority: 1000, rule: null }], requests: [{ url: '/x', sourceIp: '1.2.3.4' }] },
        400,
        '"requests[0].url": "/x" is not an absolute http or https URL such as "https://example.com/admin?x=1".',
      ],
      [
        { policy: POLICY, rules: [{ priority: 1000, rule: null }], requests: [{ url: 'https://a/', sourceIp: '1.2.3.4', time: 'yesterday' }] },
        400,
        '"requests[0].time" must be an RFC 3339 time such as "2026-01-01T00:00:00.000Z", not "yesterday".',
      ],
      [
        { policy: POLICY, rules: [{ priority: 1000, rule: null }], source: 'journal', since: 'soon' },
        400,
        '"since": "soon" is not an RFC 3339 time such as "2026-01-01T00:00:00Z".',
      ],
      [
        { policy: POLICY, rules: [{ priority: 1000, rule: null }], source: 'guard-log', text: '{"httpRequest":{}}\nnot json' },
        400,
        'guard-log: line 1: httpRequest.requestMethod is not an HTTP method',
      ],
      [
        { policy: POLICY, rules: [{ priority: 1000, rule: null }], source: 'tape' },
        400,
        '"source" must be one of requests, journal, guard-log, har, not "tape".',
      ],
      [
        { policy: POLICY, rules: [{ priority: 1000, rule: null }], requests: [], color: 1 },
        400,
        'Unknown member "color": replay takes policy, proposed or rules, wafUnknown, and requests (or source with since, text or sourceIp).',
      ],
      [
        { policy: 'projects/p/global/securityPolicies/none', rules: [{ priority: 1000, rule: null }], requests: [] },
        404,
        "The security policy 'projects/p/global/securityPolicies/none' was not found.",
      ],
    ];
    for (const [body, status, message] of cases) {
      const got = await replay(body);
      assert.equal(got.status, status, JSON.stringify(body));
      assert.deepEqual(Object.keys(got.body.error), ['code', 'status', 'message']);
      if (message !== '') assert.equal(got.body.error.message, message);
      else assert.match(got.body.error.message, /^"rules\[0\]" \(priority 5\): /);
    }
  });
});
