// Two `fogbank start --store postgres://…` replicas, each with its own data directory, share the
// ServiceAccount signing key through the database: a token issued through one authenticates
// through the other, both serve one JWKS, neither writes the key file, and a reset through one
// keeps the key for both.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startReplicaPair, type ReplicaPair } from '../harness/replicas.ts';

const TOKEN = 'e2e-sa-key';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the JSON answers
async function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
}

describe('the ServiceAccount signing key on PostgreSQL replicas', () => {
  let pair: ReplicaPair;
  before(async () => {
    pair = await startReplicaPair('sa_key', TOKEN);
  });
  after(async () => pair.stop());

  it('signs through one replica what the other accepts, with one JWKS and no key file', { timeout: 120_000 }, async () => {
    const { a, b } = pair;
    assert.equal((await call(a.url, 'POST', '/api/v1/namespaces/default/serviceaccounts', TOKEN, { metadata: { name: 'ci' } })).status, 201);
    const issued = await call(a.url, 'POST', '/api/v1/namespaces/default/serviceaccounts/ci/token', TOKEN, { spec: {} });
    assert.equal(issued.status, 201);
    const token = issued.body.status.token as string;
    const whoami = await call(b.url, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', token, {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
    });
    assert.equal(whoami.status, 201);
    assert.equal(whoami.body.status.userInfo.username, 'system:serviceaccount:default:ci');
    const [jwksA, jwksB] = [await call(a.url, 'GET', '/openid/v1/jwks', token), await call(b.url, 'GET', '/openid/v1/jwks', token)];
    assert.deepEqual(jwksA.body, jwksB.body);
    for (const name of ['a', 'b']) assert.equal(existsSync(join(pair.work, name, 'service-account.key')), false);

    // A reset through A: the key stays (the default account comes back, with a new uid).
    assert.equal((await call(a.url, 'POST', '/_fogbank/reset', TOKEN)).status, 200);
    const after = await call(b.url, 'GET', '/openid/v1/jwks', TOKEN);
    assert.deepEqual(after.body, jwksA.body);
    const again = await call(b.url, 'POST', '/api/v1/namespaces/default/serviceaccounts', TOKEN, { metadata: { name: 'ci' } });
    assert.equal(again.status, 201);
    const fresh = (await call(b.url, 'POST', '/api/v1/namespaces/default/serviceaccounts/ci/token', TOKEN, { spec: {} })).body.status.token as string;
    assert.equal(JSON.parse(Buffer.from(fresh.split('.')[0]!, 'base64url').toString('utf8')).kid, jwksA.body.keys[0].kid);
    assert.equal((await call(a.url, 'GET', '/openid/v1/jwks', fresh)).status, 200);
    assert.equal((await call(a.url, 'GET', '/openid/v1/jwks', token)).status, 401, 'the old account is gone');
  });
});
