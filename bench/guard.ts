import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSeconds, runLoad } from './lib/load.ts';
import { SlowClients } from './lib/slow-clients.ts';
import { BARE_SERVER, cpuMs, ensureBuilt, ROOT, startProcess, type Started } from './lib/processes.ts';
import { type Bench, interleaved, median, metricOf, ratioAtLeast, ratioAtMost, runAlone } from './lib/report.ts';

/**
 * What `fogbank guard` costs (issue 30): throughput and p99 latency of GET through the guard,
 * enforcing a policy of 100 rules that the request falls through to the default rule (the most
 * evaluation a request can cost: every expression and range checked, a throttle counted), against
 * a bare node:http reverse proxy to the same upstream, in alternating rounds (A B A B) of the same
 * run so machine noise falls on both. The upstream alone is measured once for the added latency.
 * Goal: guard ≥ 0.5× the bare proxy. Each server is a process of its own: the upstream and the
 * bare proxy plain JavaScript, fogbank and the guard the built bundle, as users run them.
 *
 * A third side of the same rounds (issue 44) drives the same GETs through the guard while
 * SLOW_CLIENTS (600) slow clients hold connections to it, each trickling a request body a byte a
 * second (each holds an upstream exchange, the upstream waiting for the body): the allowed
 * requests' p99 then, against the guard's p99 with none, says whether slow
 * clients starve the others (before issue 44, 512 slow bodies took every upstream socket).
 */
const TOKEN = 'bench';
const POLICY = 'projects/p/regions/us-central1/securityPolicies/bench';
/** RULES is how many rules the policy has (the issue's 100 by default; fewer to see what the proxy costs apart from evaluation). */
const RULES = Number(process.env['RULES'] ?? 100);
/** SLOW_CLIENTS is how many slow clients hold connections during the starvation side. */
const SLOW_CLIENTS = Number(process.env['SLOW_CLIENTS'] ?? 600);

/** hundredRules are RULES - 1 rules the benchmark's request does not match, and a throttle it does (under its threshold). */
function hundredRules(): Record<string, unknown>[] {
  const rules: Record<string, unknown>[] = [];
  for (let i = 1; i < RULES; i++) {
    const priority = i * 10;
    if (i % 3 === 0) {
      rules.push({
        priority,
        action: 'deny(403)',
        match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: [`198.51.${i}.0/24`, `2001:db8:${i}::/48`] } },
      });
    } else if (i % 3 === 1) {
      rules.push({
        priority,
        action: 'deny(404)',
        match: {
          expr: {
            expression: `request.path.startsWith('/blocked-${i}') || (has(request.headers['x-k${i}']) && request.headers['x-k${i}'].lower().contains('bad'))`,
          },
        },
      });
    } else {
      rules.push({
        priority,
        action: 'deny(403)',
        match: { expr: { expression: `origin.region_code == 'Q${String.fromCharCode(65 + (i % 26))}' && inIpRange(origin.ip, '203.0.${i}.0/24')` } },
      });
    }
  }
  rules.push({
    priority: 5000,
    action: 'throttle',
    match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
    rateLimitOptions: { rateLimitThreshold: { count: 1_000_000, intervalSec: 60 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'IP' },
  });
  return rules;
}

/**
 * startGuard runs the guard with its decision log going to a file, as a deployment would keep it:
 * read through a pipe by this process, the log would cost the load generator's CPU and slow the
 * guard's rows only. The address is read from the file's first line.
 */
export async function startGuard(args: readonly string[]): Promise<Started & { readonly logFile: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-guard-'));
  const logFile = join(dir, 'decisions.jsonl');
  const profileDir = process.env['BENCH_CPU_PROF'];
  const profile = profileDir === undefined || profileDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const child = spawn(process.execPath, [...profile, ...args], { cwd: ROOT, stdio: ['ignore', openSync(logFile, 'w'), 'inherit'] });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const began = performance.now();
  for (;;) {
    const first = /^guard listening on (http:\/\/\S+)$/m.exec(readFileSync(logFile, 'utf8').split('\n')[0] ?? '');
    if (first !== null)
      return {
        url: first[1]!,
        child,
        logFile,
        readyMs: performance.now() - began,
        stop: async () => {
          child.kill('SIGTERM');
          await closed;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    if (child.exitCode !== null) throw new Error('the guard exited before listening');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** bench measures GET through the guard against GET through a bare proxy to the same upstream. */
export const bench: Bench = async ({ rounds, quick }) => {
  const seconds = loadSeconds(quick);
  const bundle = ensureBuilt();
  const fogbank = await startProcess([bundle, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn']);
  const created = await fetch(`${fogbank.url}/compute/v1/projects/p/regions/us-central1/securityPolicies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', rules: hundredRules() }),
  });
  if (created.status !== 200) throw new Error(`policy insert answered ${created.status}: ${await created.text()}`);
  const upstream = await startProcess(BARE_SERVER);
  const bare = await startProcess([new URL('./lib/bare-proxy.mjs', import.meta.url).pathname, upstream.url]);
  const guard = await startGuard([bundle, 'guard', '--policy', POLICY, '--upstream', upstream.url, '--port', '0', '--url', fogbank.url, '--token', TOKEN]);

  const requests = [{ method: 'GET' as const, path: '/items/1?page=2', headers: { 'x-api-key': 'k1', 'user-agent': 'bench' } }];
  try {
    // Warm-up: each path compiled hot before it is measured.
    for (const target of [upstream, bare, guard]) await runLoad({ url: target.url, requests, seconds: 1 });
    const direct = await runLoad({ url: upstream.url, requests, seconds });
    // CPU seconds each process spent per round: where the time goes, on a machine shared with others.
    const processes = { fogbank, upstream, bare, guard };
    const cpu = (): Record<string, number> => Object.fromEntries(Object.entries(processes).map(([name, each]) => [name, cpuMs(each.child.pid!)]));
    const p99 = new Map<string, number[]>();
    let failed = 0;
    const measured = (label: string, url: string, around?: { start(): Promise<void>; stop(): void }) => ({
      label,
      measure: async () => {
        await around?.start();
        const before = cpu();
        const started = process.cpuUsage();
        const result = await runLoad({ url, requests, seconds });
        const after = cpu();
        const own = process.cpuUsage(started);
        around?.stop();
        p99.set(label, [...(p99.get(label) ?? []), result.p99Ms]);
        failed += result.non2xx + result.errors;
        if (process.env['BENCH_CPU'] !== undefined)
          console.error(
            `${label}: CPU ms ${Object.keys(after)
              .map((name) => `${name} ${(after[name]! - before[name]!).toFixed(0)}`)
              .join(', ')}, load generator ${((own.user + own.system) / 1000).toFixed(0)}`,
          );
        return result.requestsPerSecond;
      },
    });
    const slow = new SlowClients(Number(new URL(guard.url).port), SLOW_CLIENTS);
    const slowLabel = `fogbank guard, ${SLOW_CLIENTS} slow clients connected`;
    const [bareRps, guardRps] = await interleaved(rounds, [
      measured('bare node:http proxy', bare.url),
      measured('fogbank guard', guard.url),
      measured(slowLabel, guard.url, slow),
    ]);
    const note = `upstream alone ${direct.requestsPerSecond.toFixed(0)} req/s, p99 ${direct.p99Ms} ms; guard p99 adds ${(median(p99.get('fogbank guard')!) - direct.p99Ms).toFixed(1)} ms over it${failed > 0 ? `; WARNING: ${failed} answers were not 2xx or failed` : ''}`;
    return [
      metricOf({
        metric: `GET through the guard (${RULES} rules) vs a bare node:http proxy`,
        unit: 'req/s',
        fogbank: guardRps,
        baseline: { label: 'bare node:http proxy', samples: bareRps },
        goal: ratioAtLeast(0.5, 'bare proxy'),
        note,
      }),
      metricOf({
        metric: `GET through the guard (${RULES} rules), p99`,
        unit: 'ms',
        fogbank: p99.get('fogbank guard')!,
        baseline: { label: 'bare node:http proxy', samples: p99.get('bare node:http proxy')! },
      }),
      metricOf({
        metric: `allowed GET through the guard, p99, with ${SLOW_CLIENTS} slow clients connected`,
        unit: 'ms',
        fogbank: p99.get(slowLabel)!,
        baseline: { label: 'no slow clients', samples: p99.get('fogbank guard')! },
        goal: ratioAtMost(3, 'no slow clients'),
        note: 'each slow client trickles a request body a byte a second, holding an upstream exchange',
      }),
    ];
  } finally {
    await guard.stop();
    await bare.stop();
    await upstream.stop();
    await fogbank.stop();
  }
};

runAlone(import.meta, bench);
