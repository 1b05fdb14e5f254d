// Replay end to end (issue 39): traffic through the built `fogbank guard` in front of a node:http
// upstream, then the guard's own log file and fogbank's request journal replayed under a proposed
// change (a preconfigured WAF rule added, the /admin deny removed, a throttle added) through the
// built CLI and through the admin API; the diff must list exactly the requests whose outcome
// changes. Outcomes are asserted, never timings.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify as yaml } from 'yaml';
import { REPO } from '../harness/paths.ts';
import { type FogbankProcess, runToEnd, type Spawned, spawnFogbank, startFogbankProcess } from '../harness/process.ts';
import { tempDir } from '../../src/testing/temp.ts';

const TOKEN = 'e2e-guard-replay';
const BUNDLE = join(REPO, 'dist/fogbank.mjs');
const POLICY = 'projects/p/regions/us-central1/securityPolicies/shop';
const COMPUTE = '/compute/v1/projects/p/regions/us-central1/securityPolicies';
const SQLI = '/search?id=1%27%20or%20%271%27%3D%271';

/** EDITS are the proposed change: a WAF rule above everything, the /admin deny removed, a throttle of 3 a minute for everyone. */
const EDITS = [
  { priority: 500, rule: { action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})" } } } },
  { priority: 1000, rule: null },
  {
    priority: 2000,
    rule: {
      action: 'throttle',
      match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
      rateLimitOptions: { rateLimitThreshold: { count: 3, intervalSec: 60 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'ALL' },
    },
  },
];

/** TRAFFIC is sent in this order; what the guard answers under the policy in force. */
const TRAFFIC: [string, number][] = [
  ['/', 200],
  ['/admin/users', 403],
  [SQLI, 200],
  ['/a', 200],
  ['/b', 200],
];

/**
 * EXPECTED are the requests whose outcome changes, by path: /admin opens (throttle counts it: 1
 * of 3 after /), the injection is now denied by the WAF rule (decided above the throttle, so not
 * counted), /b is the fourth counted and crosses the threshold. / and /a are forwarded either way.
 */
const EXPECTED = [
  ['/admin/users', 'deny(403)', 'throttle(allow)'],
  [SQLI, 'allow', 'deny(403)'],
  ['/b', 'allow', 'throttle(deny-429)'],
];

interface Changed {
  readonly at?: string;
  readonly request: { readonly url: string };
  readonly before: { readonly action: string; readonly priority: number; readonly preconfiguredExprIds?: string[] };
  readonly after: { readonly action: string; readonly priority: number; readonly preconfiguredExprIds?: string[] };
}

const summary = (changed: readonly Changed[]) =>
  changed.map((each) => [new URL(each.request.url).pathname + new URL(each.request.url).search, each.before.action, each.after.action]);

describe('fogbank policy replay over traffic through the guard', () => {
  let server: FogbankProcess;
  let upstream: Server;
  let guard: Spawned;
  let guardUrl: string;
  const dir = tempDir('guard-replay');

  async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const cli = (...args: string[]) =>
    runToEnd(process.execPath, [BUNDLE, 'policy', 'replay', '--policy', POLICY, '--url', server.url, '--token', TOKEN, ...args], { cwd: REPO });
  const ruleFlags = EDITS.flatMap((edit) => ['--rule', `${edit.priority}=${JSON.stringify(edit.rule)}`]);

  before(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO, timeout: 120_000 });
    server = await startFogbankProcess(['--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn'], {
      entry: BUNDLE,
    });
    upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    const upstreamUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    assert.equal((await admin('POST', COMPUTE, { name: 'shop' })).status, 200);
    const deny = { priority: 1000, action: 'deny(403)', match: { expr: { expression: "request.path.startsWith('/admin')" } } };
    assert.equal((await admin('POST', `${COMPUTE}/shop/addRule`, deny)).status, 200);
    guard = spawnFogbank(['guard', '--policy', POLICY, '--upstream', upstreamUrl, '--port', '0', '--url', server.url, '--token', TOKEN], { entry: BUNDLE });
    guardUrl = (await guard.waitForLine(/^guard listening on (http:\/\/\S+)$/))[1]!;
    for (const [path, status] of TRAFFIC) {
      const response = await fetch(`${guardUrl}${path}`, { headers: { 'user-agent': 'replay-e2e', authorization: 'Bearer secret' } });
      await response.text();
      assert.equal(response.status, status, path);
    }
    await guard.waitForLine(/"requestUrl":"[^"]*\/b","status":200/);
  });
  after(async () => {
    await guard?.stop('SIGTERM');
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
    await server?.stop('SIGTERM');
  });

  it('the guard log carries what replay needs: full URL, headers (credentials redacted), source IP, time', () => {
    const line = guard.lines.find((each) => each.includes('"requestUrl":') && each.includes('/admin/users'));
    const entry = JSON.parse(line!) as { jsonPayload: { remoteIp: string; fogbankRequest: { url: string; headers: Record<string, string>; time: string } } };
    assert.equal(entry.jsonPayload.remoteIp, '127.0.0.1');
    assert.equal(entry.jsonPayload.fogbankRequest.url, `${guardUrl}/admin/users`);
    assert.equal(entry.jsonPayload.fogbankRequest.headers['user-agent'], 'replay-e2e');
    assert.equal(entry.jsonPayload.fogbankRequest.headers['authorization'], '(redacted)');
    assert.match(entry.jsonPayload.fogbankRequest.time, /^\d{4}-\d\d-\d\dT/);
  });

  it('the CLI replays the guard’s log file with rule edits: exactly the requests that change, the WAF signature named', async () => {
    const file = join(dir, 'guard.log');
    writeFileSync(file, `${guard.lines.join('\n')}\n`);
    const got = await cli('--from', 'guard-log', file, ...ruleFlags, '--format', 'json');
    assert.equal(got.exit, 0, got.stderr);
    const answer = JSON.parse(got.stdout) as { evaluated: number; changed: Changed[]; neverMatched: number[]; coverage: unknown[]; skipped: unknown[] };
    assert.equal(answer.evaluated, TRAFFIC.length);
    assert.deepEqual(summary(answer.changed), EXPECTED);
    const waf = answer.changed[1]!;
    assert.deepEqual(
      [waf.before.priority, waf.after.priority, waf.after.preconfiguredExprIds?.includes('owasp-crs-v030301-id942100-sqli')],
      [2147483647, 500, true],
    );
    assert.match(answer.changed[0]!.at ?? '', /guard\.log: line \d+$/);
    assert.deepEqual(answer.coverage, [
      { priority: 500, matchedBefore: null, matchedAfter: 1 },
      { priority: 1000, matchedBefore: 1, matchedAfter: null },
      { priority: 2000, matchedBefore: null, matchedAfter: 4 },
      { priority: 2147483647, matchedBefore: 4, matchedAfter: 0 },
    ]);
    assert.deepEqual(answer.neverMatched, [2147483647]);
    assert.deepEqual(answer.skipped, []);
    // The same as a table for a person.
    const table = await cli('--from', 'guard-log', file, ...ruleFlags);
    assert.equal(table.exit, 0, table.stderr);
    assert.match(table.stdout, /: 3 change outcome\n/);
    assert.match(table.stdout, /deny\(403\) \(rule 1000\) {2}→ {2}throttle\(allow\) \(rule 2000\)/);
    assert.match(table.stdout, /allow \(rule 2147483647\) {2}→ {2}deny\(403\) \(rule 500; owasp-crs-v030301-id942100-sqli/);
  });

  it('the CLI takes a whole proposed policy as a YAML file, as an export of the policy edited', async () => {
    // The policy as the API answers a GET (what gcloud's export writes), its rules edited as EDITS edit them.
    const exported = (await admin('GET', `${COMPUTE}/shop`)).body as { rules: { priority: number }[] };
    const rules = exported.rules.filter((rule) => rule.priority !== 1000);
    for (const edit of EDITS) if (edit.rule !== null) rules.push({ priority: edit.priority, ...edit.rule });
    const policyFile = join(dir, 'shop.yaml');
    writeFileSync(policyFile, yaml({ ...exported, rules }));
    const logFile = join(dir, 'guard-for-yaml.log');
    writeFileSync(logFile, `${guard.lines.join('\n')}\n`);
    const got = await cli('--from', 'guard-log', logFile, '--proposed', policyFile, '--format', 'json');
    assert.equal(got.exit, 0, got.stderr);
    assert.deepEqual(summary((JSON.parse(got.stdout) as { changed: Changed[] }).changed), EXPECTED);
  });

  it('the admin API replays the journal’s guard decisions alike', async () => {
    let entries: unknown[] = [];
    for (let i = 0; i < 100 && entries.length < TRAFFIC.length; i++) {
      entries = (await admin('GET', '/_fogbank/requests?family=guard')).body['requests'] as unknown[];
      if (entries.length < TRAFFIC.length) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const got = await admin('POST', '/_fogbank/securityPolicies:replay', { policy: POLICY, source: 'journal', rules: EDITS });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body['evaluated'], TRAFFIC.length);
    assert.deepEqual(summary(got.body['changed'] as Changed[]), EXPECTED);
  });

  it('a log file that does not parse is named with its line, before anything is sent', async () => {
    const file = join(dir, 'broken.log');
    writeFileSync(file, `${guard.lines.filter((each) => each.startsWith('{'))[0]}\n{"httpRequest": {"requestMethod": "GET",\n`);
    const got = await cli('--from', 'guard-log', file, ...ruleFlags);
    assert.equal(got.exit, 2);
    assert.match(got.stderr, new RegExp(`^fogbank: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: guard-log: line 2, column \\d+ is not JSON: `));
  });
});
