import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { INLINE_YAML_LIMIT, loadYamlBodyParser } from '../src/core/yaml-body.ts';
import { startHarness, type ClusterHarness } from '../src/testing/cluster-harness.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, runAlone } from './lib/report.ts';

/**
 * How long one large YAML body holds the event loop, on the cluster family in-process, while the
 * event loop's delay is sampled every 10 ms (perf_hooks.monitorEventLoopDelay) and small GETs are
 * sent one after another. Two bodies of 1 MiB (just under the body limit), block YAML:
 * - a SelfSubjectAccessReview with a 56,000-key mapping in a field it ignores: decoding is all the
 *   work, so this is what decoding costs the event loop;
 * - a ClusterRole of 56,000 labels: the whole create, and the same object sent as JSON (the
 *   floor: what creating it costs the event loop besides decoding).
 * YAML is decoded inline (as before core/yaml-worker-pool.ts) and on a worker thread (now).
 * Reports the max event-loop delay (median over rounds, the worst in the spread) of the worker
 * and inline decodings against the JSON floor, the three interleaved round by round, each on a
 * harness of its own warmed by one uncounted round. No goals are stated; the figures show the
 * worker's effect. First, what the `yaml` library costs inline by body size (where
 * INLINE_YAML_LIMIT comes from).
 *
 *   node --import tsx bench/cluster-yaml-body.ts [--rounds N]
 */
const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const LABELS = 56_000;

function reviewYaml(): string {
  const filler = Array.from({ length: LABELS }, (_, i) => `  k${i}: v${i}`).join('\n');
  return `apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes:\n    verb: get\n    resource: pods\nfiller:\n${filler}\n`;
}

function reviewJson(): string {
  const filler = Object.fromEntries(Array.from({ length: LABELS }, (_, i) => [`k${i}`, `v${i}`]));
  return JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
    filler,
  });
}

function roleYaml(name: string): string {
  const labels = Array.from({ length: LABELS }, (_, i) => `    k${i}: v${i}`).join('\n');
  return `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\n  labels:\n${labels}\nrules: []\n`;
}

function roleJson(name: string): string {
  const labels = Object.fromEntries(Array.from({ length: LABELS }, (_, i) => [`k${i}`, `v${i}`]));
  return JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules: [] });
}

interface Run {
  readonly maxDelayMs: number;
  readonly requestMs: number;
  readonly getsMeanwhile: number;
}

async function once(h: ClusterHarness, url: string, body: string, contentType: string): Promise<Run> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // The first sample only starts the clock: a block before it would go unseen.
  await sleep(30);
  const started = performance.now();
  let inFlight = true;
  const created = h.call('POST', url, body, { 'content-type': contentType }).finally(() => (inFlight = false));
  let getsMeanwhile = 0;
  while (inFlight) {
    await h.call('GET', '/api/v1/namespaces/default');
    if (inFlight) getsMeanwhile++;
  }
  const response = await created;
  const requestMs = performance.now() - started;
  // The sample that measures a block is taken by the first timer after it: let it run.
  await sleep(50);
  histogram.disable();
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
  return { maxDelayMs: histogram.max / 1e6, requestMs, getsMeanwhile };
}

/** Body makes the request body of a round (names differ: each round creates). */
type Body = (name: string) => { readonly url: string; readonly text: string; readonly contentType: string };

/** inlineCostBySize is the median time the inline parser takes over ClusterRole-like YAML of growing size. */
async function inlineCostBySize(): Promise<BenchMetric[]> {
  const parse = await loadYamlBodyParser();
  const rules = (count: number): string =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: x\nrules:\n${Array.from({ length: count }, (_, i) => `- apiGroups: [""]\n  resources: ["pods${i}"]\n  verbs: ["get", "list"]`).join('\n')}\n`;
  for (let warm = 0; warm < 20; warm++) parse(rules(50));
  const metrics: BenchMetric[] = [];
  for (const kib of [2, 4, 8, 16, 32]) {
    let count = 1;
    while (rules(count).length < kib * 1024) count++;
    const text = rules(count);
    const times: number[] = [];
    for (let round = 0; round < 15; round++) {
      const started = performance.now();
      parse(text);
      times.push(performance.now() - started);
    }
    metrics.push(metricOf({ metric: `inline YAML parse of ${kib} KiB (inline limit ${INLINE_YAML_LIMIT / 1024} KiB)`, unit: 'ms', fogbank: times }));
  }
  return metrics;
}

/** bench measures what one large YAML body costs the event loop, inline and on a worker, against JSON. */
export const bench: Bench = async ({ rounds }) => {
  const metrics = await inlineCostBySize();
  const bodies: Record<string, { readonly yaml: Body; readonly json: Body }> = {
    SelfSubjectAccessReview: {
      yaml: () => ({ url: SSAR, text: reviewYaml(), contentType: 'application/yaml' }),
      json: () => ({ url: SSAR, text: reviewJson(), contentType: 'application/json' }),
    },
    ClusterRole: {
      yaml: (name) => ({ url: ROLES, text: roleYaml(name), contentType: 'application/yaml' }),
      json: (name) => ({ url: ROLES, text: roleJson(name), contentType: 'application/json' }),
    },
  };
  for (const [what, { yaml, json }] of Object.entries(bodies)) {
    const kib = (yaml('bench-0').text.length / 1024).toFixed(0);
    const harnesses: ClusterHarness[] = [];
    try {
      const side = async (label: string, inline: boolean, body: Body) => {
        const h = await startHarness(inline ? { yamlBodies: { inlineLimit: Number.POSITIVE_INFINITY } } : {});
        harnesses.push(h);
        let round = 0;
        const next = async (): Promise<Run> => {
          const { url, text, contentType } = body(`bench-${round++}`);
          return once(h, url, text, contentType);
        };
        // The first round warms the code up (and starts the worker thread); it is not counted.
        await next();
        const runs: Run[] = [];
        return {
          runs,
          side: {
            label,
            measure: async () => {
              const run = await next();
              runs.push(run);
              return run.maxDelayMs;
            },
          },
        };
      };
      const inline = await side('YAML inline (before)', true, yaml);
      const worker = await side('YAML on a worker (now)', false, yaml);
      const floor = await side('as JSON (floor)', false, json);
      const [inlineDelay, workerDelay, jsonDelay] = await interleaved(rounds, [inline.side, worker.side, floor.side]);
      const baseline = { label: 'as JSON', samples: jsonDelay };
      metrics.push(
        metricOf({ metric: `${what} of ${kib} KiB YAML on a worker, max event-loop delay`, unit: 'ms', fogbank: workerDelay, baseline }),
        metricOf({ metric: `${what} of ${kib} KiB YAML inline, max event-loop delay`, unit: 'ms', fogbank: inlineDelay, baseline }),
        metricOf({
          metric: `${what} of ${kib} KiB YAML on a worker, request`,
          unit: 'ms',
          fogbank: worker.runs.map((r) => r.requestMs),
          baseline: { label: 'as JSON', samples: floor.runs.map((r) => r.requestMs) },
        }),
        metricOf({
          metric: `${what} YAML on a worker, GETs answered meanwhile`,
          unit: 'GETs',
          fogbank: worker.runs.map((r) => r.getsMeanwhile),
          baseline: { label: 'YAML inline', samples: inline.runs.map((r) => r.getsMeanwhile) },
        }),
      );
    } finally {
      for (const h of harnesses) await h.close();
    }
  }
  return metrics;
};

runAlone(import.meta, bench);
