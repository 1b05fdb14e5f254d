// `fogbank guard` (the built executable) in front of a small node:http upstream, enforcing
// security policies that the real gcloud creates and changes; and `fogbank policy test` on the
// same policy. Outcomes are asserted, never timings: a rule change is observed by polling the
// guard until its answer changes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { Gcloud } from '../harness/gcloud.ts';
import { REPO } from '../harness/paths.ts';
import { type FogbankProcess, type Spawned, spawnFogbank, startFogbankProcess } from '../harness/process.ts';
import { tempDir } from '../../src/testing/temp.ts';

const TOKEN = 'e2e-guard';
const BUNDLE = join(REPO, 'dist/fogbank.mjs');
const REGIONAL = 'projects/p/regions/us-central1/securityPolicies/edge';
const GLOBAL = 'projects/p/global/securityPolicies/portal';
const DENY_403 = '<!doctype html><meta charset="utf-8"><meta name=viewport content="width=device-width, initial-scale=1"><title>403</title>403 Forbidden';

describe('fogbank guard enforcing gcloud-made policies', { skip: skipUnless('gcloud') }, () => {
  let server: FogbankProcess;
  let gcloud: Gcloud;
  let upstream: Server;
  let upstreamUrl: string;
  const guards: Spawned[] = [];

  /** startGuard runs the built `fogbank guard` and resolves with its address once it prints it. */
  async function startGuard(policy: string): Promise<{ url: string; process: Spawned }> {
    const spawned = spawnFogbank(['guard', '--policy', policy, '--upstream', upstreamUrl, '--port', '0', '--url', server.url, '--token', TOKEN], {
      entry: BUNDLE,
    });
    guards.push(spawned);
    const match = await spawned.waitForLine(/^guard listening on (http:\/\/\S+)$/);
    // The first line is the address, nothing before it.
    assert.equal(spawned.lines[0], match[0]);
    return { url: match[1]!, process: spawned };
  }

  async function rules(...args: string[]): Promise<void> {
    const result = await gcloud.run('compute', 'security-policies', 'rules', ...args);
    assert.equal(result.code, 0, result.stderr);
  }

  before(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO, timeout: 120_000 });
    server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn'], {
      entry: BUNDLE,
    });
    gcloud = new Gcloud(server.url, TOKEN);
    upstream = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ url: request.url, guarded: request.headers['x-guarded'] ?? null, forwardedFor: request.headers['x-forwarded-for'] }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  });
  after(async () => {
    for (const guard of guards) await guard.stop('SIGTERM');
    gcloud?.dispose();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await server?.stop('SIGTERM');
  });

  it('gcloud creates a regional policy with a deny rule and a throttle', async () => {
    const created = await gcloud.run('compute', 'security-policies', 'create', 'edge', '--region=us-central1');
    assert.equal(created.code, 0, created.stderr);
    const R = ['--security-policy=edge', '--region=us-central1'];
    await rules('create', '1000', ...R, '--action=deny-403', "--expression=request.path.startsWith('/admin')");
    await rules(
      'create',
      '2000',
      ...R,
      '--action=throttle',
      "--expression=request.path.startsWith('/api')",
      '--rate-limit-threshold-count=2',
      '--rate-limit-threshold-interval-sec=60',
      '--conform-action=allow',
      '--exceed-action=deny-429',
      '--enforce-on-key=HTTP-HEADER',
      '--enforce-on-key-name=X-API-Key',
    );
  });

  it('the guard answers 403, 429 and 200 as the regional rules say, and follows a rules update', async () => {
    const guard = await startGuard(REGIONAL);
    const admin = await fetch(`${guard.url}/admin/users`);
    assert.deepEqual([admin.status, await admin.text()], [403, DENY_403]);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${guard.url}/api/items`, { headers: { 'x-api-key': 'k1' } });
      await response.text();
      statuses.push(response.status);
    }
    assert.deepEqual(statuses, [200, 200, 429]);
    const home = await fetch(`${guard.url}/home?x=1`);
    assert.equal(home.status, 200);
    assert.deepEqual(await home.json(), { url: '/home?x=1', guarded: null, forwardedFor: '127.0.0.1' });

    await rules('update', '1000', '--security-policy=edge', '--region=us-central1', '--action=allow');
    let status = 403;
    for (let i = 0; i < 400 && status === 403; i++) {
      const response = await fetch(`${guard.url}/admin/users`);
      await response.text();
      status = response.status;
      if (status === 403) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(status, 200, 'the rules update reached the running guard');

    // Each decision is a request-log line carrying the rule's priority (the last one may still be on its way).
    await guard.process.waitForLine(/"requestUrl":"[^"]*\/admin\/users","status":200/);
    const decisions = guard.process.lines
      .slice(1)
      .map(
        (line) => JSON.parse(line) as { httpRequest: { requestUrl: string; status: number }; jsonPayload: { enforcedSecurityPolicy: Record<string, unknown> } },
      );
    const denied = decisions.find((entry) => entry.httpRequest.requestUrl.endsWith('/admin/users') && entry.httpRequest.status === 403)!;
    assert.deepEqual(denied.jsonPayload.enforcedSecurityPolicy, { name: 'edge', priority: 1000, configuredAction: 'DENY', outcome: 'DENY' });
    const throttled = decisions.find((entry) => entry.httpRequest.status === 429)!;
    assert.deepEqual(throttled.jsonPayload.enforcedSecurityPolicy, {
      name: 'edge',
      priority: 2000,
      configuredAction: 'THROTTLE',
      outcome: 'DENY',
      rateLimitAction: { key: 'k1', outcome: 'RATE_LIMIT_THRESHOLD_EXCEED' },
    });
    const allowed = decisions.findLast((entry) => entry.httpRequest.requestUrl.endsWith('/admin/users'))!;
    assert.deepEqual(
      [allowed.httpRequest.status, allowed.jsonPayload.enforcedSecurityPolicy['priority'], allowed.jsonPayload.enforcedSecurityPolicy['configuredAction']],
      [200, 1000, 'ALLOW'],
    );
  });

  it('a global policy redirects with 302 and adds its headers to what reaches the upstream', async () => {
    const created = await gcloud.run('compute', 'security-policies', 'create', 'portal');
    assert.equal(created.code, 0, created.stderr);
    await rules(
      'create',
      '500',
      '--security-policy=portal',
      '--action=redirect',
      '--redirect-type=external-302',
      '--redirect-target=https://login.example.com/',
      "--expression=request.path.startsWith('/login')",
    );
    await rules('create', '600', '--security-policy=portal', '--action=allow', '--src-ip-ranges=127.0.0.1/32', '--request-headers-to-add=X-Guarded=yes');
    const guard = await startGuard(GLOBAL);
    const login = await fetch(`${guard.url}/login`, { redirect: 'manual' });
    assert.deepEqual([login.status, login.headers.get('location')], [302, 'https://login.example.com/']);
    const page = await fetch(`${guard.url}/page`);
    assert.deepEqual(await page.json(), { url: '/page', guarded: 'yes', forwardedFor: '127.0.0.1' });
  });

  it('fogbank policy test prints the decision for a person, and the API’s JSON with --json', async () => {
    const run = async (...args: string[]): Promise<{ exit: unknown; stdout: string; stderr: string }> => {
      const spawned = spawnFogbank(['policy', 'test', '--policy', REGIONAL, '--url', server.url, '--token', TOKEN, ...args], { entry: BUNDLE });
      const exit = await spawned.exited;
      return { exit, stdout: spawned.lines.join('\n'), stderr: spawned.stderr() };
    };
    await rules('update', '1000', '--security-policy=edge', '--region=us-central1', '--action=deny-404');
    const got = await run('--request', 'GET https://example.com/admin', '--ip', '203.0.113.9', '--header', 'X-API-Key: k');
    assert.equal(got.exit, 0, got.stderr);
    const lines = got.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 4), [
      'GET https://example.com/admin from 203.0.113.9',
      '  outcome     DENY (DENY): answered 404',
      '  rule        1000  deny(404)',
      '  preview     none matched',
    ]);
    assert.match(lines[4]!, /^ {2}rules {7}1000 {7}matched /);
    assert.equal(lines.length, 5);
    const json = await run('--request', 'GET https://example.com/api/x', '--ip', '203.0.113.9', '--header', 'X-API-Key: other', '--json');
    assert.equal(json.exit, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as { results: { enforcedSecurityPolicy: unknown }[] };
    assert.deepEqual(answer.results[0]!.enforcedSecurityPolicy, {
      name: 'edge',
      priority: 2000,
      configuredAction: 'THROTTLE',
      outcome: 'ACCEPT',
      rateLimitAction: { key: 'other', outcome: 'RATE_LIMIT_THRESHOLD_CONFORM' },
    });
    const bad = await run('--request', 'GET https://example.com/', '--ip', '999.1.1.1');
    assert.deepEqual([bad.exit, bad.stderr], [2, "fogbank: --ip must be an IPv4 or IPv6 address, not '999.1.1.1' (see: fogbank policy --help)\n"]);
  });

  it('fogbank policy test --requests reads one request a line; the server’s refusal is one line and exit 2', async () => {
    const dir = tempDir('policy-test');
    const file = join(dir, 'requests.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ url: 'https://example.com/admin', sourceIp: '10.0.0.1' })}\n\n${JSON.stringify({ method: 'POST', url: 'https://example.com/home', sourceIp: '2001:db8::1' })}\n`,
    );
    const spawned = spawnFogbank(['policy', 'test', '--policy', REGIONAL, '--requests', file, '--url', server.url, '--token', TOKEN], { entry: BUNDLE });
    assert.equal(await spawned.exited, 0, spawned.stderr());
    const heads = spawned.lines.filter((line) => !line.startsWith(' ') && line !== '');
    assert.deepEqual(heads, ['GET https://example.com/admin from 10.0.0.1', 'POST https://example.com/home from 2001:db8::1']);
    assert.ok(spawned.lines.includes('  outcome     DENY (DENY): answered 404'), spawned.lines.join('\n'));
    assert.ok(spawned.lines.includes('  outcome     ACCEPT (ALLOW): forwarded to the backend'), spawned.lines.join('\n'));
    writeFileSync(file, `${JSON.stringify({ url: 'https://example.com/', sourceIp: '10.0.0.1', port: 80 })}\n`);
    const refused = spawnFogbank(['policy', 'test', '--policy', REGIONAL, '--requests', file, '--url', server.url, '--token', TOKEN], { entry: BUNDLE });
    assert.equal(await refused.exited, 2);
    assert.equal(
      refused.stderr(),
      'fogbank: "requests[0]" has unknown member "port": a request takes method, url, headers, sourceIp, regionCode, asn, tlsJa3Fingerprint, tlsJa4Fingerprint, sni, body, bodyBase64.\n',
    );
  });

  it('fogbank guard refuses bad flags with one line and exit 2', async () => {
    const cases: [string[], string][] = [
      [
        ['--upstream', upstreamUrl],
        'fogbank: --policy is required: projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME (see: fogbank guard --help)\n',
      ],
      [['--policy', REGIONAL], 'fogbank: --upstream is required: the URL to forward to, such as http://127.0.0.1:3000 (see: fogbank guard --help)\n'],
      [
        ['--policy', REGIONAL, '--upstream', 'https://x.example'],
        "fogbank: --upstream must be an http URL such as http://127.0.0.1:3000, not 'https://x.example' (see: fogbank guard --help)\n",
      ],
      [
        ['--policy', REGIONAL, '--upstream', upstreamUrl, '--port', '70000'],
        "fogbank: --port must be a number from 0 to 65535, not '70000' (see: fogbank guard --help)\n",
      ],
      [
        ['--policy', REGIONAL, '--upstream', upstreamUrl, '--trust-xff', 'x'],
        "fogbank: --trust-xff must be a number of proxies from 0 to 16, not 'x' (see: fogbank guard --help)\n",
      ],
      [
        ['--policy', REGIONAL, '--upstream', upstreamUrl, '--body-timeout', '0'],
        "fogbank: --body-timeout must be a number of seconds from 0.001 to 86400, not '0' (see: fogbank guard --help)\n",
      ],
      [
        ['--policy', REGIONAL, '--upstream', upstreamUrl, '--upstream-timeout', '1s'],
        "fogbank: --upstream-timeout must be a number of seconds from 0.001 to 86400, not '1s' (see: fogbank guard --help)\n",
      ],
      [
        ['--policy', REGIONAL, '--upstream', upstreamUrl, '--concurrency', '0'],
        "fogbank: --concurrency must be a number from 1 to 1000000, not '0' (see: fogbank guard --help)\n",
      ],
      [
        ['--policy', REGIONAL, '--upstream', upstreamUrl, '--queue', '-1'],
        "fogbank: --queue must be a number from 0 to 1000000, not '-1' (see: fogbank guard --help)\n",
      ],
    ];
    for (const [args, stderr] of cases) {
      const spawned = spawnFogbank(['guard', ...args, '--url', server.url, '--token', TOKEN], { entry: BUNDLE });
      assert.deepEqual([await spawned.exited, spawned.stderr()], [2, stderr], args.join(' '));
    }
  });
});
