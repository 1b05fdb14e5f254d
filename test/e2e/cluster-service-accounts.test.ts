// ServiceAccounts and their tokens with the real clients: kubectl creates the account and a token,
// uses the token (kubectl sends no bearer token over plain http, so the token rides as the
// password of the server URL, as fogbank's own kubeconfig does; over a kubeconfig without it,
// `--token` is dropped and the request is anonymous), @kubernetes/client-node uses it as a bearer
// token, the token verifies against the served JWKS with node:crypto alone, and TokenReview and the
// 401s answer as the apiserver does, on fogbank's clock.
import assert from 'node:assert/strict';
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { type Fogbank, start } from '../../src/fogbank.ts';
import { removeTempDir, tempDir } from '../../src/testing/temp.ts';
import { kubeConfigFor } from '../harness/client-node.ts';
import { Kubectl } from '../harness/kubectl.ts';

const ADMIN = 'service-accounts-admin';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** table renders rows as kubectl's tabwriter does (columns padded to the widest cell plus three spaces). */
function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]! + 3))).join('')).join('\n') + '\n';
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of the JSON answers
async function call(fb: Fogbank, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; type: string; body: any }> {
  const response = await fetch(`${fb.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.json() };
}

function review(token: string, audiences?: string[]): unknown {
  return { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', spec: { token, ...(audiences === undefined ? {} : { audiences }) } };
}

describe('ServiceAccounts and tokens with kubectl, client-node and node:crypto', () => {
  let fb: Fogbank;
  let admin: Kubectl;
  let token = '';
  const clients: Kubectl[] = [];

  before(async () => {
    fb = await start({ adminToken: ADMIN });
    admin = await Kubectl.overHttps(fb.server, ADMIN);
  });
  after(async () => {
    admin.cleanup();
    for (const client of clients) client.cleanup();
    await fb.stop();
  });

  it('creates a ServiceAccount beside the default one the controller made, and lists both', async () => {
    assert.equal((await admin.run(['create', 'namespace', 'team-a'])).stdout, 'namespace/team-a created\n');
    const created = await admin.run(['create', 'serviceaccount', 'ci', '-n', 'team-a']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'serviceaccount/ci created\n');
    const listed = await admin.run(['get', 'sa', '-n', 'team-a']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^NAME {6}SECRETS {3}AGE\nci {8}0 {9}\d+s\ndefault {3}0 {9}\d+s\n$/);
  });

  it('issues a token with kubectl create token --duration, with the apiserver claims', async () => {
    const result = await admin.run(['create', 'token', 'ci', '-n', 'team-a', '--duration=1h']);
    assert.equal(result.code, 0, result.stderr);
    token = result.stdout;
    assert.match(token, /^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/);
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(header), ['alg', 'kid']);
    assert.equal(header['alg'], 'RS256');
    const claims = claimsOf(token);
    assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    const account = JSON.parse((await admin.run(['get', 'sa', 'ci', '-n', 'team-a', '-o', 'json'])).stdout) as { metadata: { uid: string } };
    assert.deepEqual(claims['aud'], [ISSUER]);
    assert.equal(claims['iss'], ISSUER);
    assert.equal(claims['sub'], 'system:serviceaccount:team-a:ci');
    assert.equal((claims['exp'] as number) - (claims['iat'] as number), 3600);
    assert.equal(claims['nbf'], claims['iat']);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'team-a', serviceaccount: { name: 'ci', uid: account.metadata.uid } });
    const tooShort = await admin.run(['create', 'token', 'ci', '-n', 'team-a', '--duration=1m']);
    assert.equal(tooShort.code, 1);
    assert.equal(
      tooShort.stderr,
      'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes\n',
    );
  });

  it('verifies the token against the served JWKS with node:crypto, reachable by the account itself', async () => {
    const configuration = await call(fb, 'GET', '/.well-known/openid-configuration', token);
    assert.equal(configuration.status, 200);
    assert.equal(configuration.type, 'application/json');
    assert.deepEqual(configuration.body, {
      issuer: ISSUER,
      jwks_uri: `${fb.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await call(fb, 'GET', '/openid/v1/jwks', token);
    assert.equal(jwks.status, 200);
    assert.equal(jwks.type, 'application/jwk-set+json');
    const [jwk] = jwks.body.keys as (JsonWebKey & { kid: string })[];
    assert.deepEqual(Object.keys(jwk!), ['use', 'kty', 'kid', 'alg', 'n', 'e']);
    const key = createPublicKey({ key: jwk!, format: 'jwk' });
    const [head, payload, signature] = token.split('.') as [string, string, string];
    assert.equal(verify('sha256', Buffer.from(`${head}.${payload}`), key, Buffer.from(signature, 'base64url')), true);
    assert.equal(JSON.parse(Buffer.from(head, 'base64url').toString('utf8')).kid, jwk!.kid);
    // The kid is the apiserver's: base64url of the SHA-256 of the public key's DER.
    const { createHash } = await import('node:crypto');
    assert.equal(
      jwk!.kid,
      createHash('sha256')
        .update(key.export({ type: 'spki', format: 'der' }))
        .digest('base64url'),
    );
  });

  it('kubectl acts as the ServiceAccount with its token: whoami, and RBAC refusals in its name', async () => {
    const sa = await Kubectl.overHttps(fb.server, token);
    clients.push(sa);
    const whoami = await sa.run(['auth', 'whoami']);
    assert.equal(whoami.code, 0, whoami.stderr);
    const claims = claimsOf(token);
    const kubernetes = claims['kubernetes.io'] as { serviceaccount: { uid: string } };
    assert.equal(
      whoami.stdout,
      table([
        ['ATTRIBUTE', 'VALUE'],
        ['Username', 'system:serviceaccount:team-a:ci'],
        ['UID', kubernetes.serviceaccount.uid],
        ['Groups', '[system:serviceaccounts system:serviceaccounts:team-a system:authenticated]'],
        ['Extra: authentication.kubernetes.io/credential-id', `[JTI=${String(claims['jti'])}]`],
      ]),
    );
    const refused = await sa.run(['get', 'sa', '-n', 'team-a']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'Error from server (Forbidden): serviceaccounts is forbidden: User "system:serviceaccount:team-a:ci" cannot list resource "serviceaccounts" in API group "" in the namespace "team-a"\n',
    );
    // Bound by a ClusterRoleBinding to the account, it may list.
    const bound = await admin.run(['create', 'clusterrolebinding', 'ci-view', '--clusterrole=view', '--serviceaccount=team-a:ci']);
    assert.equal(bound.code, 0, bound.stderr);
    const listed = await sa.run(['get', 'sa', '-n', 'team-a', '-o', 'name']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, 'serviceaccount/ci\nserviceaccount/default\n');
  });

  it('kubectl drops --token over plain http (client-go sends credentials over TLS only): the request is anonymous', async () => {
    const bare = new Kubectl(fb.url, ADMIN);
    clients.push(bare);
    writeFileSync(
      join(bare.dir, 'bare'),
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: c',
        '  cluster:',
        `    server: ${fb.url}`,
        'contexts:',
        '- name: c',
        '  context:',
        '    cluster: c',
        'current-context: c',
        '',
      ].join('\n'),
    );
    const result = await bare.run(['--kubeconfig', join(bare.dir, 'bare'), '--token', token, 'auth', 'whoami']);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'error: You must be logged in to the server (Unauthorized)\n');
  });

  it('@kubernetes/client-node uses the token as a bearer token', async () => {
    const client = kubeConfigFor(fb.url, token).makeApiClient(k8s.AuthenticationV1Api);
    const self = await client.createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(self.status?.userInfo?.username, 'system:serviceaccount:team-a:ci');
    assert.deepEqual(self.status?.userInfo?.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
    const core = kubeConfigFor(fb.url, token).makeApiClient(k8s.CoreV1Api);
    const accounts = await core.listNamespacedServiceAccount({ namespace: 'team-a' });
    assert.deepEqual(
      accounts.items.map((item) => item.metadata?.name),
      ['ci', 'default'],
    );
  });

  it('answers TokenReview for a valid token, the admin token, another audience and a foreign one', async () => {
    const reviews = kubeConfigFor(fb.url, ADMIN).makeApiClient(k8s.AuthenticationV1Api);
    const valid = await reviews.createTokenReview({ body: { spec: { token } } as k8s.V1TokenReview });
    assert.equal(valid.status?.authenticated, true);
    assert.equal(valid.status?.user?.username, 'system:serviceaccount:team-a:ci');
    assert.deepEqual(valid.status?.audiences, [ISSUER]);
    const adminReview = await call(fb, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', ADMIN, review(ADMIN));
    assert.equal(adminReview.status, 201);
    assert.deepEqual(adminReview.body.status, {
      authenticated: true,
      user: { username: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
      audiences: [ISSUER],
    });
    const elsewhere = await call(fb, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', ADMIN, review(token, ['vault']));
    assert.deepEqual(elsewhere.body.status, {
      user: {},
      error: `token audiences ["${ISSUER}"] is invalid for the target audiences ["vault"]`,
    });
    // The same claims signed by another key (as another cluster would): refused by key id.
    const { generateKeyPairSync, sign, createHash } = await import('node:crypto');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
    const head = Buffer.from(JSON.stringify({ alg: 'RS256', kid })).toString('base64url');
    const body = token.split('.')[1]!;
    const foreign = `${head}.${body}.${sign('sha256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url')}`;
    const foreignReview = await call(fb, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', ADMIN, review(foreign));
    assert.deepEqual(foreignReview.body.status, { user: {}, error: 'invalid signature, no keys found' });
    const unknown = await call(fb, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', ADMIN, review('nobody-issued-this'));
    assert.deepEqual(unknown.body.status, { user: {}, error: 'invalid bearer token' });
    const unauthorized = await call(fb, 'GET', '/api/v1/namespaces', foreign);
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(unauthorized.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  it('expires the token on fogbank clock (one minute of leeway), then answers 401 and the review error', async () => {
    fb.clock.freeze();
    const exp = claimsOf(token)['exp'] as number;
    fb.clock.set(new Date((exp + 60) * 1000));
    assert.equal((await call(fb, 'GET', '/api/v1/namespaces/team-a/serviceaccounts', token)).status, 200, 'still valid within the leeway');
    await fb.clock.advance('1s');
    const expired = await call(fb, 'GET', '/api/v1/namespaces/team-a/serviceaccounts', token);
    assert.equal(expired.status, 401);
    assert.equal(expired.body.message, 'Unauthorized');
    const sa = clients[0]!;
    const whoami = await sa.run(['auth', 'whoami']);
    assert.equal(whoami.code, 1);
    assert.equal(whoami.stderr, 'error: You must be logged in to the server (Unauthorized)\n');
    const reviewed = await call(fb, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', ADMIN, review(token));
    assert.deepEqual(reviewed.body.status, { user: {}, error: 'service account token has expired' });
    fb.clock.unfreeze();
  });

  it('stops accepting tokens of a deleted account, and the controller makes a new default one', async () => {
    const fresh = (await admin.run(['create', 'token', 'default', '-n', 'team-a'])).stdout;
    assert.equal((await call(fb, 'GET', '/openid/v1/jwks', fresh)).status, 200);
    const deleted = await admin.run(['delete', 'sa', 'default', '-n', 'team-a']);
    assert.equal(deleted.stdout, 'serviceaccount "default" deleted\n');
    const oldUid = (claimsOf(fresh)['kubernetes.io'] as { serviceaccount: { uid: string } }).serviceaccount.uid;
    let newUid = '';
    for (let attempt = 0; attempt < 100 && newUid === ''; attempt++) {
      const read = await admin.run(['get', 'sa', 'default', '-n', 'team-a', '-o', 'jsonpath={.metadata.uid}']);
      if (read.code === 0) newUid = read.stdout;
    }
    assert.notEqual(newUid, '');
    assert.notEqual(newUid, oldUid);
    assert.equal((await call(fb, 'GET', '/openid/v1/jwks', fresh)).status, 401);
    const reviewed = await call(fb, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', ADMIN, review(fresh));
    assert.deepEqual(reviewed.body.status, { user: {}, error: `service account UID (${newUid}) does not match claim (${oldUid})` });
  });
});

describe('the signing key in the data directory (SQLite)', () => {
  it('is made on first need, kept with mode 0600, and signs again after a restart', async () => {
    const dir = tempDir('sa-key');
    try {
      // The admin token is the one kept in the data directory (start() with both dataDir and adminToken has no token file to hand out).
      const kidOf = async (fb: Fogbank): Promise<string> => {
        const jwks = await call(fb, 'GET', '/openid/v1/jwks', fb.adminToken);
        return (jwks.body.keys as { kid: string }[])[0]!.kid;
      };
      const first = await start({ dataDir: dir });
      const issued = await call(first, 'POST', '/api/v1/namespaces/default/serviceaccounts/default/token', first.adminToken, { spec: {} });
      const kid = await kidOf(first);
      await first.stop();
      assert.equal(statSync(join(dir, 'service-account.key')).mode & 0o777, 0o600);
      const second = await start({ dataDir: dir });
      try {
        assert.equal(await kidOf(second), kid);
        const token = issued.body.status.token as string;
        assert.equal((await call(second, 'GET', '/openid/v1/jwks', token)).status, 200, 'a token from before the restart still works');
      } finally {
        await second.stop();
      }
    } finally {
      removeTempDir(dir);
    }
  });
});
