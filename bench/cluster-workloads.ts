// bench/cluster-workloads.ts measures `--workloads simulate` (issue 38): a Deployment scaled
// 0 → 1,000 → 0 on the built fogbank (memory store, one fake Node, Pods Ready as soon as they are
// bound): the time until all 1,000 Pods are Ready (Pods/s), the time until they are all gone again,
// and the server's RSS at its peak; against, in the same run and the same kind of fresh process,
// 1,000 Pods created directly (16 at a time) until all are Ready. kwok's published figure — it
// "can create 20 nodes or pods per second" — is the goal. A fresh process each round.
// Run alone: node --import tsx bench/cluster-workloads.ts [--rounds N] [--quick]
import { ensureBuilt, rssMb, startProcess, type Started } from './lib/processes.ts';
import { atLeast, type Bench, interleaved, metricOf, runAlone } from './lib/report.ts';

const TOKEN = 'bench';
const KWOK_PODS_PER_SECOND = 20;

interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads a few fields of Kubernetes objects
  readonly body: any;
}

async function call(server: Started, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'web', image: 'nginx' }] },
});

/** Sample is one round: seconds to all Ready, seconds to all gone, peak RSS. */
interface Sample {
  readonly readySeconds: number;
  readonly goneSeconds: number;
  readonly peakRssMb: number;
}

/** waitUntil polls `check` every 50 ms, sampling the server's RSS, and resolves with the seconds it took. */
async function waitUntil(server: Started, began: number, check: () => Promise<boolean>, peak: { rss: number }, what: string): Promise<number> {
  const deadline = began + 600_000;
  while (performance.now() < deadline) {
    peak.rss = Math.max(peak.rss, rssMb(server.child.pid!));
    if (await check()) return (performance.now() - began) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function start(): Promise<Started> {
  const main = ensureBuilt();
  return startProcess([
    main,
    'start',
    '--port',
    '0',
    '--store',
    'memory',
    '--admin-token',
    TOKEN,
    '--log-level',
    'warn',
    '--workloads',
    'simulate',
    '--pod-ready-delay',
    '0',
  ]);
}

const podsReady = async (server: Started, app: string, count: number): Promise<boolean> => {
  const list = await call(server, 'GET', `/api/v1/namespaces/default/pods?labelSelector=app=${app}`);
  const items = list.body.items as { status?: { conditions?: { type: string; status: string }[] } }[];
  return items.length === count && items.every((pod) => pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'));
};

async function throughDeployment(pods: number): Promise<Sample> {
  const server = await start();
  try {
    const deployment = { metadata: { name: 'web' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: template('web') } };
    const created = await call(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', deployment);
    if (created.status !== 201) throw new Error(`deployment create answered ${created.status}`);
    const peak = { rss: rssMb(server.child.pid!) };
    const began = performance.now();
    await call(server, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', { spec: { replicas: pods } }, 'application/merge-patch+json');
    const readySeconds = await waitUntil(
      server,
      began,
      async () => {
        const status = (await call(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/web')).body.status ?? {};
        return status.availableReplicas === pods && status.updatedReplicas === pods;
      },
      peak,
      'the Deployment to be available',
    );
    const downFrom = performance.now();
    await call(server, 'PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale', { spec: { replicas: 0 } }, 'application/merge-patch+json');
    const goneSeconds = await waitUntil(
      server,
      downFrom,
      async () => (await call(server, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app=web&limit=1')).body.items.length === 0,
      peak,
      'the Pods to go',
    );
    return { readySeconds, goneSeconds, peakRssMb: peak.rss };
  } finally {
    await server.stop();
  }
}

async function plainCreates(pods: number): Promise<Sample> {
  const server = await start();
  try {
    await call(server, 'GET', '/api/v1/namespaces/default/pods?limit=1');
    const peak = { rss: rssMb(server.child.pid!) };
    const began = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < pods) {
          const index = next++;
          const answer = await call(server, 'POST', '/api/v1/namespaces/default/pods', {
            ...template('plain'),
            metadata: { name: `plain-${index}`, labels: { app: 'plain' } },
          });
          if (answer.status !== 201) throw new Error(`pod create answered ${answer.status}`);
        }
      }),
    );
    const readySeconds = await waitUntil(server, began, () => podsReady(server, 'plain', pods), peak, 'the Pods to be Ready');
    const downFrom = performance.now();
    await call(server, 'DELETE', '/api/v1/namespaces/default/pods?labelSelector=app=plain');
    const goneSeconds = await waitUntil(
      server,
      downFrom,
      async () => (await call(server, 'GET', '/api/v1/namespaces/default/pods?labelSelector=app=plain&limit=1')).body.items.length === 0,
      peak,
      'the Pods to go',
    );
    return { readySeconds, goneSeconds, peakRssMb: peak.rss };
  } finally {
    await server.stop();
  }
}

/** bench measures a Deployment's 0 → N → 0 against N plain Pod creates, with the simulation on. */
export const bench: Bench = async ({ rounds, quick }) => {
  const pods = quick ? 200 : 1000;
  const deploymentSamples: Sample[] = [];
  const plainSamples: Sample[] = [];
  await interleaved(rounds, [
    {
      label: 'plain creates',
      measure: async () => {
        const sample = await plainCreates(pods);
        plainSamples.push(sample);
        return sample.readySeconds;
      },
    },
    {
      label: 'deployment',
      measure: async () => {
        const sample = await throughDeployment(pods);
        deploymentSamples.push(sample);
        return sample.readySeconds;
      },
    },
  ]);
  const rate = (samples: readonly Sample[]) => samples.map((sample) => pods / sample.readySeconds);
  return [
    metricOf({
      metric: `workloads: Deployment 0 → ${pods} Pods all Ready`,
      unit: 'Pods/s',
      fogbank: rate(deploymentSamples),
      baseline: { label: `${pods} plain Pod creates to Ready`, samples: rate(plainSamples) },
      goal: atLeast(KWOK_PODS_PER_SECOND, 'Pods/s (kwok)'),
      note: `kwok's README: "can create 20 nodes or pods per second"; one fake Node, --pod-ready-delay 0, memory store, fresh process a round`,
    }),
    metricOf({
      metric: `workloads: Deployment ${pods} → 0 Pods all gone`,
      unit: 's',
      fogbank: deploymentSamples.map((sample) => sample.goneSeconds),
      baseline: { label: 'deletecollection of the plain Pods', samples: plainSamples.map((sample) => sample.goneSeconds) },
    }),
    metricOf({
      metric: `workloads: peak RSS, Deployment of ${pods} Pods`,
      unit: 'MB',
      fogbank: deploymentSamples.map((sample) => sample.peakRssMb),
      baseline: { label: 'plain creates', samples: plainSamples.map((sample) => sample.peakRssMb) },
    }),
  ];
};

runAlone(import.meta, bench);
