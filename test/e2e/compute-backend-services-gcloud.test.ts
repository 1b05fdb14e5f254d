// The real gcloud creates backend services and attaches security policies to them
// (`backend-services update --security-policy`, `--edge-security-policy`), the policy's delete is
// refused while attached, and `fogbank guard --backend-service` (the built executable) enforces
// whichever policy is attached now, changing its answers as gcloud changes the attachment.
// Outcomes are asserted, never timings: a change is observed by polling the guard.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { Gcloud } from '../harness/gcloud.ts';
import { REPO } from '../harness/paths.ts';
import { type FogbankProcess, type Spawned, spawnFogbank, startFogbankProcess } from '../harness/process.ts';

const TOKEN = 'e2e-backend-services';
const BUNDLE = join(REPO, 'dist/fogbank.mjs');

describe('gcloud compute backend-services with security policies, and the guard following the attachment', { skip: skipUnless('gcloud') }, () => {
  let server: FogbankProcess;
  let gcloud: Gcloud;
  let upstream: Server;
  let upstreamUrl: string;
  let guard: Spawned | undefined;
  let guardUrl = '';

  async function ok(...args: string[]): Promise<string> {
    const result = await gcloud.run(...args);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout + result.stderr;
  }

  async function status(path: string): Promise<number> {
    const response = await fetch(`${guardUrl}${path}`);
    await response.text();
    return response.status;
  }

  async function eventually(what: string, probe: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 400; i++) {
      if (await probe()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.fail(`never happened: ${what}`);
  }

  before(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO, timeout: 120_000 });
    server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn'], {
      entry: BUNDLE,
    });
    gcloud = new Gcloud(server.url, TOKEN);
    upstream = createServer((_request, response) => response.end('upstream'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  after(async () => {
    await guard?.stop('SIGTERM');
    gcloud?.dispose();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await server?.stop('SIGTERM');
  });

  it('creates two policies with deny rules and a backend service', async () => {
    await ok('compute', 'security-policies', 'create', 'admin-block');
    await ok(
      'compute',
      'security-policies',
      'rules',
      'create',
      '1000',
      '--security-policy=admin-block',
      '--action=deny-403',
      "--expression=request.path.startsWith('/admin')",
    );
    await ok('compute', 'security-policies', 'create', 'api-block');
    await ok(
      'compute',
      'security-policies',
      'rules',
      'create',
      '1000',
      '--security-policy=api-block',
      '--action=deny-404',
      "--expression=request.path.startsWith('/api')",
    );
    const created = await ok('compute', 'backend-services', 'create', 'web', '--global', '--protocol=HTTP');
    assert.match(created, new RegExp(`Created \\[${server.url}/compute/v1/projects/p/global/backendServices/web\\]`));
  });

  it('the guard with --backend-service forwards everything while nothing is attached', async () => {
    guard = spawnFogbank(
      ['guard', '--backend-service', 'projects/p/global/backendServices/web', '--upstream', upstreamUrl, '--port', '0', '--url', server.url, '--token', TOKEN],
      { entry: BUNDLE },
    );
    guardUrl = (await guard.waitForLine(/^guard listening on (http:\/\/\S+)$/))[1]!;
    assert.equal(await status('/admin'), 200);
  });

  it('backend-services update --security-policy attaches a policy: the guard denies what it denies', async () => {
    const updated = await ok('compute', 'backend-services', 'update', 'web', '--global', '--security-policy=admin-block');
    assert.match(updated, /Updated \[.*\/global\/backendServices\/web\]/);
    const described = await ok('compute', 'backend-services', 'describe', 'web', '--global', '--format=value(securityPolicy)');
    assert.equal(described.trim(), `${server.url}/compute/v1/projects/p/global/securityPolicies/admin-block`);
    await eventually('the attached policy denies /admin', async () => (await status('/admin')) === 403);
    assert.equal(await status('/api/x'), 200);
    // The log line names the backend service and the enforcing policy as Cloud Armor's does.
    const line = await guard!.waitForLine(/^\{.*"status":403.*"jsonPayload".*\}$/);
    const entry = JSON.parse(line[0]) as { resource: { labels: Record<string, string> }; jsonPayload: { enforcedSecurityPolicy: { name: string } } };
    assert.equal(entry.resource.labels['backend_service_name'], 'web');
    assert.equal(entry.jsonPayload.enforcedSecurityPolicy.name, 'admin-block');
  });

  it('the attached policy cannot be deleted; an edge policy attaches only as the edge policy', async () => {
    const refused = await gcloud.run('compute', 'security-policies', 'delete', 'admin-block', '--quiet');
    assert.notEqual(refused.code, 0);
    assert.match(
      refused.stderr,
      /The security_policy resource 'projects\/p\/global\/securityPolicies\/admin-block' is already being used by 'projects\/p\/global\/backendServices\/web'/,
    );
    await ok('compute', 'security-policies', 'create', 'edge', '--type=CLOUD_ARMOR_EDGE');
    const wrongSlot = await gcloud.run('compute', 'backend-services', 'update', 'web', '--global', '--security-policy=edge');
    assert.notEqual(wrongSlot.code, 0);
    assert.match(wrongSlot.stderr, /Security policy type CLOUD_ARMOR_EDGE can only be set as the edge security policy of a backend service/);
    await ok('compute', 'backend-services', 'update', 'web', '--global', '--edge-security-policy=edge');
  });

  it('changing the attachment changes the guard; detaching stops enforcing; then the policy can go', async () => {
    await ok('compute', 'backend-services', 'update', 'web', '--global', '--security-policy=api-block');
    await eventually('the new policy', async () => (await status('/api/x')) === 404);
    assert.equal(await status('/admin'), 200);
    await ok('compute', 'backend-services', 'update', 'web', '--global', '--security-policy=');
    await eventually('detached', async () => (await status('/api/x')) === 200);
    await ok('compute', 'security-policies', 'delete', 'admin-block', '--quiet');
  });
});
