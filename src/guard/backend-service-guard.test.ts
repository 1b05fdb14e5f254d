import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../testing/fogbank.ts';
import { type RunningGuard, startGuardProcess } from './run-guard.ts';

const BACKEND = 'projects/p/global/backendServices/web';

/** LogLine is the part of a decision line these tests read. */
interface LogLine {
  readonly resource?: { readonly type: string; readonly labels: Readonly<Record<string, string>> };
  readonly jsonPayload: { readonly statusDetails: string; readonly enforcedSecurityPolicy?: { readonly name: string } };
}

let fb: RunningFogbank;
let upstream: Server;
let guard: RunningGuard;
const stdout: string[] = [];
const stderr: string[] = [];

async function compute(method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${fb.url}/compute/v1/projects/p/${path}`, {
    method,
    headers: { authorization: `Bearer ${fb.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  assert.equal(response.status, 200, `${method} ${path}: ${text}`);
}

async function status(path: string): Promise<number> {
  const response = await fetch(`${guard.url}${path}`);
  await response.text();
  return response.status;
}

/** eventually polls `probe` until it holds (bounded: a broken follow fails, never hangs). */
async function eventually(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`never happened: ${what}`);
}

describe('fogbank guard --backend-service: enforces the policy attached to the backend service, following the attachment', () => {
  before(async () => {
    fb = await startFogbank({ operations: 'instant' });
    upstream = createServer((_request, response) => response.end('upstream'));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await compute('POST', 'global/securityPolicies', { name: 'admin-block' });
    await compute('POST', 'global/securityPolicies/admin-block/addRule', {
      priority: 1000,
      action: 'deny(403)',
      match: { expr: { expression: "request.path.startsWith('/admin')" } },
    });
    await compute('POST', 'global/securityPolicies', { name: 'api-block' });
    await compute('POST', 'global/securityPolicies/api-block/addRule', {
      priority: 1000,
      action: 'deny(404)',
      match: { expr: { expression: "request.path.startsWith('/api')" } },
    });
    await compute('POST', 'global/backendServices', { name: 'web' });
    guard = await startGuardProcess(
      {
        policy: BACKEND,
        backendService: BACKEND,
        upstream: new URL(`http://127.0.0.1:${port}`),
        host: '127.0.0.1',
        port: 0,
        trustedProxies: 0,
        url: fb.url,
        token: fb.adminToken,
        wafUnknown: 'no-match',
      },
      { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
    );
  });
  after(async () => {
    await guard.close();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
    await fb.close();
  });

  it('forwards everything while no policy is attached, with no enforcedSecurityPolicy in the log', async () => {
    assert.equal(await status('/admin'), 200);
    assert.match(stderr.join(''), /guard: projects\/p\/global\/backendServices\/web has no security policy attached; forwarding every request/);
    await eventually('the log line', async () => stdout.join('').includes('"requestUrl"'));
    const line = JSON.parse(
      stdout
        .join('')
        .split('\n')
        .find((l) => l.includes('"/admin"') || l.includes('/admin'))!,
    ) as LogLine;
    assert.deepEqual(line.resource, { type: 'http_load_balancer', labels: { project_id: 'p', backend_service_name: 'web', zone: 'global' } });
    assert.equal(line.jsonPayload.enforcedSecurityPolicy, undefined);
    assert.equal(line.jsonPayload.statusDetails, 'response_sent_by_backend');
  });

  it('enforces the policy once setSecurityPolicy attaches it, and names it in the log', async () => {
    await compute('POST', 'global/backendServices/web/setSecurityPolicy', { securityPolicy: 'global/securityPolicies/admin-block' });
    await eventually('the attached policy denies /admin', async () => (await status('/admin')) === 403);
    assert.equal(await status('/api/x'), 200);
    assert.match(
      stderr.join(''),
      /guard: enforcing projects\/p\/global\/securityPolicies\/admin-block attached to projects\/p\/global\/backendServices\/web \(2 rules/,
    );
    await eventually('the deny line', async () => stdout.join('').includes('"DENY"'));
    const deny = JSON.parse(
      stdout
        .join('')
        .split('\n')
        .find((l) => l.includes('"DENY"'))!,
    ) as LogLine;
    assert.equal(deny.jsonPayload.enforcedSecurityPolicy?.name, 'admin-block');
    assert.equal(deny.resource?.labels['backend_service_name'], 'web');
  });

  it('follows a rule change of the attached policy', async () => {
    await compute('POST', 'global/securityPolicies/admin-block/patchRule?priority=1000', { action: 'deny(502)' });
    await eventually('the changed rule', async () => (await status('/admin')) === 502);
  });

  it('switches when another policy is attached by patch, and stops enforcing when detached', async () => {
    await compute('PATCH', 'global/backendServices/web', { securityPolicy: 'projects/p/global/securityPolicies/api-block' });
    await eventually('the new policy', async () => (await status('/api/x')) === 404);
    assert.equal(await status('/admin'), 200);
    // A change to the policy no longer attached is not followed (its changes reach nobody).
    await compute('POST', 'global/securityPolicies/admin-block/patchRule?priority=1000', { action: 'deny(403)' });
    assert.equal(await status('/admin'), 200);
    await compute('POST', 'global/backendServices/web/setSecurityPolicy', {});
    await eventually('detached', async () => (await status('/api/x')) === 200);
  });

  it('answers 502 while the backend service does not exist', async () => {
    await compute('DELETE', 'global/backendServices/web');
    await eventually('deleted', async () => (await status('/')) === 502);
    assert.match(stderr.join(''), /guard: the backend service projects\/p\/global\/backendServices\/web does not exist; answering 502 until it does/);
    await compute('POST', 'global/backendServices', { name: 'web', securityPolicy: 'global/securityPolicies/api-block' });
    await eventually('back, with its policy', async () => (await status('/api/x')) === 404);
  });
});
