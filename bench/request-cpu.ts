import autocannon from 'autocannon';
import { BARE_SERVER, cpuMs, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, ratioAtMost, runAlone, type Side } from './lib/report.ts';

/**
 * CPU time per request of the server process, fogbank against a bare node:http server doing the
 * same requests (and fogbank with its request journal on against off), interleaved round by round.
 * Throughput ratios on a machine other work shares move with that work; the server's own CPU time
 * per request (user + system, from /proc, over a fixed number of requests driven from this
 * process) moves far less, though caches and cores shared with other processes still inflate it:
 * each round's sample is the least of BATCHES batches on the same warmed server (the batch least
 * disturbed), and on a machine loaded several times over its cores more rounds are needed
 * (`--rounds 5`). A throughput goal of ≥ 0.8× bare is
 * ≤ 1.25× bare here (a server bound by its CPU answers 1 / its CPU per request), ≥ 0.95× journal
 * off is ≤ 1.053×. Runs the bundled CLI, memory store, as users do.
 */
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const CONNECTIONS = 8;
/** BATCHES is how many measured batches a round's sample is the least of. */
const BATCHES = 3;

/** ROLE_BODY is bench/cluster-get-create.ts's ClusterRole; TEMPLATE bench/compute-insert-get.ts's instance template. */
const ROLE_BODY = {
  metadata: { name: 'bench-reader' },
  rules: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get', 'list', 'watch'] },
  ],
};
const TEMPLATE = {
  name: 'bench-template',
  properties: {
    machineType: 'e2-small',
    disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
    networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }] }],
  },
};

type Target = 'cluster' | 'compute';
const PATHS: Record<Target, string> = { cluster: `${ROLE}/bench-reader`, compute: `${TEMPLATES}/${TEMPLATE.name}` };

async function seed(url: string, bare: boolean): Promise<void> {
  const post = async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.status >= 300) throw new Error(`seeding ${path} failed: ${response.status} ${await response.text()}`);
  };
  // The bare server keys what it keeps by a top-level `name`.
  await post(ROLE, bare ? { name: 'bench-reader', ...ROLE_BODY } : ROLE_BODY);
  await post(TEMPLATES, TEMPLATE);
}

/** drive sends `amount` GETs of one path over CONNECTIONS keep-alive connections and fails on any non-2xx. */
async function drive(url: string, path: string, amount: number): Promise<void> {
  const result = await autocannon({ url, connections: CONNECTIONS, amount, requests: [{ method: 'GET', path, headers: auth }] });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
}

/** side measures one server's CPU µs per request for one target: a fresh server per round, seeded and warmed up first. */
function side(label: string, args: () => string[], bare: boolean, target: Target, requests: number): Side {
  return {
    label,
    measure: async () => {
      const server = await startProcess(args());
      try {
        await seed(server.url, bare);
        await drive(server.url, PATHS[target], Math.max(2000, requests >> 1));
        const pid = server.child.pid!;
        const batch = Math.ceil(requests / BATCHES);
        let least = Number.POSITIVE_INFINITY;
        for (let i = 0; i < BATCHES; i++) {
          const before = cpuMs(pid);
          await drive(server.url, PATHS[target], batch);
          least = Math.min(least, ((cpuMs(pid) - before) * 1000) / batch);
        }
        return least;
      } finally {
        await server.stop();
      }
    },
  };
}

/** bench measures CPU µs per GET by name: cluster and compute against bare node:http, the journal on against off. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const requests = Number(process.env['REQUESTS'] ?? (quick ? 10_000 : 30_000));
  const fogbank = (journal: boolean) => () => [
    main,
    'start',
    '--port',
    '0',
    '--ephemeral',
    '--admin-token',
    TOKEN,
    '--log-level',
    'warn',
    '--operations',
    'instant',
    ...(journal ? [] : ['--journal-size', '0']),
  ];
  const bare = () => [...BARE_SERVER];
  const [bareCluster, fogbankCluster, journalOffCluster, bareCompute, fogbankCompute, journalOffCompute] = await interleaved(rounds, [
    side('bare node:http', bare, true, 'cluster', requests),
    side('fogbank', fogbank(true), false, 'cluster', requests),
    side('fogbank, journal off', fogbank(false), false, 'cluster', requests),
    side('bare node:http', bare, true, 'compute', requests),
    side('fogbank', fogbank(true), false, 'compute', requests),
    side('fogbank, journal off', fogbank(false), false, 'compute', requests),
  ]);
  const note = `server CPU (user + system) per GET, the least of ${BATCHES} batches of ${Math.ceil(requests / BATCHES).toLocaleString('en-US')} on ${CONNECTIONS} keep-alive connections, admin token, memory store, instant Operations`;
  const metrics: BenchMetric[] = [
    metricOf({
      metric: 'cluster GET ClusterRole by name, CPU per request',
      unit: 'µs',
      fogbank: fogbankCluster,
      baseline: { label: 'bare node:http', samples: bareCluster },
      goal: ratioAtMost(1.25),
      note,
    }),
    metricOf({
      metric: 'compute GET instance template by name, CPU per request',
      unit: 'µs',
      fogbank: fogbankCompute,
      baseline: { label: 'bare node:http', samples: bareCompute },
      goal: ratioAtMost(1.25),
    }),
    metricOf({
      metric: 'cluster GET, journal on, CPU per request',
      unit: 'µs',
      fogbank: fogbankCluster,
      baseline: { label: 'journal off', samples: journalOffCluster },
      goal: ratioAtMost(1.053, 'journal off'),
    }),
    metricOf({
      metric: 'compute GET, journal on, CPU per request',
      unit: 'µs',
      fogbank: fogbankCompute,
      baseline: { label: 'journal off', samples: journalOffCompute },
      goal: ratioAtMost(1.053, 'journal off'),
    }),
  ];
  return metrics;
};

runAlone(import.meta, bench);
