import { startGuard } from './guard.ts';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, median, metricOf, runAlone } from './lib/report.ts';

/**
 * What the guard's preconfigured WAF rules cost (issue 39): throughput and p99 added latency of
 * benign traffic (a GET with a query string, a small form POST) through the guard enforcing a
 * policy with one SQLi and one XSS rule at sensitivity 1 (libmodsecurity3 + the OWASP CRS in the
 * guard's worker pool, the form body inspected), against the guard enforcing the same policy
 * without those two rules, and against a bare node:http proxy, in alternating rounds of the same
 * run. The upstream alone is measured once; "added latency" is a side's p99 minus the upstream's.
 * Every side must answer what the bare proxy answers (the WAF must not block the benign traffic),
 * which is checked before any load.
 */
const TOKEN = 'bench';
const REGION = 'projects/p/regions/us-central1/securityPolicies';

/** ordinaryRules are the rules both policies share: none matches the benchmark's traffic. */
const ordinaryRules: Record<string, unknown>[] = [
  { priority: 1000, action: 'deny(403)', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['198.51.100.0/24', '2001:db8:1::/48'] } } },
  {
    priority: 1010,
    action: 'deny(404)',
    match: { expr: { expression: "request.path.startsWith('/admin') || (has(request.headers['x-k']) && request.headers['x-k'].lower().contains('bad'))" } },
  },
  { priority: 1020, action: 'deny(403)', match: { expr: { expression: "origin.region_code == 'QQ' && inIpRange(origin.ip, '203.0.113.0/24')" } } },
];

/** wafRules are the two rules the WAF side adds: Google's SQLi and XSS sets at sensitivity 1. */
const wafRules: Record<string, unknown>[] = [
  { priority: 100, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})" } } },
  { priority: 200, action: 'deny(403)', match: { expr: { expression: "evaluatePreconfiguredWaf('xss-v33-stable', {'sensitivity': 1})" } } },
];

const requests = [
  {
    method: 'GET' as const,
    path: '/catalog/items?category=books&sort=price&page=2&q=the+art+of+computer+programming',
    headers: { 'user-agent': 'bench', accept: 'application/json' },
  },
  {
    method: 'POST' as const,
    path: '/contact',
    headers: { 'user-agent': 'bench', 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=Ada+Lovelace&email=ada%40example.com&subject=Engines&message=Looking+forward+to+the+meeting+on+Tuesday%2C+10+am.',
  },
];

/** statuses answers each benchmark request once through url, in order. */
async function statuses(url: string): Promise<number[]> {
  const answers: number[] = [];
  for (const each of requests) {
    const answer = await fetch(new URL(each.path, url), { method: each.method, headers: each.headers, ...('body' in each ? { body: each.body } : {}) });
    await answer.arrayBuffer();
    answers.push(answer.status);
  }
  return answers;
}

/** bench measures benign traffic through the guard with and without two WAF rules, and through a bare proxy. */
export const bench: Bench = async ({ rounds, quick }) => {
  const seconds = loadSeconds(quick);
  const bundle = ensureBuilt();
  const fogbank = await startProcess([bundle, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn']);
  for (const [name, rules] of [
    ['with-waf', [...wafRules, ...ordinaryRules]],
    ['without-waf', ordinaryRules],
  ] as const) {
    const created = await fetch(`${fogbank.url}/compute/v1/${REGION}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, rules }),
    });
    if (created.status !== 200) throw new Error(`policy insert answered ${created.status}: ${await created.text()}`);
  }
  const upstream = await startProcess(BARE_SERVER);
  const bare = await startProcess([new URL('./lib/bare-proxy.mjs', import.meta.url).pathname, upstream.url]);
  const guardOf = (name: string) =>
    startGuard([bundle, 'guard', '--policy', `${REGION}/${name}`, '--upstream', upstream.url, '--port', '0', '--url', fogbank.url, '--token', TOKEN]);
  const withWaf = await guardOf('with-waf');
  const withoutWaf = await guardOf('without-waf');
  try {
    // Each side must answer as the bare proxy does (the upstream answers the form POST 400: it parses JSON bodies only).
    const expected = await statuses(bare.url);
    for (const [label, target] of [
      ['guard with WAF rules', withWaf],
      ['guard without WAF rules', withoutWaf],
    ] as const) {
      const got = await statuses(target.url);
      if (got.join() !== expected.join()) throw new Error(`${label} answered ${got.join(', ')} where the bare proxy answered ${expected.join(', ')}`);
    }
    // Warm-up: each path compiled hot (and the WAF workers started) before it is measured.
    for (const target of [upstream, bare, withoutWaf, withWaf]) await runLoad({ url: target.url, requests, seconds: 1 });
    const direct = await runLoad({ url: upstream.url, requests, seconds });
    const p99 = new Map<string, number[]>();
    let errors = 0;
    const measured = (label: string, url: string) => ({
      label,
      measure: async () => {
        const result = await runLoad({ url, requests, seconds });
        p99.set(label, [...(p99.get(label) ?? []), result.p99Ms]);
        errors += result.errors;
        return result.requestsPerSecond;
      },
    });
    const BARE = 'bare node:http proxy';
    const WITHOUT = 'guard, policy without the WAF rules';
    const WITH = 'guard, policy with SQLi + XSS at sensitivity 1';
    const [bareRps, withoutRps, withRps] = await interleaved(rounds, [
      measured(BARE, bare.url),
      measured(WITHOUT, withoutWaf.url),
      measured(WITH, withWaf.url),
    ]);
    const added = (label: string) => `${(median(p99.get(label)!) - direct.p99Ms).toFixed(1)} ms`;
    const note = `benign GET with a query string + small form POST, 16 connections, ${seconds} s a side; upstream alone ${direct.requestsPerSecond.toFixed(0)} req/s, p99 ${direct.p99Ms} ms; p99 added over it: bare proxy ${added(BARE)}, guard without WAF ${added(WITHOUT)}, guard with WAF ${added(WITH)}${errors > 0 ? `; WARNING: ${errors} requests failed` : ''}`;
    return [
      metricOf({
        metric: 'benign traffic through the guard, SQLi + XSS rules vs the same policy without them',
        unit: 'req/s',
        fogbank: withRps,
        baseline: { label: WITHOUT, samples: withoutRps },
        note,
      }),
      metricOf({
        metric: 'benign traffic through the guard with SQLi + XSS rules vs a bare node:http proxy',
        unit: 'req/s',
        fogbank: withRps,
        baseline: { label: BARE, samples: bareRps },
      }),
      metricOf({
        metric: 'benign traffic through the guard without WAF rules vs a bare node:http proxy',
        unit: 'req/s',
        fogbank: withoutRps,
        baseline: { label: BARE, samples: bareRps },
      }),
      metricOf({
        metric: 'benign traffic through the guard, SQLi + XSS rules vs without, p99',
        unit: 'ms',
        fogbank: p99.get(WITH)!,
        baseline: { label: WITHOUT, samples: p99.get(WITHOUT)! },
      }),
      metricOf({
        metric: 'benign traffic through the guard with SQLi + XSS rules vs a bare proxy, p99',
        unit: 'ms',
        fogbank: p99.get(WITH)!,
        baseline: { label: BARE, samples: p99.get(BARE)! },
      }),
    ];
  } finally {
    await withWaf.stop();
    await withoutWaf.stop();
    await bare.stop();
    await upstream.stop();
    await fogbank.stop();
  }
};

runAlone(import.meta, bench);
