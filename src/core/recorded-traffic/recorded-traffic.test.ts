import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JournalRecord } from '../journal.ts';
import { parseGuardLog } from './guard-log.ts';
import { parseHar } from './har.ts';
import { journalTraffic } from './journal-traffic.ts';
import { RecordedTrafficError } from './recorded-request.ts';

const PAYLOAD = {
  '@type': 'type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry',
  statusDetails: 'response_sent_by_backend',
  remoteIp: '203.0.113.9',
  securityPolicyRequestData: { remoteIpInfo: { ipAddress: '203.0.113.9', regionCode: 'FR' } },
  enforcedSecurityPolicy: { name: 'edge', priority: 2147483647, configuredAction: 'ALLOW', outcome: 'ACCEPT' },
  fogbankRequest: { time: '2026-01-01T00:00:01.250Z', url: 'http://shop.example/cart?x=1', headers: { host: 'shop.example', authorization: '(redacted)' } },
};
const line = (payload: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    timestamp: '2026-01-01T00:00:01.250Z',
    httpRequest: { requestMethod: 'POST', requestUrl: 'http://shop.example/cart?x=1', status: 200, ...extra },
    jsonPayload: payload,
  });

const refused = (what: () => unknown, message: string) =>
  assert.throws(what, (error: unknown) => error instanceof RecordedTrafficError && error.message === message);

describe('guard log lines', () => {
  it('reads each decision back into the request the policy saw, skipping the listening line and what no policy decided', () => {
    const text = [
      'guard listening on http://127.0.0.1:8080',
      line(PAYLOAD),
      '',
      line({ statusDetails: 'request_unreadable_by_guard', remoteIp: '203.0.113.9' }),
      line({ statusDetails: 'response_sent_by_backend', remoteIp: '203.0.113.9' }),
      // A line written before the guard recorded the request: its URL and user agent.
      line({ ...PAYLOAD, fogbankRequest: undefined }, { userAgent: 'curl/8' }),
    ].join('\n');
    const traffic = parseGuardLog(text);
    assert.deepEqual(traffic.requests, [
      {
        at: 'line 2',
        time: Date.UTC(2026, 0, 1, 0, 0, 1, 250),
        request: { method: 'POST', url: 'http://shop.example/cart?x=1', headers: PAYLOAD.fogbankRequest.headers, sourceIp: '203.0.113.9', regionCode: 'FR' },
      },
      {
        at: 'line 6',
        time: Date.UTC(2026, 0, 1, 0, 0, 1, 250),
        request: { method: 'POST', url: 'http://shop.example/cart?x=1', headers: { 'user-agent': 'curl/8' }, sourceIp: '203.0.113.9', regionCode: 'FR' },
      },
    ]);
    assert.deepEqual(traffic.skipped, [
      { at: 'line 4', reason: 'the guard answered it itself (request_unreadable_by_guard): no policy decided it' },
      { at: 'line 5', reason: 'no security policy decided it (none was attached)' },
    ]);
  });

  it('names the line that does not parse', () => {
    refused(
      () => parseGuardLog(`${line(PAYLOAD)}\n{"timestamp": 1,`),
      'guard-log: line 2, column 17 is not JSON: Expected double-quoted property name in JSON at position 16',
    );
    refused(() => parseGuardLog('[1]'), 'guard-log: line 1 is not a log entry (a JSON object with httpRequest and jsonPayload)');
    refused(() => parseGuardLog('\n{"jsonPayload":{}}'), "guard-log: line 2 has no httpRequest: not a line of the guard's log");
    refused(
      () => parseGuardLog(JSON.stringify({ timestamp: 'noon', httpRequest: { requestMethod: 'GET', requestUrl: 'http://a/' } })),
      'guard-log: line 1: timestamp "noon" is not an RFC 3339 time',
    );
  });
});

describe('HAR files', () => {
  it('reads log.entries[].request, headers in order, pseudo-headers left out, non-http entries skipped', () => {
    const har = {
      log: {
        version: '1.2',
        entries: [
          {
            startedDateTime: '2026-01-01T01:00:00.000+01:00',
            request: {
              method: 'POST',
              url: 'https://example.com/login',
              headers: [
                { name: ':authority', value: 'example.com' },
                { name: 'Cookie', value: 'a=1' },
                { name: 'cookie', value: 'b=2' },
              ],
              postData: { mimeType: 'application/x-www-form-urlencoded', text: 'user=x' },
            },
          },
          { startedDateTime: '2026-01-01T00:00:01Z', request: { method: 'GET', url: 'ws://example.com/socket', headers: [] } },
        ],
      },
    };
    const traffic = parseHar(JSON.stringify(har, null, 2), '198.51.100.1');
    assert.deepEqual(traffic.requests, [
      {
        at: 'entries[0]',
        time: Date.UTC(2026, 0, 1),
        request: { method: 'POST', url: 'https://example.com/login', headers: { Cookie: ['a=1'], cookie: ['b=2'] }, sourceIp: '198.51.100.1', body: 'user=x' },
      },
    ]);
    assert.deepEqual(traffic.skipped, [{ at: 'entries[1]', reason: 'not an http(s) request (ws:)' }]);
  });

  it('names what is wrong: the JSON position as a line, or the member', () => {
    refused(() => parseHar('{\n  "log": {\n    "entries": [1,]\n  }\n}', '1.1.1.1'), "har: the file is not JSON at line 3, column 19: Unexpected token ']'");
    refused(() => parseHar('{"log": 1}', '1.1.1.1'), 'har: no "log" object: not a HAR file');
    refused(() => parseHar('{"log": {"entries": {}}}', '1.1.1.1'), 'har: log.entries is not a list');
    const entries = (request: unknown) => JSON.stringify({ log: { entries: [{ request: { method: 'GET', url: 'https://a/' } }, { request }] } });
    refused(() => parseHar(entries({ method: 'GET', url: 'example.com/x' }), '1.1.1.1'), 'har: entries[1].request.url is not a URL');
    refused(() => parseHar(entries({ method: 'G T', url: 'https://a/' }), '1.1.1.1'), 'har: entries[1].request.method is not an HTTP method');
    refused(
      () => parseHar(entries({ method: 'GET', url: 'https://a/', headers: [{ name: 'x' }] }), '1.1.1.1'),
      'har: entries[1].request.headers[0] is not a {"name", "value"} pair of strings',
    );
  });
});

describe('the journal', () => {
  it('reads the guard family’s records at or after since, the others left out, another policy’s decisions skipped', () => {
    const record = (family: string, time: number, jsonPayload?: unknown): JournalRecord => ({
      time,
      family,
      httpMethod: 'GET',
      url: '/cart?x=1',
      routedUrl: '/cart?x=1',
      authorization: undefined,
      status: 200,
      latencyMs: 1,
      fault: null,
      ...(jsonPayload === undefined ? {} : { jsonPayload }),
    });
    const { fogbankRequest: _recorded, ...withoutRequest } = PAYLOAD;
    const other = { ...PAYLOAD, enforcedSecurityPolicy: { ...PAYLOAD.enforcedSecurityPolicy, name: 'other' } };
    const records = [
      record('guard', 5, PAYLOAD),
      record('compute', 6),
      record('guard', 7, withoutRequest),
      record('guard', 8, PAYLOAD),
      record('guard', 9, other),
    ];
    const traffic = journalTraffic(records, 6, 'edge');
    assert.deepEqual(traffic.requests, [
      {
        at: 'journal[1]',
        time: Date.UTC(2026, 0, 1, 0, 0, 1, 250),
        request: { method: 'GET', url: 'http://shop.example/cart?x=1', headers: PAYLOAD.fogbankRequest.headers, sourceIp: '203.0.113.9', regionCode: 'FR' },
      },
    ]);
    assert.deepEqual(traffic.skipped, [
      { at: 'journal[0]', reason: 'the recording has no absolute URL for it (written before the guard recorded one)' },
      { at: 'journal[2]', reason: "decided by another guard's policy (other)" },
    ]);
  });
});
