import assert from 'node:assert/strict';
import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseJwt, signJwt, sortedJson, verifyRs256 } from './jwt.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('JWTs as go-jose writes them', () => {
  it('writes claims as compact JSON with every object key sorted', () => {
    assert.equal(
      sortedJson({ sub: 's', aud: ['b', 'a'], 'kubernetes.io': { serviceaccount: { uid: 'u', name: 'n' }, namespace: 'x' } }),
      '{"aud":["b","a"],"kubernetes.io":{"namespace":"x","serviceaccount":{"name":"n","uid":"u"}},"sub":"s"}',
    );
  });

  it('signs RS256 with the header {alg, kid} and no padding, verifiable by node:crypto alone', () => {
    const token = signJwt({ sub: 'system:serviceaccount:a:b', iss: 'https://issuer', exp: 10 }, privateKey, 'key-1');
    const [head, body, signature] = token.split('.') as [string, string, string];
    assert.equal(Buffer.from(head, 'base64url').toString(), '{"alg":"RS256","kid":"key-1"}');
    assert.equal(Buffer.from(body, 'base64url').toString(), '{"exp":10,"iss":"https://issuer","sub":"system:serviceaccount:a:b"}');
    assert.doesNotMatch(token, /[=+/]/);
    assert.equal(verify('sha256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature, 'base64url')), true);
  });

  it('parses a token and checks its signature against one key only', () => {
    const token = signJwt({ iss: 'i' }, privateKey, 'k');
    const parts = parseJwt(token)!;
    assert.deepEqual(parts.header, { alg: 'RS256', kid: 'k' });
    assert.deepEqual(parts.payload, { iss: 'i' });
    assert.equal(verifyRs256(parts, publicKey), true);
    assert.equal(verifyRs256(parts, other.publicKey), false);
    // A changed payload under the old signature fails.
    const [head, , signature] = token.split('.');
    const tampered = parseJwt(`${head}.${Buffer.from('{"iss":"j"}').toString('base64url')}.${signature}`)!;
    assert.equal(verifyRs256(tampered, publicKey), false);
    // Another algorithm named in the header is refused, whatever the bytes.
    const none = parseJwt(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`)!;
    assert.equal(verifyRs256(none, publicKey), false);
  });

  it('reads nothing that is not three base64url parts of two JSON objects', () => {
    for (const token of ['', 'abc', 'a.b', 'a.b.c.d', '!!.e30.x', 'e30.W10.x', 'e30.e30.+/=', `${Buffer.from('"s"').toString('base64url')}.e30.x`]) {
      assert.equal(parseJwt(token), undefined, token);
    }
    assert.deepEqual(parseJwt('e30.e30.')?.payload, {});
  });
});
