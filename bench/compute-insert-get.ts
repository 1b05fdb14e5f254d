import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, ratioAtLeast, runAlone, type Side } from './lib/report.ts';

/**
 * Instance template throughput against a bare node:http server doing the same requests,
 * interleaved round by round in the same run, the load generator (autocannon, 16 connections) in
 * 2 worker threads: GET one instance template by name (goal ≥ 0.8× bare, memory and SQLite
 * stores), and insert + get (each connection inserts a template with instant Operations and
 * reads it back; SQLite, shown for information: the durable-create goal is perf-write's). The
 * bare server is seeded with the same template body, so a GET answers JSON of about the same
 * size. Runs the bundled CLI, as users do. (PostgreSQL figures are bench/store.ts's and
 * bench/postgres-store.ts's.)
 */
const TOKEN = 'bench';
const PATH = '/compute/v1/projects/p/global/instanceTemplates';
const WORKERS = 2;
const auth = { authorization: `Bearer ${TOKEN}` };

/** TEMPLATE is the body of the template read back (the insert cycle's module sends the same shape). */
const TEMPLATE = {
  name: 'bench-template',
  properties: {
    machineType: 'e2-small',
    disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
    networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }] }],
  },
};

const getTemplate: autocannon.Request[] = [{ method: 'GET', path: `${PATH}/${TEMPLATE.name}`, headers: auth }];

// A module (worker threads cannot be handed a function): a new name per insert, the GET reads it back.
const cycleModule = join(import.meta.dirname, 'compute-insert-get.cycle.cjs');
const insertAndGet: autocannon.Request[] = [
  { method: 'POST', path: PATH, headers: { ...auth, 'content-type': 'application/json' }, setupRequest: cycleModule },
  { method: 'GET', path: PATH, headers: auth, setupRequest: cycleModule },
];

async function seed(url: string): Promise<void> {
  const response = await fetch(`${url}${PATH}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(TEMPLATE),
  });
  if (response.status >= 300) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
}

/** side measures req/s of one server for one request cycle: a fresh server per round, seeded and warmed up first. */
function side(label: string, args: () => string[], requests: autocannon.Request[], quick: boolean): Side {
  return {
    label,
    measure: async () => {
      const server = await startProcess(args());
      try {
        await seed(server.url);
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

/** bench measures GET by name and insert + get of instance templates against the bare server. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const dirs: string[] = [];
  const flags = ['--admin-token', TOKEN, '--operations', 'instant', '--log-level', 'warn'];
  const fogbank = (store: 'memory' | 'sqlite', requests: autocannon.Request[]): Side =>
    side(
      `fogbank ${store}`,
      () => {
        if (store === 'memory') return [main, 'start', '--port', '0', '--ephemeral', ...flags];
        const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
        dirs.push(dir);
        return [main, 'start', '--port', '0', '--data-dir', dir, ...flags];
      },
      requests,
      quick,
    );
  const bare = (requests: autocannon.Request[]): Side => side('bare node:http', () => [...BARE_SERVER], requests, quick);
  const metrics: BenchMetric[] = [];
  try {
    const [bareGet, memoryGet, sqliteGet] = await interleaved(rounds, [bare(getTemplate), fogbank('memory', getTemplate), fogbank('sqlite', getTemplate)]);
    const baseline = { label: 'bare node:http', samples: bareGet };
    metrics.push(
      metricOf({
        metric: 'compute GET instance template by name (memory)',
        unit: 'req/s',
        fogbank: memoryGet,
        baseline,
        goal: ratioAtLeast(0.8),
        note: `autocannon 16 connections in ${WORKERS} worker threads`,
      }),
      metricOf({ metric: 'compute GET instance template by name (SQLite)', unit: 'req/s', fogbank: sqliteGet, baseline, goal: ratioAtLeast(0.8) }),
    );
    const [bareCycle, sqliteCycle] = await interleaved(rounds, [bare(insertAndGet), fogbank('sqlite', insertAndGet)]);
    metrics.push(
      metricOf({
        metric: 'compute instance template insert + get (SQLite, instant Operations)',
        unit: 'req/s',
        fogbank: sqliteCycle,
        baseline: { label: 'bare node:http', samples: bareCycle },
        note: "for information here; the durable-create goal is perf-write's (bench/compute-insert.ts)",
      }),
    );
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
  return metrics;
};

runAlone(import.meta, bench);
