import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, ratioAtLeast, runAlone, type Side } from './lib/report.ts';

/**
 * Cluster API throughput against a bare node:http server doing the same requests, interleaved
 * round by round in the same run, the load generator (autocannon, 16 connections) in 2 worker
 * threads: GET one ClusterRole by name as the admin (system:masters) and as a user whose access
 * RBAC decides (goal ≥ 0.8× bare, memory and SQLite stores), and create an Event with the SQLite
 * store (shown for information: perf-write's goal). The bare server is seeded with the same
 * ClusterRole body, so it answers a GET with JSON of about the same size. Runs the bundled CLI,
 * as users do. (PostgreSQL figures are bench/store.ts's and bench/postgres-store.ts's.)
 */
const TOKEN = 'bench';
const READER_TOKEN = 'bench-reader-token';
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const WORKERS = 2;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

const getRole = (token: string): autocannon.Request[] => [{ method: 'GET', path: `${ROLE}/bench-reader`, headers: auth(token) }];

const createEvent: autocannon.Request[] = [
  {
    method: 'POST',
    path: EVENTS,
    headers: { ...auth(TOKEN), 'content-type': 'application/json' },
    // A module (worker threads cannot be handed a function): names each Event uniquely.
    setupRequest: join(import.meta.dirname, 'cluster-get-create.event.cjs'),
  },
];

/** ROLE_BODY is the ClusterRole read back (also what the bare server keeps, under its name). */
const ROLE_BODY = {
  metadata: { name: 'bench-reader' },
  rules: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['get', 'list', 'watch'] },
  ],
};

async function seed(url: string, bare: boolean): Promise<void> {
  const post = async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { ...auth(TOKEN), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    // The bare server answers 200 to everything; fogbank 201.
    if (response.status >= 300) throw new Error(`seeding ${path} failed: ${response.status} ${await response.text()}`);
  };
  // The bare server keys what it keeps by a top-level `name`.
  await post(ROLE, bare ? { name: 'bench-reader', ...ROLE_BODY } : ROLE_BODY);
  if (bare) return;
  // The reader's access comes from a binding of that same role (RBAC decides every request).
  await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'bench-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'bench-reader' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'reader@bench.example' }],
  });
}

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
  dirs.push(dir);
  return dir;
};

/** fogbankArgs starts the bundled CLI with the admin token and a reader token that is no admin. */
function fogbankArgs(main: string, store: 'memory' | 'sqlite', configFile: string): string[] {
  return [
    main,
    'start',
    '--port',
    '0',
    ...(store === 'memory' ? ['--ephemeral'] : ['--data-dir', fresh()]),
    '--admin-token',
    TOKEN,
    '--config',
    configFile,
    '--log-level',
    'warn',
  ];
}

/** side measures req/s of one server for one request cycle: a fresh server per round, seeded and warmed up first. */
function side(label: string, args: () => string[], bare: boolean, requests: autocannon.Request[], quick: boolean): Side {
  return {
    label,
    measure: async () => {
      const server = await startProcess(args());
      try {
        await seed(server.url, bare);
        await runLoad({ url: server.url, requests, seconds: 1, workers: WORKERS });
        const result = await runLoad({ url: server.url, requests, seconds: loadSeconds(quick), workers: WORKERS });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        return result.requestsPerSecond;
      } finally {
        await server.stop();
      }
    },
  };
}

/** bench measures GET by name (admin and RBAC-decided user) and Event create against the bare server. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const tokensDir = fresh();
  const tokensFile = join(tokensDir, 'config.json');
  writeFileSync(tokensFile, JSON.stringify({ tokens: [{ token: READER_TOKEN, email: 'reader@bench.example', scopes: ['cloud-platform'], permissions: [] }] }));
  const bare = (requests: autocannon.Request[]) => side('bare node:http', () => [...BARE_SERVER], true, requests, quick);
  const fogbank = (store: 'memory' | 'sqlite', requests: autocannon.Request[]) =>
    side(`fogbank ${store}`, () => fogbankArgs(main, store, tokensFile), false, requests, quick);
  const metrics: BenchMetric[] = [];
  try {
    const [bareGet, memoryGet, sqliteGet, readerGet] = await interleaved(rounds, [
      bare(getRole(TOKEN)),
      fogbank('memory', getRole(TOKEN)),
      fogbank('sqlite', getRole(TOKEN)),
      fogbank('memory', getRole(READER_TOKEN)),
    ]);
    const baseline = { label: 'bare node:http', samples: bareGet };
    const goal = ratioAtLeast(0.8);
    const note = `autocannon 16 connections in ${WORKERS} worker threads`;
    metrics.push(
      metricOf({ metric: 'cluster GET ClusterRole by name (admin, memory)', unit: 'req/s', fogbank: memoryGet, baseline, goal, note }),
      metricOf({ metric: 'cluster GET ClusterRole by name (admin, SQLite)', unit: 'req/s', fogbank: sqliteGet, baseline, goal }),
      metricOf({
        metric: 'cluster GET ClusterRole by name (RBAC user, memory)',
        unit: 'req/s',
        fogbank: readerGet,
        baseline,
        goal,
        note: 'a token user allowed by a ClusterRoleBinding: RBAC decides every request',
      }),
    );
    const [bareCreate, sqliteCreate] = await interleaved(rounds, [bare(createEvent), fogbank('sqlite', createEvent)]);
    metrics.push(
      metricOf({
        metric: 'cluster create Event (SQLite)',
        unit: 'req/s',
        fogbank: sqliteCreate,
        baseline: { label: 'bare node:http', samples: bareCreate },
        note: "for information here; the durable-create goal is perf-write's (bench/cluster-create.ts)",
      }),
    );
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  return metrics;
};

runAlone(import.meta, bench);
