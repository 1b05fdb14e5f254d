import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess, type Started } from './lib/processes.ts';
import { interleaved, metricOf, ratioAtLeast, runAlone, type Bench, type BenchMetric } from './lib/report.ts';
import { startPostgres } from '../src/testing/postgres-server.ts';

/**
 * The PostgreSQL store through fogbank: GET one ClusterRole by name and create an
 * events.k8s.io/v1 Event, 16 connections, against a bare node:http server and against fogbank
 * on SQLite, all three started once and measured interleaved (bare, sqlite, postgres, bare, …)
 * so background load falls on every side alike. PostgreSQL is a temporary local server with
 * synchronous_commit=off: the durability SQLite's synchronous=NORMAL gives (committed to the
 * OS, flushed later). Goals (issue 27): ≥ 0.5× bare and ≥ 0.5× the SQLite figure, each.
 */
const TOKEN = 'bench';
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const auth = { authorization: `Bearer ${TOKEN}` };

const getRole: autocannon.Request[] = [{ method: 'GET', path: `${ROLE}/bench-reader`, headers: auth }];

function createEvent(prefix: string): autocannon.Request[] {
  let counter = 0;
  return [
    {
      method: 'POST',
      path: EVENTS,
      headers: { ...auth, 'content-type': 'application/json' },
      setupRequest: (request) => ({
        ...request,
        body: JSON.stringify({
          metadata: { name: `${prefix}-${counter++}` },
          eventTime: '2025-01-01T00:00:00.000000Z',
          reportingController: 'example.com/bench',
          reportingInstance: 'bench-1',
          action: 'Measure',
          reason: 'Measured',
          type: 'Normal',
          note: 'a benchmark event',
          regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
        }),
      }),
    },
  ];
}

async function seed(url: string): Promise<void> {
  const response = await fetch(`${url}${ROLE}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }),
  });
  // The bare server answers 200 to everything; fogbank 201.
  if (response.status >= 300) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
}

/** load runs one measurement and returns its requests per second, refusing a run with failures. */
async function load(server: Started, requests: autocannon.Request[], seconds: number): Promise<number> {
  const result = await runLoad({ url: server.url, requests, seconds });
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${server.url}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
  return result.requestsPerSecond;
}

/** bench measures GET and create on the three servers; see the file comment. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
    dirs.push(dir);
    return dir;
  };
  const postgres = await startPostgres({ synchronous_commit: 'off' });
  const servers: Started[] = [];
  try {
    const start = async (args: string[]): Promise<Started> => {
      const server = await startProcess(args);
      servers.push(server);
      await seed(server.url);
      return server;
    };
    const common = ['start', '--port', '0', '--admin-token', TOKEN, '--log-level', 'warn'];
    const bare = await start([...BARE_SERVER]);
    const sqlite = await start([main, ...common, '--data-dir', fresh()]);
    const onPostgres = await start([main, ...common, '--store', await postgres.createDatabase('bench_store'), '--data-dir', fresh()]);
    // Warm-up: JIT, caches, connection pools.
    for (const server of [bare, sqlite, onPostgres]) {
      await load(server, getRole, 1);
      await load(server, createEvent('warm'), 1);
    }
    let batch = 0;
    const side = (label: string, server: Started, requests: () => autocannon.Request[]) => ({ label, measure: () => load(server, requests(), seconds) });
    const three = (requests: () => autocannon.Request[]) =>
      [side('bare node:http', bare, requests), side('fogbank sqlite', sqlite, requests), side('fogbank postgres', onPostgres, requests)] as const;
    const gets = await interleaved(
      rounds,
      three(() => getRole),
    );
    const creates = await interleaved(
      rounds,
      three(() => createEvent(`b${++batch}`)),
    );
    const metrics: BenchMetric[] = [];
    for (const [what, [bareSamples, sqliteSamples, postgresSamples]] of [
      ['GET ClusterRole by name', gets],
      ['create Event', creates],
    ] as const) {
      metrics.push(
        metricOf({
          metric: `postgres: ${what}`,
          unit: 'req/s',
          fogbank: postgresSamples,
          baseline: { label: 'bare node:http', samples: bareSamples },
          goal: ratioAtLeast(0.5),
        }),
        metricOf({
          metric: `postgres: ${what}, against SQLite`,
          unit: 'req/s',
          fogbank: postgresSamples,
          baseline: { label: 'fogbank sqlite', samples: sqliteSamples },
          goal: ratioAtLeast(0.5, 'SQLite'),
        }),
        metricOf({
          metric: `sqlite: ${what} (the SQLite figure)`,
          unit: 'req/s',
          fogbank: sqliteSamples,
          baseline: { label: 'bare node:http', samples: bareSamples },
          note: 'measured in the same rounds, for the ratio above',
        }),
      );
    }
    return metrics;
  } finally {
    for (const server of servers) await server.stop();
    await postgres.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
};

runAlone(import.meta, bench);
