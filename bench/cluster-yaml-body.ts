import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { INLINE_YAML_LIMIT, loadYamlBodyParser } from '../src/core/yaml-body.ts';
import { startHarness, type ClusterHarness } from '../src/services/cluster/testing/harness.ts';

/**
 * How long one large YAML body holds the event loop, on the cluster family in-process, while the
 * event loop's delay is sampled every 10 ms (perf_hooks.monitorEventLoopDelay) and small GETs are
 * sent one after another. Two bodies of 1 MiB (just under the body limit), block YAML:
 * - a SelfSubjectAccessReview with a 56,000-key mapping in a field it ignores: decoding is all the
 *   work, so this is what decoding costs the event loop;
 * - a ClusterRole of 56,000 labels: the whole create, and the same object sent as JSON (the
 *   floor: what creating it costs the event loop besides decoding).
 * YAML is decoded inline (as before core/yaml-worker-pool.ts) and on a worker thread (now).
 * Prints the worst max delay, the median request time and GETs answered meanwhile, and ratios.
 * First, what the `yaml` library costs inline by body size (where INLINE_YAML_LIMIT comes from).
 *
 *   node --import tsx bench/cluster-yaml-body.ts [rounds]
 */
const ROUNDS = Number(process.argv[2] ?? 3);
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

async function measure(label: string, inline: boolean, body: Body): Promise<Run> {
  const h = await startHarness(inline ? { yamlBodies: { inlineLimit: Number.POSITIVE_INFINITY } } : {});
  const runs: Run[] = [];
  try {
    // The first round warms the code up (and starts the worker thread); it is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      const { url, text, contentType } = body(`bench-${round}`);
      const run = await once(h, url, text, contentType);
      if (round > 0) runs.push(run);
    }
  } finally {
    await h.close();
  }
  const worst = runs.reduce((a, b) => (b.maxDelayMs > a.maxDelayMs ? b : a));
  const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const result = {
    maxDelayMs: worst.maxDelayMs,
    requestMs: median(runs.map((run) => run.requestMs)),
    getsMeanwhile: median(runs.map((run) => run.getsMeanwhile)),
  };
  console.log(
    `${label.padEnd(30)} max event-loop delay ${result.maxDelayMs.toFixed(0).padStart(5)} ms (worst of ${ROUNDS})   request ${result.requestMs.toFixed(0).padStart(5)} ms   GETs answered meanwhile ${String(result.getsMeanwhile).padStart(5)} (medians)`,
  );
  return result;
}

/** inlineCostBySize prints the median time the inline parser takes over ClusterRole-like YAML of growing size. */
async function inlineCostBySize(): Promise<void> {
  const parse = await loadYamlBodyParser();
  const rules = (count: number): string =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: x\nrules:\n${Array.from({ length: count }, (_, i) => `- apiGroups: [""]\n  resources: ["pods${i}"]\n  verbs: ["get", "list"]`).join('\n')}\n`;
  for (let warm = 0; warm < 20; warm++) parse(rules(50));
  const cells: string[] = [];
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
    cells.push(`${kib} KiB ${times.sort((a, b) => a - b)[7]!.toFixed(1)} ms`);
  }
  console.log(`inline YAML parse, median of 15: ${cells.join(', ')} (inline limit ${INLINE_YAML_LIMIT / 1024} KiB)`);
}

await inlineCostBySize();
const bodies: Record<string, { readonly yaml: Body; readonly json: Body }> = {
  review: {
    yaml: () => ({ url: SSAR, text: reviewYaml(), contentType: 'application/yaml' }),
    json: () => ({ url: SSAR, text: reviewJson(), contentType: 'application/json' }),
  },
  role: {
    yaml: (name) => ({ url: ROLES, text: roleYaml(name), contentType: 'application/yaml' }),
    json: (name) => ({ url: ROLES, text: roleJson(name), contentType: 'application/json' }),
  },
};
console.log(
  `${ROUNDS} rounds each; SelfSubjectAccessReview ${(reviewYaml().length / 1024).toFixed(0)} KiB, ClusterRole ${(roleYaml('bench-0').length / 1024).toFixed(0)} KiB of YAML`,
);
const ratio = (a: Run, b: Run): string => `${(a.maxDelayMs / Math.max(b.maxDelayMs, 1)).toFixed(1)}×`;
const summary: string[] = [];
for (const [what, { yaml, json }] of Object.entries(bodies)) {
  const before = await measure(`${what}, YAML inline (before)`, true, yaml);
  const now = await measure(`${what}, YAML on a worker (now)`, false, yaml);
  const floor = await measure(`${what}, as JSON (floor)`, false, json);
  summary.push(`${what}: inline / worker ${ratio(before, now)}, worker / JSON ${ratio(now, floor)}`);
}
console.log(`max event-loop delay: ${summary.join('; ')}`);
