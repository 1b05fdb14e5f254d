import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cookieValue, splitUrl, TrafficRequestError, viewRequest } from './request-view.ts';
import type { TrafficRequest } from './traffic-request.ts';

const base: TrafficRequest = { method: 'GET', url: 'https://example.com/', headers: {}, sourceIp: '192.0.2.1' };

describe('the request as rules see it', () => {
  it('keeps the path and query raw, as in the request line, and lower-cases the scheme', () => {
    assert.deepEqual(splitUrl('HTTPS://Example.com:8443/a%2Fb/../c?x=%20y&z'), {
      scheme: 'https',
      host: 'Example.com:8443',
      path: '/a%2Fb/../c',
      query: 'x=%20y&z',
    });
    assert.deepEqual(splitUrl('http://example.com'), { scheme: 'http', host: 'example.com', path: '/', query: '' });
    assert.deepEqual(splitUrl('http://example.com?q#frag'), { scheme: 'http', host: 'example.com', path: '/', query: 'q' });
  });

  it('refuses a URL that is not absolute http(s) and a source that is not an address', () => {
    assert.throws(
      () => splitUrl('/relative'),
      (error: unknown) => error instanceof TrafficRequestError && error.message === 'url must be an absolute http or https URL: "/relative"',
    );
    assert.throws(() => splitUrl('ftp://example.com/'), TrafficRequestError);
    assert.throws(() => splitUrl('http:///path'), TrafficRequestError);
    assert.throws(
      () => viewRequest({ ...base, sourceIp: 'example.com' }, []),
      (error: unknown) => error instanceof TrafficRequestError && error.message === 'sourceIp is not an IPv4 or IPv6 address: "example.com"',
    );
  });

  it('binds the attributes: headers by lower-case name, absent fingerprints and region as "", the ASN as an int', () => {
    const view = viewRequest({ ...base, url: 'http://example.com/p?q=1', headers: { 'X-Test': 'v' }, asn: 64500 }, []);
    const bindings = view.bindings();
    assert.equal((bindings['request.headers'] as Map<string, string>).get('x-test'), 'v');
    assert.equal(bindings['request.path'], '/p');
    assert.equal(bindings['request.query'], 'q=1');
    assert.equal(bindings['request.scheme'], 'http');
    assert.equal(bindings['origin.asn'], 64500n);
    assert.equal(bindings['origin.region_code'], '');
    assert.equal(bindings['origin.tls_ja3_fingerprint'], '');
    assert.equal(bindings['token.recaptcha_exemption.valid'], false);
    assert.equal(view.bindings(), bindings);
  });

  it('resolves origin.user_ip from the first configured header holding an address, else origin.ip', () => {
    const headers = { 'x-forwarded-for': '203.0.113.5, 10.0.0.1', 'true-client-ip': 'garbage' };
    const view = viewRequest({ ...base, headers }, ['True-Client-IP', 'X-Forwarded-For']);
    assert.equal(view.userIp, '203.0.113.5');
    assert.equal(view.userIpSource, 'X-Forwarded-For');
    assert.equal(viewRequest({ ...base, headers }, []).userIp, '192.0.2.1');
    assert.equal(viewRequest({ ...base, headers: {} }, ['X-Real-IP']).userIp, '192.0.2.1');
  });

  it("gives a request without a Host header the URL's host", () => {
    assert.equal(viewRequest({ ...base, url: 'https://Api.example.com:8443/x' }, []).headers.get('host'), 'Api.example.com:8443');
    assert.equal(viewRequest({ ...base, headers: { Host: 'other.example' } }, []).headers.get('host'), 'other.example');
  });

  it('reads cookies by name', () => {
    const view = viewRequest({ ...base, headers: { cookie: 'a=1; b = two ; c' } }, []);
    assert.equal(cookieValue(view, 'b'), 'two');
    assert.equal(cookieValue(view, 'c'), undefined);
    assert.equal(cookieValue(viewRequest(base, []), 'a'), undefined);
  });
});
