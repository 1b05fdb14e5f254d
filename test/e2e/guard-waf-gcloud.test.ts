// Preconfigured WAF rules end to end (issue 39): the real gcloud creates a rule with
// evaluatePreconfiguredWaf and adds a WAF exclusion with `rules add-preconfig-waf-exclusion`; the
// built `fogbank guard` enforces it in front of a node:http upstream, the Core Rule Set deciding
// through libmodsecurity3; curl sends the traffic. Outcomes are asserted, never timings.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { skipUnless } from '../harness/clients.ts';
import { Gcloud } from '../harness/gcloud.ts';
import { REPO } from '../harness/paths.ts';
import { type FogbankProcess, type Spawned, spawnFogbank, startFogbankProcess } from '../harness/process.ts';

const run = promisify(execFile);
const TOKEN = 'e2e-guard-waf';
const BUNDLE = join(REPO, 'dist/fogbank.mjs');
const POLICY = 'projects/p/regions/us-central1/securityPolicies/waf';
const R = ['--security-policy=waf', '--region=us-central1'];
const SQLI_942100 = 'owasp-crs-v030301-id942100-sqli';

describe('fogbank guard enforcing gcloud-made preconfigured WAF rules', { skip: skipUnless('gcloud') }, () => {
  let server: FogbankProcess;
  let gcloud: Gcloud;
  let upstream: Server;
  let guard: Spawned;
  let guardUrl: string;
  const received: string[] = [];

  /** curl sends one request through the guard and answers its status and body. */
  async function curl(...args: string[]): Promise<{ status: number; body: string }> {
    const { stdout } = await run('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', ...args]);
    const at = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
  }

  async function gcloudOk(...args: string[]): Promise<string> {
    const result = await gcloud.run('compute', 'security-policies', ...args);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  }

  before(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO, timeout: 120_000 });
    server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn'], {
      entry: BUNDLE,
    });
    gcloud = new Gcloud(server.url, TOKEN);
    upstream = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push(`${request.method} ${request.url} ${Buffer.concat(chunks).toString()}`);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ url: request.url }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;

    await gcloudOk('create', 'waf', '--region=us-central1');
    await gcloudOk('rules', 'create', '1000', ...R, '--action=deny-403', "--expression=evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})");
    await gcloudOk(
      'rules',
      'add-preconfig-waf-exclusion',
      '1000',
      ...R,
      '--target-rule-set=sqli-v33-stable',
      `--target-rule-ids=${SQLI_942100}`,
      '--request-query-param-to-exclude=op=EQUALS,val=comment',
    );
    guard = spawnFogbank(['guard', '--policy', POLICY, '--upstream', upstreamUrl, '--port', '0', '--url', server.url, '--token', TOKEN], { entry: BUNDLE });
    guardUrl = (await guard.waitForLine(/^guard listening on (http:\/\/\S+)$/))[1]!;
  });
  after(async () => {
    await guard?.stop('SIGTERM');
    gcloud?.dispose();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await server?.stop('SIGTERM');
  });

  it('the guard had every WAF engine thread load the rules before it said it was listening (ready means ready)', async () => {
    // Written to stderr before the listening line went to stdout; the two pipes may be read in either order.
    const loaded = /^guard: the WAF engine's (\d+) threads loaded the policy's rules in \d+\.\d s$/m;
    for (let polls = 0; polls < 500 && !loaded.test(guard.stderr()); polls++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(Number(loaded.exec(guard.stderr())?.[1]) >= 1, guard.stderr());
  });

  it('the exclusion gcloud added is stored on the rule', async () => {
    // gcloud prints the described rule as a one-item list.
    const [described] = JSON.parse(await gcloudOk('rules', 'describe', '1000', ...R, '--format=json')) as Record<string, unknown>[];
    assert.deepEqual(described?.['preconfiguredWafConfig'], {
      exclusions: [{ targetRuleSet: 'sqli-v33-stable', targetRuleIds: [SQLI_942100], requestQueryParamsToExclude: [{ op: 'EQUALS', val: 'comment' }] }],
    });
  });

  it('curl with a SQL injection gets 403, and the log line names the signature', async () => {
    const denied = await curl(`${guardUrl}/search?id=1%27%20or%20%271%27%3D%271`);
    assert.equal(denied.status, 403);
    assert.match(denied.body, /<title>403<\/title>403 Forbidden$/);
    const line = await guard.waitForLine(/"requestUrl":"[^"]*\/search\?id=1%27[^"]*","status":403/);
    const entry = JSON.parse(line.input) as { jsonPayload: { enforcedSecurityPolicy: Record<string, unknown>; statusDetails: string } };
    assert.deepEqual(entry.jsonPayload.enforcedSecurityPolicy, {
      name: 'waf',
      priority: 1000,
      configuredAction: 'DENY',
      outcome: 'DENY',
      preconfiguredExprIds: [SQLI_942100],
    });
    assert.equal(entry.jsonPayload.statusDetails, 'denied_by_security_policy');
  });

  it('the same injection in the excluded parameter passes; a clean request gets 200', async () => {
    const excluded = await curl(`${guardUrl}/search?comment=1%27%20or%20%271%27%3D%271`);
    assert.equal(excluded.status, 200, excluded.body);
    const clean = await curl(`${guardUrl}/search?q=red+shoes`);
    assert.deepEqual([clean.status, JSON.parse(clean.body)], [200, { url: '/search?q=red+shoes' }]);
  });

  it('an injection in a POST body is denied in the body phase; a clean body reaches the upstream whole', async () => {
    const denied = await curl('--data', "q=1' or '1'='1", `${guardUrl}/form`);
    assert.equal(denied.status, 403);
    await guard.waitForLine(/"requestUrl":"[^"]*\/form","status":403.*"statusDetails":"body_denied_by_security_policy"/);
    const body = `note=${'a'.repeat(10000)}`;
    const allowed = await curl('--data', body, `${guardUrl}/form`);
    assert.equal(allowed.status, 200);
    assert.ok(received.includes(`POST /form ${body}`));
    assert.ok(!received.some((line) => line.includes("1' or '1'='1")));
  });
});
