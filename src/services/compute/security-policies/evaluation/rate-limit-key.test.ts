import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyComponents, rateLimitKey, truncateBytes, type KeyComponent } from './rate-limit-key.ts';
import { viewRequest } from './request-view.ts';
import type { TrafficRequest } from './traffic-request.ts';

const base: TrafficRequest = { method: 'GET', url: 'https://example.com/a/b?q=1', headers: {}, sourceIp: '192.0.2.1' };
const keyOf = (components: KeyComponent[], request: Partial<TrafficRequest> = {}, userIpHeaders: string[] = []) =>
  rateLimitKey(viewRequest({ ...base, ...request }, userIpHeaders), components);

describe('rate-limit keys', () => {
  it('derives each key type from the request', () => {
    assert.deepEqual(keyOf([{ type: 'ALL' }]), { value: '', type: 'ALL' });
    assert.deepEqual(keyOf([{ type: 'IP' }]), { value: '192.0.2.1', type: 'IP', logged: '192.0.2.1' });
    assert.equal(keyOf([{ type: 'HTTP_HEADER', name: 'X-API-Key' }], { headers: { 'x-api-key': 'k1' } }).value, 'k1');
    assert.equal(keyOf([{ type: 'HTTP_COOKIE', name: 'sid' }], { headers: { cookie: 'a=1; sid=s2' } }).value, 's2');
    assert.equal(keyOf([{ type: 'HTTP_PATH' }]).value, '/a/b');
    assert.equal(keyOf([{ type: 'SNI' }], { sni: 'example.com' }).value, 'example.com');
    assert.equal(keyOf([{ type: 'REGION_CODE' }], { regionCode: 'FR' }).value, 'FR');
    assert.equal(keyOf([{ type: 'TLS_JA3_FINGERPRINT' }], { tlsJa3Fingerprint: 'ja3' }).value, 'ja3');
    assert.equal(keyOf([{ type: 'TLS_JA4_FINGERPRINT' }], { tlsJa4Fingerprint: 'ja4' }).value, 'ja4');
    assert.deepEqual(keyOf([{ type: 'XFF_IP' }], { headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' } }), {
      value: '203.0.113.7',
      type: 'XFF_IP',
      logged: '203.0.113.7',
    });
    assert.deepEqual(keyOf([{ type: 'USER_IP' }], { headers: { 'true-client-ip': '203.0.113.8' } }, ['True-Client-IP']), {
      value: '203.0.113.8',
      type: 'USER_IP',
      logged: '203.0.113.8',
    });
  });

  it('falls back as documented: header, cookie, SNI and fingerprints to ALL; XFF and user IP to IP', () => {
    assert.deepEqual(keyOf([{ type: 'HTTP_HEADER', name: 'x-api-key' }]), { value: '', type: 'ALL' });
    assert.deepEqual(keyOf([{ type: 'HTTP_COOKIE', name: 'sid' }], { headers: { cookie: 'other=1' } }), { value: '', type: 'ALL' });
    assert.deepEqual(keyOf([{ type: 'SNI' }]), { value: '', type: 'ALL' });
    assert.deepEqual(keyOf([{ type: 'TLS_JA3_FINGERPRINT' }]), { value: '', type: 'ALL' });
    assert.equal(keyOf([{ type: 'XFF_IP' }], { headers: { 'x-forwarded-for': 'not-an-ip' } }).type, 'IP');
    assert.equal(keyOf([{ type: 'XFF_IP' }]).value, '192.0.2.1');
    assert.equal(keyOf([{ type: 'USER_IP' }], { headers: { 'true-client-ip': 'junk' } }, ['True-Client-IP']).type, 'IP');
    assert.equal(keyOf([{ type: 'USER_IP' }]).type, 'IP');
  });

  it('combines up to three components, each falling back on its own', () => {
    const components: KeyComponent[] = [{ type: 'HTTP_PATH' }, { type: 'HTTP_COOKIE', name: 'site_id' }, { type: 'IP' }];
    assert.deepEqual(keyOf(components, { headers: { cookie: 'site_id=7' } }), {
      value: '/a/b|7|192.0.2.1',
      type: 'HTTP_PATH+HTTP_COOKIE+IP',
      logged: '/a/b|7|192.0.2.1',
    });
    assert.equal(keyOf(components).type, 'HTTP_PATH+IP');
  });

  it('counts the first 128 bytes of a value and logs at most 36', () => {
    const long = 'é'.repeat(100); // 200 bytes
    const key = keyOf([{ type: 'HTTP_HEADER', name: 'x' }], { headers: { x: long } });
    assert.equal(key.value, 'é'.repeat(64));
    assert.equal(key.logged, 'é'.repeat(18));
    assert.equal(Buffer.byteLength(truncateBytes(`a${'é'.repeat(100)}`, 128)), 127);
    assert.equal(truncateBytes('short', 128), 'short');
  });

  it('reads enforceOnKey or enforceOnKeyConfigs from the options', () => {
    assert.deepEqual(keyComponents({}), [{ type: 'ALL' }]);
    assert.deepEqual(keyComponents({ enforceOnKey: 'HTTP_HEADER', enforceOnKeyName: 'X' }), [{ type: 'HTTP_HEADER', name: 'X' }]);
    assert.deepEqual(keyComponents({ enforceOnKeyConfigs: [{ enforceOnKeyType: 'IP' }, { enforceOnKeyType: 'HTTP_COOKIE', enforceOnKeyName: 'c' }] }), [
      { type: 'IP' },
      { type: 'HTTP_COOKIE', name: 'c' },
    ]);
  });
});
