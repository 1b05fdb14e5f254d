import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import { parse } from 'yaml';
import { loadSeconds, runLoad } from './lib/load.ts';
import { ROOT, ensureBuilt, startProcess } from './lib/processes.ts';
import { atMost, type Bench, type BenchMetric, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * CustomResourceDefinitions against what a controller author uses instead, envtest (issue 31):
 *
 * - start + CRD install + first custom resource created, in milliseconds: (a) the bundled CLI as a
 *   fresh process (spawn → ready line → CRD created → Established → first CR 201: what a test
 *   suite pays cold), (b) `start()` again in a process where fogbank is loaded and warm (what each
 *   further test pays that starts its own server). envtest is not run here (it needs kube-apiserver and etcd binaries downloaded):
 *   its baseline is the documented 5–15 s start of one suite's control plane (controller-runtime
 *   envtest docs; kubernetes-breadth.md §8), taken at its low end, 5 s.
 * - GET by name and create of a custom resource (the Widget fixture: schema validation, a CEL
 *   rule, defaulting, pruning) against the same of a ClusterRole on the same server, interleaved
 *   round by round (goal ≥ 0.8× the ClusterRole's rate). Memory store, so the figures show the
 *   engine's cost rather than the disk's.
 */
const run = promisify(execFile);
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };
const ENVTEST_MS = 5000;
const ENVTEST = 'envtest (documented 5–15 s)';
const WIDGET_CRD = parse(readFileSync(new URL('../test/fixtures/crds/widget.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/fixtures.fogbank.dev/v1/namespaces/default/widgets';
const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** installAndCreate installs the Widget CRD, waits for Established and creates the first Widget; throws on any refusal. */
async function installAndCreate(url: string): Promise<void> {
  const created = await fetch(`${url}${CRDS}`, { method: 'POST', headers: json, body: JSON.stringify(WIDGET_CRD) });
  if (created.status !== 201) throw new Error(`CRD create: ${created.status} ${await created.text()}`);
  for (;;) {
    const read = (await (await fetch(`${url}${CRDS}/widgets.fixtures.fogbank.dev`, { headers: auth })).json()) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (read.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True') === true) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const widget = await fetch(`${url}${WIDGETS}`, { method: 'POST', headers: json, body: JSON.stringify(widgetBody('first')) });
  if (widget.status !== 201) throw new Error(`first Widget: ${widget.status} ${await widget.text()}`);
}

function widgetBody(name: string): Record<string, unknown> {
  return { apiVersion: 'fixtures.fogbank.dev/v1', kind: 'Widget', metadata: { name }, spec: { replicas: 1, ports: [{ name: 'http', port: 80 }] } };
}

function configMapBody(name: string): Record<string, unknown> {
  return { metadata: { name }, data: { replicas: '1', port: '80' } };
}

function roleBody(name: string): Record<string, unknown> {
  return { metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] };
}

/** cliCold is one fresh CLI process from spawn to its first custom resource created. */
async function cliCold(main: string): Promise<number> {
  const began = performance.now();
  const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
  try {
    await installAndCreate(server.url);
    return performance.now() - began;
  } finally {
    await server.stop();
  }
}

/**
 * inProcessScript loads fogbank and runs three servers through the whole path (module loading,
 * tsx's transpiling and the JIT warm-up), then times start() + CRD + first CR of a fourth: what
 * each further test pays that starts its own server.
 */
function inProcessScript(): string[] {
  const code = `const { startFogbank } = await import('./src/fogbank.ts');
const { installAndCreate } = await import('./bench/cluster-crd.ts');
for (let i = 0; i < 3; i++) {
  const warm = await startFogbank({ port: 0, ephemeral: true, adminToken: '${TOKEN}', logLevel: 'silent' });
  await installAndCreate(warm.url);
  await warm.close();
}
const began = performance.now();
const fb = await startFogbank({ port: 0, ephemeral: true, adminToken: '${TOKEN}', logLevel: 'silent' });
await installAndCreate(fb.url);
const ms = performance.now() - began;
await fb.close();
console.log('elapsed ' + ms);`;
  return ['--import', 'tsx', '--input-type=module', '-e', code];
}

async function inProcess(): Promise<number> {
  const { stdout } = await run(process.execPath, inProcessScript(), { cwd: ROOT, timeout: 120_000 });
  const ms = Number(/elapsed (\S+)/.exec(stdout)?.[1]);
  if (!Number.isFinite(ms)) throw new Error(`no timing printed: ${stdout}`);
  return ms;
}

/** rate drives one request cycle for the side's time and returns req/s, refusing a run with errors. */
async function rate(url: string, requests: autocannon.Request[], seconds: number): Promise<number> {
  const result = await runLoad({ url, requests, seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requestsPerSecond;
}

function creates(path: string, body: (name: string) => Record<string, unknown>, prefix: string): autocannon.Request[] {
  let counter = 0;
  return [{ method: 'POST', path, headers: json, setupRequest: (request) => ({ ...request, body: JSON.stringify(body(`${prefix}-${counter++}`)) }) }];
}

/** bench measures the start-to-first-CR times against envtest's documented figure and CR rates against ClusterRole rates. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const metrics: BenchMetric[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  for (let round = 0; round < rounds; round++) {
    cold.push(await cliCold(main));
    warm.push(await inProcess());
  }
  const envtest = { label: ENVTEST, samples: cold.map(() => ENVTEST_MS) };
  metrics.push(
    metricOf({
      metric: 'CLI process: spawn → ready → CRD Established → first CR created',
      unit: 'ms',
      fogbank: cold,
      baseline: envtest,
      goal: atMost(100, 'ms'),
      note: 'a fresh `node dist/fogbank.mjs start --ephemeral` each round; the baseline is a documented figure, not measured here',
    }),
    metricOf({
      metric: 'start() again in a warm process → CRD Established → first CR created',
      unit: 'ms',
      fogbank: warm,
      baseline: { label: ENVTEST, samples: warm.map(() => ENVTEST_MS) },
      goal: atMost(100, 'ms'),
      note: 'per-test cost of a fresh server once fogbank is loaded and warm (the fourth server of the process, from src via tsx)',
    }),
  );

  const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
  try {
    await installAndCreate(server.url);
    await fetch(`${server.url}${ROLES}`, { method: 'POST', headers: json, body: JSON.stringify(roleBody('bench-reader')) });
    const seconds = loadSeconds(quick);
    const getRole: autocannon.Request[] = [{ method: 'GET', path: `${ROLES}/bench-reader`, headers: auth }];
    const getWidget: autocannon.Request[] = [{ method: 'GET', path: `${WIDGETS}/first`, headers: auth }];
    await rate(server.url, getRole, 1);
    await rate(server.url, getWidget, 1);
    const [roleGets, widgetGets] = await interleaved(rounds, [
      { label: 'ClusterRole GET', measure: () => rate(server.url, getRole, seconds) },
      { label: 'Widget GET', measure: () => rate(server.url, getWidget, seconds) },
    ]);
    metrics.push(
      metricOf({
        metric: 'GET a custom resource by name (16 connections)',
        unit: 'req/s',
        fogbank: widgetGets,
        baseline: { label: 'ClusterRole GET', samples: roleGets },
        goal: ratioAtLeast(0.8, 'ClusterRole'),
      }),
    );
    let round = 0;
    const [roleCreates, configMapCreates, widgetCreates] = await interleaved(rounds, [
      { label: 'ClusterRole create', measure: () => rate(server.url, creates(ROLES, roleBody, `role-${round}`), seconds) },
      { label: 'ConfigMap create', measure: () => rate(server.url, creates(CONFIGMAPS, configMapBody, `cm-${round}`), seconds) },
      { label: 'Widget create', measure: () => rate(server.url, creates(WIDGETS, widgetBody, `widget-${round++}`), seconds) },
    ]);
    metrics.push(
      metricOf({
        metric: 'create a custom resource (16 connections, memory store)',
        unit: 'req/s',
        fogbank: widgetCreates,
        baseline: { label: 'ClusterRole create', samples: roleCreates },
        goal: ratioAtLeast(0.8, 'ClusterRole'),
        note: 'the Widget goes through schema validation, two CEL rules, defaulting and pruning; a ClusterRole write also updates the RBAC authorizer and wakes the aggregation controller',
      }),
      metricOf({
        metric: 'create a custom resource, against a ConfigMap',
        unit: 'req/s',
        fogbank: widgetCreates,
        baseline: { label: 'ConfigMap create', samples: configMapCreates },
        note: 'a plain namespaced built-in with no side effects, for scale (same rounds as the row above)',
      }),
    );
  } finally {
    await server.stop();
  }
  return metrics;
};

export { installAndCreate };

runAlone(import.meta, bench);
