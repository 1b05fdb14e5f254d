// The cluster API over HTTPS on fogbank's one port, with the kubeconfig fogbank writes: kubectl
// with the admin token (the current context) and with the admin's client certificate (kind-style
// context), a client certificate signed by fogbank's CA for another user (CN = user, O = groups),
// a foreign one refused with the apiserver's 401, a CA the client does not trust refused by the
// client, @kubernetes/client-node, Debian's python3-kubernetes and ruby-kubeclient over HTTPS, and
// the plain-HTTP context still working.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuthenticationV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { type CertificateAndKey, issueCa, issueClient } from '../../src/core/tls/certificates.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { clientPath, skipUnless } from '../harness/clients.ts';
import { Kubectl } from '../harness/kubectl.ts';
import { REPO } from '../harness/paths.ts';
import { spawnOwned, withTimeout } from '../harness/process.ts';

const ADMIN = 'cluster-tls-admin';
// As the apiserver writes it (json.Encoder): one line and its newline.
const UNAUTHORIZED_BODY = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n';

/** whoamiTable is `kubectl auth whoami`'s table: attribute names padded to the longest plus three spaces. */
function whoamiTable(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max('ATTRIBUTE'.length, ...rows.map(([name]) => name.length)) + 3;
  return [['ATTRIBUTE', 'VALUE'] as const, ...rows].map(([name, value]) => `${name.padEnd(width)}${value}\n`).join('');
}

/** credentialId is the apiserver's extra value for a client certificate: the SHA-256 of its DER. */
function credentialId(certificatePem: string): string {
  return `X509SHA256=${createHash('sha256').update(new X509Certificate(certificatePem).raw).digest('hex')}`;
}

/** kubeconfigFor is a kind-style kubeconfig: one HTTPS cluster trusting `ca`, one client-certificate user. */
function kubeconfigFor(server: string, ca: string, client: CertificateAndKey): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: c',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(ca)}`,
    'users:',
    '- name: u',
    '  user:',
    `    client-certificate-data: ${b64(client.certificate)}`,
    `    client-key-data: ${b64(client.key)}`,
    'contexts:',
    '- name: c',
    '  context:',
    '    cluster: c',
    '    user: u',
    'current-context: c',
    '',
  ].join('\n');
}

/** rawGet sends one HTTPS GET trusting `ca`, with a client certificate and headers as given. */
function rawGet(url: string, ca: string, client?: CertificateAndKey, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpsRequest(url, { ca, headers, agent: false, ...(client === undefined ? {} : { cert: client.certificate, key: client.key }) }, (response) => {
      let body = '';
      response.on('data', (data: Buffer) => (body += data.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the cluster API over HTTPS with the kubeconfig fogbank writes', { skip: skipUnless('kubectl') }, () => {
  let server: RunningFogbank;
  let kubectl: Kubectl;
  let ca: CertificateAndKey;
  let admin: CertificateAndKey;
  let foreign: CertificateAndKey;
  const made: Kubectl[] = [];
  const withKubeconfig = (text: string): Kubectl => {
    const client = new Kubectl(server.url, ADMIN, text);
    made.push(client);
    return client;
  };

  before(async () => {
    server = await startFogbank({ adminToken: ADMIN });
    kubectl = withKubeconfig(readFileSync(server.kubeconfigFile!, 'utf8'));
    const tls = join(server.dataDir!, 'tls');
    ca = { certificate: readFileSync(join(tls, 'ca.crt'), 'utf8'), key: readFileSync(join(tls, 'ca.key'), 'utf8') };
    admin = { certificate: readFileSync(join(tls, 'admin.crt'), 'utf8'), key: readFileSync(join(tls, 'admin.key'), 'utf8') };
    const foreignCa = await issueCa({ now: Date.now(), serial: new Uint8Array(16).fill(9) }, { commonName: 'not-fogbank' });
    foreign = await issueClient(
      foreignCa,
      { commonName: 'mallory', organizations: ['system:masters'] },
      { now: Date.now(), serial: new Uint8Array(16).fill(8) },
    );
  });
  after(async () => {
    for (const client of made) client.cleanup();
    await server.close();
  });

  it('makes HTTPS with the admin token the current context', async () => {
    const view = await kubectl.run(['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server} {.users[0].name}']);
    assert.equal(view.stdout, `${server.httpsUrl} fogbank-admin`);
    assert.equal(server.httpsUrl, server.url.replace('http:', 'https:'));
    const contexts = await kubectl.run(['config', 'get-contexts', '-o', 'name']);
    assert.equal(contexts.stdout, 'fogbank\nfogbank-cert\nfogbank-http\n');
  });

  it('lists ClusterRoles and answers whoami over HTTPS with the token', async () => {
    const roles = await kubectl.run(['get', 'clusterroles', '-o', 'name']);
    assert.equal(roles.code, 0, roles.stderr);
    assert.match(roles.stdout, /^clusterrole\.rbac\.authorization\.k8s\.io\/cluster-admin$/m);
    const whoami = await kubectl.run(['auth', 'whoami']);
    assert.equal(whoami.stderr, '');
    assert.equal(
      whoami.stdout,
      whoamiTable([
        ['Username', 'system:admin'],
        ['Groups', '[system:masters system:authenticated]'],
      ]),
    );
  });

  it("authenticates the admin's client certificate (kind-style context) as CN kubernetes-admin in O system:masters", async () => {
    const roles = await kubectl.run(['--context', 'fogbank-cert', 'get', 'clusterroles', 'cluster-admin', '-o', 'name']);
    assert.equal(roles.stdout, 'clusterrole.rbac.authorization.k8s.io/cluster-admin\n', roles.stderr);
    const whoami = await kubectl.run(['--context', 'fogbank-cert', 'auth', 'whoami']);
    assert.equal(whoami.stderr, '');
    assert.equal(
      whoami.stdout,
      whoamiTable([
        ['Username', 'kubernetes-admin'],
        ['Groups', '[system:masters system:authenticated]'],
        ['Extra: authentication.kubernetes.io/credential-id', `[${credentialId(admin.certificate)}]`],
      ]),
    );
  });

  it("reads another user's certificate signed by fogbank's CA: CN the user, each O a group; RBAC then decides", async () => {
    const alice = await issueClient(ca, { commonName: 'alice', organizations: ['devs', 'qa'] }, { now: Date.now(), serial: new Uint8Array(16).fill(7) });
    const client = withKubeconfig(kubeconfigFor(server.httpsUrl!, ca.certificate, alice));
    const whoami = await client.run(['auth', 'whoami']);
    assert.equal(
      whoami.stdout,
      whoamiTable([
        ['Username', 'alice'],
        ['Groups', '[devs qa system:authenticated]'],
        ['Extra: authentication.kubernetes.io/credential-id', `[${credentialId(alice.certificate)}]`],
      ]),
      whoami.stderr,
    );
    const roles = await client.run(['get', 'clusterroles']);
    assert.equal(
      roles.stderr,
      'Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io is forbidden: User "alice" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope\n',
    );
  });

  it("refuses a client certificate fogbank's CA did not sign with the apiserver's 401", async () => {
    const client = withKubeconfig(kubeconfigFor(server.httpsUrl!, ca.certificate, foreign));
    const raw = await client.run(['get', '--raw', '/api/v1/namespaces']);
    assert.equal(raw.code, 1);
    assert.equal(raw.stderr, 'error: You must be logged in to the server (Unauthorized)\n');
    // Through discovery kubectl words the same 401 as client-go's discovery error, as against a real cluster.
    const listed = await client.run(['get', 'namespaces']);
    assert.equal(listed.code, 1);
    assert.equal(listed.stderr.split('\n').at(-2), 'error: You must be logged in to the server (the server has asked for the client to provide credentials)');
    // On the wire: the Status, even on a path anyone may read, as the apiserver answers a failed authenticator.
    for (const path of ['/api/v1/namespaces', '/version']) {
      assert.deepEqual(await rawGet(`${server.httpsUrl}${path}`, ca.certificate, foreign), { status: 401, body: UNAUTHORIZED_BODY }, path);
    }
    // A valid token beside it still authenticates, as the apiserver's token authenticator runs after the x509 one.
    const withToken = await rawGet(`${server.httpsUrl}/api/v1/namespaces/default`, ca.certificate, foreign, { authorization: `Bearer ${ADMIN}` });
    assert.equal(withToken.status, 200);
  });

  it('is refused by a client that does not trust the CA', async () => {
    const foreignTrust = withKubeconfig(
      kubeconfigFor(server.httpsUrl!, (await issueCa({ now: Date.now(), serial: new Uint8Array(16).fill(6) })).certificate, admin),
    );
    const result = await foreignTrust.run(['get', '--raw', '/api/v1/namespaces']);
    assert.equal(result.code, 1);
    // Both CAs are called fogbank-ca: Go names the one it tried.
    assert.equal(
      result.stderr,
      'Unable to connect to the server: tls: failed to verify certificate: x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "fogbank-ca")\n',
    );
  });

  it('takes a ServiceAccount token from `kubectl create token` as `kubectl --token` over HTTPS', async () => {
    const created = await kubectl.run(['create', 'token', 'default', '-n', 'default']);
    assert.equal(created.code, 0, created.stderr);
    const whoami = await kubectl.run([
      '--token',
      created.stdout.trim(),
      'auth',
      'whoami',
      '-o',
      'jsonpath={.status.userInfo.username} {.status.userInfo.groups}',
    ]);
    assert.equal(
      whoami.stdout,
      'system:serviceaccount:default:default ["system:serviceaccounts","system:serviceaccounts:default","system:authenticated"]',
      whoami.stderr,
    );
  });

  it('still serves plain HTTP on the same port: the kubeconfig keeps its Basic-in-URL context', async () => {
    const whoami = await kubectl.run(['--context', 'fogbank-http', 'auth', 'whoami']);
    assert.equal(
      whoami.stdout,
      whoamiTable([
        ['Username', 'system:admin'],
        ['Groups', '[system:masters system:authenticated]'],
      ]),
      whoami.stderr,
    );
    const response = await fetch(`${server.url}/api/v1/namespaces/default`, { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { metadata: { name: string } }).metadata.name, 'default');
  });

  it("answers the other families over HTTPS too, their links in the request's scheme", async () => {
    const discovery = await rawGet(`${server.httpsUrl}/discovery/v1/apis/compute/v1/rest`, ca.certificate);
    assert.equal(discovery.status, 200);
    assert.equal((JSON.parse(discovery.body) as { rootUrl: string }).rootUrl, `${server.httpsUrl}/`);
    const templates = await rawGet(`${server.httpsUrl}/compute/v1/projects/p/global/instanceTemplates`, ca.certificate, undefined, {
      authorization: `Bearer ${ADMIN}`,
    });
    assert.equal(templates.status, 200, templates.body);
    assert.equal((JSON.parse(templates.body) as { selfLink: string }).selfLink, `${server.httpsUrl}/compute/v1/projects/p/global/instanceTemplates`);
  });

  it('serves @kubernetes/client-node over HTTPS with the CA from the kubeconfig, by token and by client certificate', async () => {
    const config = new KubeConfig();
    config.loadFromFile(server.kubeconfigFile!);
    assert.equal(config.getCurrentCluster()?.server, server.httpsUrl);
    const role = await config.makeApiClient(RbacAuthorizationV1Api).readClusterRole({ name: 'cluster-admin' });
    assert.equal(role.metadata?.name, 'cluster-admin');
    config.setCurrentContext('fogbank-cert');
    const review = await config
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.deepEqual(
      { ...review.status?.userInfo },
      {
        username: 'kubernetes-admin',
        groups: ['system:masters', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [credentialId(admin.certificate)] },
      },
    );
  });

  for (const context of ['fogbank', 'fogbank-cert']) {
    it(`serves Debian's python3-kubernetes over HTTPS (kubeconfig context ${context})`, { skip: skipUnless('python3-kubernetes') }, async () => {
      const python = spawnOwned(clientPath('python3-kubernetes'), [join(REPO, 'test/fixtures/clients/kubernetes-tls.py'), server.kubeconfigFile!, context], {
        env: { PATH: process.env['PATH'], HOME: server.dataDir!, PYTHONNOUSERSITE: '1' },
      });
      const exit = await withTimeout(python.exited, 120_000, `the Python client to finish; stderr:\n${python.stderr()}`);
      assert.equal(exit, 0, python.stderr());
      assert.deepEqual(JSON.parse(python.lines.at(-1) ?? 'null'), { host: server.httpsUrl, role: 'cluster-admin', listed: true });
    });

    it(`serves ruby-kubeclient over HTTPS (kubeconfig context ${context})`, { skip: skipUnless('ruby-kubeclient') }, async () => {
      const ruby = spawnOwned(clientPath('ruby-kubeclient'), [join(REPO, 'test/fixtures/clients/kubeclient-tls.rb'), server.kubeconfigFile!, context]);
      const exit = await withTimeout(ruby.exited, 60_000, `the Ruby client to finish; stderr:\n${ruby.stderr()}`);
      assert.equal(exit, 0, ruby.stderr());
      assert.deepEqual(ruby.lines, [`endpoint ${server.httpsUrl}`, 'role cluster-admin', 'listed true']);
    });
  }
});
