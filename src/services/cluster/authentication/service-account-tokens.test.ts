import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const SA = '/api/v1/namespaces/team-a/serviceaccounts';
const REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

async function settle(): Promise<void> {
  // The ServiceAccount controller follows the change feed: let it run.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('ServiceAccounts, TokenRequest, token authentication and TokenReview', () => {
  let h: ClusterHarness;
  let uid = '';
  before(async () => {
    h = await startHarness({ bootstrapPolicy: true });
    assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'team-a' } })).status, 201);
    const created = await h.call('POST', SA, { metadata: { name: 'ci' }, secrets: [{ name: 's' }] });
    assert.equal(created.status, 201);
    uid = created.body.metadata.uid;
    await settle();
  });
  after(async () => h.close());

  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the JSON answers
  async function issue(body: unknown, name = 'ci'): Promise<{ status: number; body: any }> {
    return h.call('POST', `${SA}/${name}/token`, body);
  }

  it('keeps a default ServiceAccount in every namespace, the initial ones included', async () => {
    const all = await h.call('GET', '/api/v1/serviceaccounts');
    assert.deepEqual(
      all.body.items.map((item: { metadata: { namespace: string; name: string } }) => `${item.metadata.namespace}/${item.metadata.name}`),
      ['default/default', 'kube-node-lease/default', 'kube-public/default', 'kube-system/default', 'team-a/ci', 'team-a/default'],
    );
    const table = await h.call('GET', SA, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(
      table.body.columnDefinitions.map((column: { name: string }) => column.name),
      ['Name', 'Secrets', 'Age'],
    );
    assert.deepEqual(
      table.body.rows.map((row: { cells: unknown[] }) => row.cells),
      [
        ['ci', 1, '0s'],
        ['default', 0, '0s'],
      ],
    );
  });

  it('validates names as DNS subdomains', async () => {
    const bad = await h.call('POST', SA, { metadata: { name: 'Bad_Name' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /^ServiceAccount "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });

  it('issues a token with the defaults and the apiserver claims', async () => {
    const answer = await issue({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    assert.equal(answer.status, 201);
    const { token, expirationTimestamp } = answer.body.status;
    assert.deepEqual(answer.body.metadata, { name: 'ci', namespace: 'team-a', creationTimestamp: '2025-01-01T00:00:00Z' });
    // TokenRequestSpec.BoundObjectRef is a pointer without omitempty: Go writes null.
    assert.deepEqual(answer.body.spec, { audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null });
    assert.equal(expirationTimestamp, '2025-01-01T01:00:00Z');
    const claims = claimsOf(token);
    assert.deepEqual(
      { ...claims, jti: typeof claims['jti'] },
      {
        aud: [ISSUER],
        exp: 1735693200,
        iat: 1735689600,
        iss: ISSUER,
        jti: 'string',
        'kubernetes.io': { namespace: 'team-a', serviceaccount: { name: 'ci', uid } },
        nbf: 1735689600,
        sub: 'system:serviceaccount:team-a:ci',
      },
    );
    assert.match(claims['jti'] as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuses what the apiserver refuses, with its texts', async () => {
    const cases: [unknown, number, string][] = [
      [
        { spec: { expirationSeconds: 599 } },
        422,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      ],
      [
        { spec: { expirationSeconds: 2 ** 32 + 1 } },
        422,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
      ],
      [
        { metadata: { name: 'other' }, spec: {} },
        422,
        'TokenRequest.authentication.k8s.io "ci" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
      ],
      [
        { metadata: { namespace: 'b' }, spec: {} },
        422,
        'TokenRequest.authentication.k8s.io "ci" is invalid: metadata.namespace: Invalid value: "b": must match the service account namespace if specified',
      ],
      [
        { spec: { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' } } },
        400,
        'cannot bind token to object of type apps/v1, Kind=Deployment',
      ],
      [{ spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } } }, 404, 'pods "p" not found'],
      [
        { spec: { expirationSeconds: 'soon' } },
        400,
        'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64',
      ],
      [
        { kind: 'Pod', spec: {} },
        400,
        'Pod in version "v1" cannot be handled as a TokenRequest: no kind "Pod" is registered for version "authentication.k8s.io/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
      ],
    ];
    for (const [body, status, message] of cases) {
      const answer = await issue(body);
      assert.deepEqual([answer.status, answer.body.message], [status, message], JSON.stringify(body));
    }
    const missing = await issue({ spec: {} }, 'nobody');
    assert.deepEqual([missing.status, missing.body.message], [404, 'serviceaccounts "nobody" not found']);
  });

  it('authenticates the token as the ServiceAccount, with uid and credential id', async () => {
    const token = (await issue({ spec: {} })).body.status.token as string;
    const whoami = await h.call(
      'POST',
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1' },
      { authorization: `Bearer ${token}` },
    );
    assert.equal(whoami.status, 201);
    assert.deepEqual(whoami.body.status.userInfo, {
      username: 'system:serviceaccount:team-a:ci',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claimsOf(token)['jti'])}`] },
    });
    // Basic credentials carry it too (kubectl over plain http).
    const basic = `Basic ${Buffer.from(`fogbank:${token}`).toString('base64')}`;
    assert.equal((await h.call('GET', '/openid/v1/jwks', undefined, { authorization: basic })).status, 200);
    // The default policy lets every ServiceAccount read the issuer documents, with or without a trailing slash.
    for (const path of ['/openid/v1/jwks/', '/.well-known/openid-configuration', '/.well-known/openid-configuration/'])
      assert.equal((await h.call('GET', path, undefined, { authorization: `Bearer ${token}` })).status, 200, path);
    // A token for another audience is no credential for the API.
    const vault = (await issue({ spec: { audiences: ['vault'] } })).body.status.token as string;
    assert.equal((await h.call('GET', '/openid/v1/jwks', undefined, { authorization: `Bearer ${vault}` })).status, 401);
    const reviewed = await h.call('POST', REVIEWS, { spec: { token: vault, audiences: ['vault', 'other'] } });
    assert.deepEqual(reviewed.body.status.audiences, ['vault']);
    assert.equal(reviewed.body.status.authenticated, true);
  });

  it('refuses a tampered token and answers TokenReview errors as the apiserver', async () => {
    const token = (await issue({ spec: {} })).body.status.token as string;
    const [head, , signature] = token.split('.');
    const claims = { ...claimsOf(token), sub: 'system:serviceaccount:kube-system:default' };
    const tampered = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const refused = await h.call('GET', '/api/v1/namespaces', undefined, { authorization: `Bearer ${tampered}` });
    assert.deepEqual(refused.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    const review = await h.call('POST', REVIEWS, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: tampered } });
    assert.equal(review.status, 201);
    assert.deepEqual(review.body, {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { token: tampered },
      status: { user: {}, error: 'go-jose/go-jose: error in cryptographic primitive' },
    });
    const empty = await h.call('POST', REVIEWS, { spec: { token: '' } });
    assert.deepEqual([empty.status, empty.body.message], [400, 'token is required for TokenReview in authentication.k8s.io']);
    const alice = await h.call('POST', REVIEWS, { spec: { token: 'alice-token' } });
    assert.deepEqual(alice.body.status, {
      authenticated: true,
      user: { username: 'alice@example.com', groups: ['devs', 'system:authenticated'] },
      audiences: [ISSUER],
    });
    const aliceElsewhere = await h.call('POST', REVIEWS, { spec: { token: 'alice-token', audiences: ['vault'] } });
    assert.deepEqual(aliceElsewhere.body.status, { user: {}, error: 'invalid bearer token' });
    // Creating a review is RBAC's create on tokenreviews: alice holds no such rule.
    const forbidden = await h.call('POST', REVIEWS, { spec: { token } }, { authorization: 'Bearer alice-token' });
    assert.equal(forbidden.status, 403);
    assert.equal(
      forbidden.body.message,
      'tokenreviews.authentication.k8s.io is forbidden: User "alice@example.com" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope',
    );
  });

  it('expires on the clock with a minute of leeway, and dies with its account', async () => {
    const token = (await issue({ spec: { expirationSeconds: 600 } })).body.status.token as string;
    const review = async (): Promise<unknown> => (await h.call('POST', REVIEWS, { spec: { token } })).body.status;
    h.clock.advance(660_000);
    assert.equal((await h.call('POST', REVIEWS, { spec: { token } })).body.status.authenticated, true);
    h.clock.advance(1000);
    assert.deepEqual(await review(), { user: {}, error: 'service account token has expired' });
    h.clock.set(new Date('2025-01-01T00:00:00Z'));
    const live = (await issue({ spec: {} })).body.status.token as string;
    assert.equal((await h.call('DELETE', `${SA}/ci`)).status, 200);
    const gone = await h.call('POST', REVIEWS, { spec: { token: live } });
    assert.deepEqual(gone.body.status, { user: {}, error: 'serviceaccounts "ci" not found' });
    const again = await h.call('POST', SA, { metadata: { name: 'ci' } });
    const recreated = await h.call('POST', REVIEWS, { spec: { token: live } });
    assert.deepEqual(recreated.body.status, { user: {}, error: `service account UID (${again.body.metadata.uid}) does not match claim (${uid})` });
  });

  it('remakes a deleted default ServiceAccount and removes a namespace’s accounts with it', async () => {
    const before = (await h.call('GET', `${SA}/default`)).body.metadata.uid;
    assert.equal((await h.call('DELETE', `${SA}/default`)).status, 200);
    await settle();
    const after = await h.call('GET', `${SA}/default`);
    assert.equal(after.status, 200);
    assert.notEqual(after.body.metadata.uid, before);
    // Only a name was written, which managedFields do not track: no entry, as on a real cluster.
    assert.equal(after.body.metadata.managedFields, undefined);
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/team-a')).status, 200);
    await settle();
    assert.deepEqual(
      (await h.store.list('cluster/serviceaccounts', { prefix: 'team-a/' })).map((record) => record.key),
      [],
    );
  });

  it('serves the issuer discovery documents', async () => {
    const configuration = await h.call('GET', '/.well-known/openid-configuration/');
    assert.equal(configuration.status, 200);
    assert.equal(configuration.headers['cache-control'], 'public, max-age=3600');
    assert.equal(configuration.body.jwks_uri, 'http://localhost:80/openid/v1/jwks');
    const jwks = await h.call('GET', '/openid/v1/jwks');
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    assert.equal(jwks.body.keys[0].e, 'AQAB');
    const anonymous = await h.call('GET', '/openid/v1/jwks', undefined, { authorization: '' });
    assert.equal(anonymous.status, 401);
    const alice = await h.call('GET', '/openid/v1/jwks', undefined, { authorization: 'Bearer alice-token' });
    assert.equal(alice.status, 403);
    assert.equal(alice.body.message, 'forbidden: User "alice@example.com" cannot get path "/openid/v1/jwks"');
  });
});
