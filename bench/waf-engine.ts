import { ManualClock } from '../src/lib/clock.ts';
import { compilePolicy, RateLimitState, type TrafficRequest, WAF_FAMILIES, WafEngine } from '../src/services/compute/public-evaluation.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, runAlone } from './lib/report.ts';

/**
 * What the WAF engine costs one request (issue 39): every v33 set (all twelve families) at
 * sensitivity 4, bodies inspected up to 64 KB with JSON parsing on, for a GET with a query string,
 * an 8 KB form body and a 64 KB JSON body, one request at a time (the engine's thread inspects it
 * without the body and with it, then the policy decides), against the same policy's evaluation
 * without the WAF rules, in alternating rounds of the same run. Then the pool's warm-up: its two
 * threads load that configuration (one after the other: libmodsecurity's parser is not reentrant)
 * against one thread loading it alone. In this process, from the TypeScript sources.
 */

/** ordinaryRules are the rules both policies share: none matches the benchmark's traffic. */
const ordinaryRules: Record<string, unknown>[] = [
  { priority: 1000, action: 'deny(403)', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['198.51.100.0/24', '2001:db8:1::/48'] } } },
  {
    priority: 1010,
    action: 'deny(404)',
    match: { expr: { expression: "request.path.startsWith('/admin') || (has(request.headers['x-k']) && request.headers['x-k'].lower().contains('bad'))" } },
  },
  { priority: 2147483647, action: 'allow', match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } } },
];

/** wafRules call every v33 set at sensitivity 4, one rule a family. */
const wafRules: Record<string, unknown>[] = WAF_FAMILIES.map(({ family }, i) => ({
  priority: 100 + i,
  action: 'deny(403)',
  match: { expr: { expression: `evaluatePreconfiguredWaf('${family}-v33-stable', {'sensitivity': 4})` } },
}));

const advancedOptionsConfig = { requestBodyInspectionSize: '64KB', jsonParsing: 'STANDARD' };

function compiled(rules: Record<string, unknown>[]) {
  return compilePolicy(
    { name: 'bench', advancedOptionsConfig, rules },
    { clock: new ManualClock(0), wafUnknown: 'no-match', rateLimits: new RateLimitState() },
  );
}

/** formOf is an ordinary URL-encoded form of about `size` bytes. */
function formOf(size: number): Buffer {
  const fields: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const field = `field${i}=The+quick+brown+fox+jumps+over+the+lazy+dog+${i}`;
    fields.push(field);
    length += field.length + 1;
  }
  return Buffer.from(fields.join('&').slice(0, size));
}

/** jsonOf is an ordinary JSON document of at most `size` bytes (a list of catalogue items). */
function jsonOf(size: number): Buffer {
  const items: unknown[] = [];
  for (let i = 0; ; i++) {
    const item = { id: i, name: `Item number ${i}`, tags: ['books', 'programming'], price: 10 + (i % 90), description: 'A fine volume on algorithms.' };
    // Each item adds its own length and a comma.
    if (JSON.stringify(items).length + JSON.stringify(item).length + 1 > size) break;
    items.push(item);
  }
  return Buffer.from(JSON.stringify(items));
}

const headers = { host: 'shop.example.com', 'user-agent': 'Mozilla/5.0 (bench)', accept: 'application/json', 'accept-language': 'en-US' };
const shapes: { readonly label: string; readonly request: TrafficRequest; readonly perRound: number }[] = [
  {
    label: 'GET with a query string',
    request: {
      method: 'GET',
      url: 'http://shop.example.com/catalog/items?category=books&sort=price&page=2&q=the+art+of+computer+programming',
      headers,
      sourceIp: '203.0.113.9',
    },
    perRound: 40,
  },
  {
    label: '8 KB form body',
    request: {
      method: 'POST',
      url: 'http://shop.example.com/contact',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      sourceIp: '203.0.113.9',
      body: formOf(8 * 1024),
    },
    perRound: 10,
  },
  {
    label: '64 KB JSON body',
    request: {
      method: 'POST',
      url: 'http://shop.example.com/api/items',
      headers: { ...headers, 'content-type': 'application/json' },
      sourceIp: '203.0.113.9',
      body: jsonOf(64 * 1024),
    },
    perRound: 3,
  },
];

/** bench measures the engine's ms per request for three shapes, and the pool's warm-up. */
export const bench: Bench = async ({ rounds, quick }) => {
  const withWaf = compiled([...wafRules, ...ordinaryRules]);
  const withoutWaf = compiled(ordinaryRules);
  const plan = withWaf.wafPlan;
  if (plan === undefined || withoutWaf.wafPlan !== undefined) throw new Error('the WAF side has no plan, or the other side has one');
  const metrics: BenchMetric[] = [];

  const engine = new WafEngine({ workers: 1, deadlineMs: 60_000 });
  try {
    await engine.warm(plan);
    for (const shape of shapes) {
      const findings = await engine.inspect(plan, shape.request);
      if (findings.failure !== undefined) throw new Error(`${shape.label}: ${findings.failure}`);
      const count = quick ? Math.max(1, Math.ceil(shape.perRound / 3)) : shape.perRound;
      const [waf, plain] = await interleaved(rounds, [
        {
          label: 'WAF',
          measure: async () => {
            const began = performance.now();
            for (let i = 0; i < count; i++) withWaf.evaluate(shape.request, await engine.inspect(plan, shape.request));
            return (performance.now() - began) / count;
          },
        },
        {
          label: 'no WAF',
          measure: async () => {
            // The evaluation alone costs microseconds: many of them make one sample.
            const times = 2000;
            const began = performance.now();
            for (let i = 0; i < times; i++) withoutWaf.evaluate(shape.request);
            return (performance.now() - began) / times;
          },
        },
      ]);
      const fired = Object.values(findings.body ?? findings.header).reduce((sum, matches) => sum + matches.length, 0);
      metrics.push(
        metricOf({
          metric: `${shape.label}, every v33 set at sensitivity 4 vs the policy without WAF rules`,
          unit: 'ms/request',
          fogbank: waf,
          baseline: { label: 'the same policy without its WAF rules', samples: plain },
          note: `${shape.label}: ${count} requests a round one at a time, ${(shape.request.body?.length ?? 0).toLocaleString('en-US')} body bytes, ${fired} CRS rules fired`,
        }),
      );
    }
  } finally {
    await engine.close();
  }

  // The pool's warm-up: threads started first (warm with nothing), then each round loads the
  // configuration anew (a key of its own, so every thread parses it again) and is timed.
  const pools = [new WafEngine({ workers: 2 }), new WafEngine({ workers: 1 })] as const;
  try {
    for (const pool of pools) await pool.warm({ ...plan, configs: [] });
    let round = 0;
    const warmUp = (pool: WafEngine) => ({
      label: `${pool.workers} thread${pool.workers === 1 ? '' : 's'}`,
      measure: async () => {
        const configs = plan.configs.map((config) => ({ ...config, key: `${config.key} round ${round++}` }));
        const began = performance.now();
        await pool.warm({ ...plan, configs });
        return performance.now() - began;
      },
    });
    const [two, one] = await interleaved(rounds, [warmUp(pools[0]), warmUp(pools[1])]);
    metrics.push(
      metricOf({
        metric: "the pool's warm-up (every v33 set at sensitivity 4), 2 threads loading in turn vs 1 thread",
        unit: 'ms',
        fogbank: two,
        baseline: { label: '1 thread', samples: one },
        note: "what a guard whose policy calls every set waits before its listening line, besides the threads' start",
      }),
    );
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
  }
  return metrics;
};

runAlone(import.meta, bench);
