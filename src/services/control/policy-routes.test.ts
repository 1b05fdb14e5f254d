import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.ts';
import { type RunningFogbank, startFogbank } from '../../testing/fogbank.ts';
import { jsonCaller } from '../../testing/json-call.ts';

let fb: RunningFogbank;
let admin: Record<string, string>;
const POLICY = 'projects/p/regions/us-central1/securityPolicies/edge';
const COMPUTE = '/compute/v1/projects/p/regions/us-central1/securityPolicies';

before(async () => {
  fb = await startFogbank({ clock: new ManualClock(Date.UTC(2026, 0, 1)), operations: 'instant' });
  admin = { authorization: `Bearer ${fb.adminToken}` };
});
after(() => fb.close());

const call = jsonCaller(
  () => fb.url,
  () => admin,
);

function controlError(code: number, status: string, message: string): unknown {
  return { error: { code, status, message } };
}

const evaluate = (body: unknown) => call('POST', '/_fogbank/securityPolicies:evaluate', body);

describe('POST /_fogbank/securityPolicies:evaluate', () => {
  before(async () => {
    assert.equal((await call('POST', COMPUTE, { name: 'edge' })).status, 200);
    const rules = [
      { priority: 1000, action: 'deny(403)', match: { expr: { expression: "request.path.startsWith('/admin') && !inIpRange(origin.ip, '10.0.0.0/8')" } } },
      {
        priority: 2000,
        action: 'throttle',
        match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
        rateLimitOptions: {
          rateLimitThreshold: { count: 2, intervalSec: 60 },
          conformAction: 'allow',
          exceedAction: 'deny(429)',
          enforceOnKey: 'HTTP_HEADER',
          enforceOnKeyName: 'X-API-Key',
        },
      },
    ];
    for (const rule of rules) assert.equal((await call('POST', `${COMPUTE}/edge/addRule`, rule)).status, 200);
  });

  it('decides each request as the named policy says, in the request log’s words', async () => {
    const got = await evaluate({
      policy: POLICY,
      requests: [
        { method: 'GET', url: 'https://example.com/admin', sourceIp: '203.0.113.9' },
        { method: 'GET', url: 'https://example.com/admin', sourceIp: '10.1.2.3', headers: { 'X-API-Key': 'k1' } },
      ],
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const [denied, allowed] = got.body.results;
    assert.deepEqual(denied.enforcedSecurityPolicy, { name: 'edge', priority: 1000, configuredAction: 'DENY', outcome: 'DENY' });
    assert.deepEqual(denied.response, { kind: 'deny', status: 403 });
    assert.deepEqual(denied.rule, { priority: 1000, action: 'deny(403)', preview: false });
    assert.equal(allowed.enforcedSecurityPolicy.priority, 2000);
    assert.equal(allowed.enforcedSecurityPolicy.outcome, 'ACCEPT');
    assert.deepEqual(allowed.enforcedSecurityPolicy.rateLimitAction, { key: 'k1', outcome: 'RATE_LIMIT_THRESHOLD_CONFORM' });
    assert.equal(allowed.rateLimit.count, 1);
  });

  it('keeps a named policy’s counters between calls, on the server’s clock, until reset', async () => {
    const one = { policy: POLICY, requests: [{ method: 'GET', url: 'https://example.com/', sourceIp: '10.1.2.3', headers: { 'x-api-key': 'k2' } }] };
    assert.equal((await evaluate(one)).body.results[0].rateLimit.count, 1);
    assert.equal((await evaluate(one)).body.results[0].rateLimit.count, 2);
    const third = (await evaluate(one)).body.results[0];
    assert.deepEqual([third.response, third.enforcedSecurityPolicy.outcome], [{ kind: 'deny', status: 429 }, 'DENY']);
    assert.equal((await call('POST', '/_fogbank/clock', { advance: '61s' })).status, 200);
    assert.equal((await evaluate(one)).body.results[0].rateLimit.count, 1);
    assert.equal((await evaluate(one)).body.results[0].rateLimit.count, 2);
    // A reset empties every family: the policy is gone, and its counters with it.
    assert.equal((await call('POST', '/_fogbank/reset')).status, 200);
    assert.deepEqual((await evaluate(one)).body, controlError(404, 'NOT_FOUND', `The security policy '${POLICY}' was not found.`));
  });

  it('evaluates an inline policy validated as the compute API validates one', async () => {
    const policy = {
      name: 'inline',
      rules: [{ priority: 10, action: 'deny(404)', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['198.51.100.1'] } } }],
    };
    const got = await evaluate({
      policy,
      requests: [
        { url: 'http://example.com/', sourceIp: '198.51.100.1' },
        { url: 'http://example.com/', sourceIp: '198.51.100.2' },
      ],
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual(
      got.body.results.map((result: { rule: { priority: number }; response: unknown }) => [result.rule.priority, result.response]),
      [
        [10, { kind: 'deny', status: 404 }],
        [2147483647, { kind: 'forward' }],
      ],
    );
    const bad = await evaluate({
      policy: { name: 'inline', rules: [{ priority: 10, action: 'deny(451)', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } }] },
      requests: [{ url: 'http://e/', sourceIp: '1.2.3.4' }],
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /^"policy": Invalid value for field 'resource.rules\[0\]\.action': 'deny\(451\)'\./);
  });

  it('refuses bad input with a precise 400, and an unknown policy with 404', async () => {
    const cases: [unknown, number, string][] = [
      ['[]', 400, 'The body must be a JSON object: {"policy": NAME or {…}, "requests": [{"method", "url", "sourceIp", …}]}.'],
      [
        { policy: 'pol', requests: [] },
        400,
        '"policy": "pol" is not a security policy name such as projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME.',
      ],
      [{ policy: POLICY, requests: [] }, 400, '"requests" must be a list of at least one request.'],
      [
        { policy: POLICY, requests: [{ url: 'https://e/', sourceIp: '300.1.1.1' }] },
        400,
        '"requests[0].sourceIp": "300.1.1.1" is not an IPv4 or IPv6 address.',
      ],
      [
        { policy: POLICY, requests: [{ url: '/admin', sourceIp: '1.2.3.4' }] },
        400,
        '"requests[0].url": "/admin" is not an absolute http or https URL such as "https://example.com/admin?x=1".',
      ],
      [
        { policy: POLICY, requests: [{ url: 'https://e/', sourceIp: '1.2.3.4', port: 1 }] },
        400,
        '"requests[0]" has unknown member "port": a request takes method, url, headers, sourceIp, regionCode, asn, tlsJa3Fingerprint, tlsJa4Fingerprint, sni, body, bodyBase64.',
      ],
      [
        { policy: POLICY, requests: [{ url: 'https://e/', sourceIp: '1.2.3.4', regionCode: 'fr' }] },
        400,
        '"requests[0].regionCode" must be an ISO 3166-1 alpha-2 code such as "FR", not "fr".',
      ],
      [
        { policy: 'projects/p/global/securityPolicies/none', requests: [{ url: 'https://e/', sourceIp: '1.2.3.4' }] },
        404,
        "The security policy 'projects/p/global/securityPolicies/none' was not found.",
      ],
    ];
    for (const [body, status, message] of cases) {
      const got = await evaluate(body);
      assert.deepEqual(got.body, controlError(status, status === 400 ? 'INVALID_ARGUMENT' : 'NOT_FOUND', message), JSON.stringify(body));
    }
  });
});

describe('GET /_fogbank/securityPolicies:follow', () => {
  it('answers the policy as it is, or 404', async () => {
    assert.equal((await call('POST', COMPUTE, { name: 'followed' })).status, 200);
    const got = await call('GET', `/_fogbank/securityPolicies:follow?policy=${encodeURIComponent('projects/p/regions/us-central1/securityPolicies/followed')}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.policy.name, 'followed');
    assert.equal(got.body.policy.rules.length, 1);
    const missing = await call('GET', `/_fogbank/securityPolicies:follow?policy=${encodeURIComponent('projects/p/global/securityPolicies/nope')}`);
    assert.deepEqual(missing.body, controlError(404, 'NOT_FOUND', "The security policy 'projects/p/global/securityPolicies/nope' was not found."));
    assert.deepEqual(
      (await call('GET', '/_fogbank/securityPolicies:follow')).body,
      controlError(
        400,
        'INVALID_ARGUMENT',
        'Parameter "policy" is required: projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME.',
      ),
    );
  });

  it('streams the policy, each change as it commits, and its deletion', async () => {
    const name = 'projects/p/regions/us-central1/securityPolicies/streamed';
    assert.equal((await call('POST', COMPUTE, { name: 'streamed' })).status, 200);
    const events: { event: string; data: { policy?: { rules: { priority: number }[] } } }[] = [];
    let wake: () => void = () => {};
    const request = httpRequest(`${fb.url}/_fogbank/securityPolicies:follow?policy=${encodeURIComponent(name)}`, {
      headers: { ...admin, accept: 'text/event-stream' },
    });
    request.on('response', (response) => {
      assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8');
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== undefined && data !== undefined) events.push({ event, data: JSON.parse(data) });
          wake();
        }
      });
    });
    request.end();
    const waitFor = async (count: number): Promise<void> => {
      while (events.length < count) await new Promise<void>((resolve) => (wake = resolve));
    };
    await waitFor(1);
    assert.equal(events[0]!.event, 'policy');
    assert.deepEqual(
      events[0]!.data.policy!.rules.map((rule) => rule.priority),
      [2147483647],
    );
    await call('POST', `${COMPUTE}/streamed/addRule`, { priority: 5, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } });
    await waitFor(2);
    assert.deepEqual(
      events[1]!.data.policy!.rules.map((rule) => rule.priority),
      [5, 2147483647],
    );
    await call('DELETE', `${COMPUTE}/streamed`);
    await waitFor(3);
    assert.equal(events[2]!.event, 'deleted');
    request.destroy();
  });
});

describe('POST /_fogbank/requests', () => {
  it('journals decisions made outside the server as family guard', async () => {
    const jsonPayload = { enforcedSecurityPolicy: { name: 'edge', priority: 1000, configuredAction: 'DENY', outcome: 'DENY' } };
    const got = await call('POST', '/_fogbank/requests', { entries: [{ httpMethod: 'GET', url: '/admin?x=1', status: 403, latencyMs: 0.4, jsonPayload }] });
    assert.deepEqual([got.status, got.body], [201, { appended: 1 }]);
    const read = await call('GET', '/_fogbank/requests?family=guard');
    assert.equal(read.body.requests.length, 1);
    const { time, ...entry } = read.body.requests[0];
    assert.deepEqual(entry, {
      family: 'guard',
      method: 'GET /admin',
      principal: null,
      status: 403,
      latencyMs: 0.4,
      fault: null,
      httpMethod: 'GET',
      path: '/admin',
      jsonPayload,
    });
    assert.deepEqual(
      (await call('POST', '/_fogbank/requests', { entries: [{ httpMethod: 'GET', url: 'admin', status: 200, latencyMs: 1 }] })).body,
      controlError(400, 'INVALID_ARGUMENT', '"entries[0].url" must be a path and query starting with "/" (at most 8192 characters).'),
    );
  });
});
