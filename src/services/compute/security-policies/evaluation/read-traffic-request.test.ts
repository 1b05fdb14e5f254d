import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readTrafficRequest } from './read-traffic-request.ts';
import { TrafficRequestError } from './request-view.ts';

const fails = (value: unknown, message: string): void => {
  assert.throws(
    () => readTrafficRequest(value, 'requests[0]'),
    (error: unknown) => error instanceof TrafficRequestError && error.message === message,
  );
};

describe('readTrafficRequest', () => {
  it('reads a request, lower-casing header names and joining repeated values', () => {
    const request = readTrafficRequest({
      url: 'https://example.com/admin',
      headers: { 'X-API-Key': 'k', Accept: ['a', 'b'], accept: 'c' },
      sourceIp: '203.0.113.9',
      regionCode: 'FR',
      asn: 64500,
      sni: 'example.com',
      recaptcha: { exemptionValid: true },
    });
    assert.deepEqual(request, {
      method: 'GET',
      url: 'https://example.com/admin',
      headers: { 'x-api-key': 'k', accept: 'a, b, c' },
      sourceIp: '203.0.113.9',
      regionCode: 'FR',
      asn: 64500,
      sni: 'example.com',
      recaptcha: { exemptionValid: true },
    });
  });

  it('keeps a header called __proto__ as a header', () => {
    const request = readTrafficRequest(JSON.parse('{"url":"https://e.com/","sourceIp":"1.2.3.4","headers":{"__proto__":"x"}}'));
    assert.equal(Object.getOwnPropertyDescriptor(request.headers, '__proto__')?.value, 'x');
    assert.equal(Object.getPrototypeOf(request.headers), Object.prototype);
  });

  it('names the first bad field', () => {
    fails([], 'requests[0]: must be an object');
    fails({ sourceIp: '1.2.3.4' }, 'requests[0].url: is required');
    fails({ url: 'https://e.com/' }, 'requests[0].sourceIp: is required');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', method: 'G T' }, 'requests[0].method: must be an HTTP method token');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', headers: { a: 1 } }, 'requests[0].headers.a: must be a string or a list of strings');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', headers: { 'a b': 'x' } }, 'requests[0].headers.a b: is not a valid header name');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', asn: -1 }, 'requests[0].asn: must be an integer from 0 to 4294967295');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', regionCode: 'fra' }, 'requests[0].regionCode: must be a two-letter ISO 3166-1 alpha-2 code');
    fails(
      { url: 'https://e.com/', sourceIp: '1.2.3.4', ip: 'x' },
      'requests[0].ip: unknown field (known: method, url, headers, sourceIp, regionCode, asn, tlsJa3Fingerprint, tlsJa4Fingerprint, sni, httpVersion, recaptcha, body, bodyBase64)',
    );
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', recaptcha: { exemptionValid: 'yes' } }, 'requests[0].recaptcha.exemptionValid: must be a boolean');
    fails({ url: '/admin', sourceIp: '1.2.3.4' }, 'requests[0]: url must be an absolute http or https URL: "/admin"');
    fails({ url: 'https://e.com/', sourceIp: 'host' }, 'requests[0]: sourceIp is not an IPv4 or IPv6 address: "host"');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', body: 'a', bodyBase64: 'YQ==' }, 'requests[0].bodyBase64: cannot be given with body');
    fails({ url: 'https://e.com/', sourceIp: '1.2.3.4', bodyBase64: 'not base64!' }, 'requests[0].bodyBase64: is not base64');
  });

  it('reads a body as text (its UTF-8) or as base64 bytes', () => {
    const text = readTrafficRequest({ url: 'https://e.com/', sourceIp: '1.2.3.4', body: 'q=é' }, 'requests[0]');
    assert.deepEqual([...(text.body ?? [])], [...Buffer.from('q=é', 'utf8')]);
    const bytes = readTrafficRequest({ url: 'https://e.com/', sourceIp: '1.2.3.4', bodyBase64: '/wA=' }, 'requests[0]');
    assert.deepEqual([...(bytes.body ?? [])], [0xff, 0x00]);
  });
});
