// Ready means ready (issue 36): on a new data directory, the moment `fogbank start`'s ready line is
// read, everything its banner announces exists — the admin token file, the CA and the HTTPS
// listener's certificate, the kubeconfig with all its contexts — and the kubeconfig's current
// context works over HTTPS, trusting only the CA it carries.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { tempDir } from '../../src/testing/temp.ts';
import { type FogbankProcess, startFogbankProcess } from '../harness/process.ts';

interface Kubeconfig {
  readonly clusters: { name: string; cluster: { server: string; 'certificate-authority-data'?: string } }[];
  readonly users: { name: string; user: { token?: string } }[];
  readonly contexts: { name: string; context: { cluster: string; user: string } }[];
  readonly 'current-context': string;
}

/** getOverHttps is one GET with a bearer token, trusting only `ca`. */
function getOverHttps(url: string, token: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, ca }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('fogbank start on a new data directory', () => {
  const started: FogbankProcess[] = [];
  after(async () => {
    for (const proc of started) await proc.stop('SIGTERM');
  });

  it('has every file the banner announces when the ready line is read, and the current context works over HTTPS', async () => {
    const dataDir = join(tempDir('cli-ready'), '.fogbank');
    const proc = await startFogbankProcess(['--port', '0', '--data-dir', dataDir]);
    started.push(proc);
    // Looked at first, before anything else can wait: the files are there at the ready line.
    const files = ['admin-token', 'kubeconfig', 'tls/ca.crt', 'tls/serving.crt', 'tls/serving.key', 'tls/admin.crt', 'tls/admin.key'];
    const present = files.filter((file) => existsSync(join(dataDir, file)));
    const kubeconfigText = readFileSync(join(dataDir, 'kubeconfig'), 'utf8');
    assert.deepEqual(present, files);

    const https = proc.url.replace(/^http:/, 'https:');
    assert.match(proc.lines[0]!, new RegExp(`listening on ${proc.url} and ${https} `));
    const tokenFile = join(dataDir, 'admin-token');
    assert.ok(proc.lines.includes(`  admin token: ${tokenFile}`), proc.lines.join('\n'));

    const config = parse(kubeconfigText) as Kubeconfig;
    assert.deepEqual(
      config.contexts.map((context) => context.name),
      ['fogbank', 'fogbank-cert', 'fogbank-http'],
    );
    const current = config.contexts.find((context) => context.name === config['current-context'])!.context;
    const cluster = config.clusters.find((each) => each.name === current.cluster)!.cluster;
    const token = config.users.find((each) => each.name === current.user)!.user.token!;
    assert.equal(cluster.server, https);
    const ca = Buffer.from(cluster['certificate-authority-data']!, 'base64').toString('utf8');
    assert.equal(ca, readFileSync(join(dataDir, 'tls', 'ca.crt'), 'utf8'));
    assert.equal(token, readFileSync(tokenFile, 'utf8').trim());

    const answer = await getOverHttps(`${cluster.server}/api/v1/namespaces/default`, token, ca);
    assert.equal(answer.status, 200, answer.body);
    assert.equal((JSON.parse(answer.body) as { metadata: { name: string } }).metadata.name, 'default');
    assert.equal(await proc.stop('SIGTERM'), 0);
  });
});
