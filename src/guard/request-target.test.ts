import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readTarget } from './request-target.ts';

describe('the request target, read once', () => {
  it('takes an origin-form target as sent, with the Host and the connection’s scheme', () => {
    assert.deepEqual(readTarget('/admin?x=1', 'example.com:8080', 'http'), {
      url: 'http://example.com:8080/admin?x=1',
      host: 'example.com:8080',
      forward: '/admin?x=1',
    });
    assert.deepEqual(readTarget('/a%20b', 'h', 'http'), { url: 'http://h/a%20b', host: 'h', forward: '/a%20b' });
    // Percent-encoding other than dots is neither decoded nor refused: Cloud Armor's request.path is raw.
    assert.equal((readTarget('/%61dmin', 'h', 'http') as { forward: string }).forward, '/%61dmin');
    // Dots inside a segment are no dot segment.
    assert.equal((readTarget('/a..b/.well-known/x.', 'h', 'http') as { forward: string }).forward, '/a..b/.well-known/x.');
  });

  it('reduces an absolute-form target to its path and query, its authority the Host, its scheme the connection’s', () => {
    assert.deepEqual(readTarget('http://other.example/a?q', 'ignored.example', 'http'), {
      url: 'http://other.example/a?q',
      host: 'other.example',
      forward: '/a?q',
    });
    assert.deepEqual(readTarget('HTTPS://h/secure', undefined, 'http'), { url: 'http://h/secure', host: 'h', forward: '/secure' });
    assert.deepEqual(readTarget('http://h', undefined, 'http'), { url: 'http://h/', host: 'h', forward: '/' });
    assert.deepEqual(readTarget('http://h?x=1', undefined, 'http'), { url: 'http://h/?x=1', host: 'h', forward: '/?x=1' });
  });

  it('refuses what an upstream could read as another path, or that is no URL', () => {
    for (const [target, host, reason] of [
      ['/admin', undefined, /has no Host/],
      ['/admin', '', /has no Host/],
      ['/admin', 'a b', /not a host name/],
      ['/admin', 'evil/x', /not a host name/],
      ['/admin', 'h@x', /not a host name/],
      ['/admin', 'h:99999', /not a host name/],
      ['/admin', '[zz]', /not a host name/],
      ['/admin', 'a, b', /not a host name/],
      ['*', 'h', /asterisk-form/],
      ['ftp://h/', 'h', /neither a path nor an absolute http URL/],
      ['h:443', 'h', /neither a path nor an absolute http URL/],
      ['/a\u0001b', 'h', /space or a control character/],
      ['/x/../admin', 'h', /dot segment/],
      ['/x/./admin', 'h', /dot segment/],
      ['/x/%2e%2e/admin', 'h', /dot segment/],
      ['/x/.%2E/admin', 'h', /dot segment/],
      ['/x/%2e./admin', 'h', /dot segment/],
      ['/admin/..', 'h', /dot segment/],
      ['/admin/../ok', 'h', /dot segment/],
      ['/x\\..\\admin', 'h', /backslash/],
      ['/admin#frag', 'h', /fragment/],
      ['//admin/x', 'h', /starts with '\/\/'/],
      ['http://h//admin/x', undefined, /starts with '\/\/'/],
      ['http://h/x/../admin', undefined, /dot segment/],
      ['http://h/x/%2e%2e/admin', undefined, /dot segment/],
      ['http://h\\admin', undefined, /not a host name/],
      ['http://h/a"b', undefined, /reads as '\/a%22b' once normalised/],
      ['http://u:p@h/admin', undefined, /credentials/],
      ['http:///admin', undefined, /names no host/],
    ] as const) {
      const read = readTarget(target, host, 'http');
      assert.ok('refused' in read, `${target} ${host} was not refused`);
      assert.match(read.refused, reason, target);
    }
  });
});
