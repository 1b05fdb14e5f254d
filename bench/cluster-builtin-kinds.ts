import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * A built-in kind served by the generic, schema-driven strategy against a dedicated one: GET one
 * Pod and GET one ClusterRole by name on the same server, at the same concurrency, interleaved
 * with a bare node:http server doing the same requests. Goal: a Pod as fast as a ClusterRole
 * (written as Pod ≥ 0.9× ClusterRole, the noise of one run); each is also shown against bare.
 */
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const PODS = '/api/v1/namespaces/default/pods';

async function post(url: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`seeding ${path} failed: ${response.status} ${await response.text()}`);
}

async function seed(url: string): Promise<void> {
  await post(url, ROLE, { metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
  await post(url, PODS, {
    metadata: { name: 'bench-pod', labels: { app: 'bench' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
  });
}

const requestsFor = (path: string): autocannon.Request[] => [{ method: 'GET', path, headers: auth }];

/** bench measures GET of a Pod and of a ClusterRole on one fogbank, and the same GET on bare node:http. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const bare = await startProcess([...BARE_SERVER]);
  // One fogbank for both kinds, so the two differ only by the strategy serving them.
  const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
  try {
    await seed(server.url);
    for (const [url, path] of [
      [bare.url, `${PODS}/bench-pod`],
      [server.url, `${ROLE}/bench-reader`],
      [server.url, `${PODS}/bench-pod`],
    ] as const)
      await runLoad({ url, requests: requestsFor(path), seconds: 1 });
    const side = (label: string, url: string, path: string) => ({
      label,
      measure: async () => (await runLoad({ url, requests: requestsFor(path), seconds })).requestsPerSecond,
    });
    const [bareGet, role, pod] = await interleaved(rounds, [
      side('bare node:http', bare.url, `${PODS}/bench-pod`),
      side('GET ClusterRole', server.url, `${ROLE}/bench-reader`),
      side('GET Pod', server.url, `${PODS}/bench-pod`),
    ]);
    return [
      metricOf({
        metric: 'GET Pod (generic strategy) vs ClusterRole (dedicated)',
        unit: 'req/s',
        fogbank: pod,
        baseline: { label: 'GET ClusterRole', samples: role },
        goal: ratioAtLeast(0.9, 'ClusterRole'),
      }),
      metricOf({ metric: 'GET Pod by name', unit: 'req/s', fogbank: pod, baseline: { label: 'bare node:http', samples: bareGet } }),
      metricOf({ metric: 'GET ClusterRole by name', unit: 'req/s', fogbank: role, baseline: { label: 'bare node:http', samples: bareGet } }),
    ];
  } finally {
    await server.stop();
    await bare.stop();
  }
};

runAlone(import.meta, bench);
