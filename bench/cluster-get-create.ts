import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { startPostgres, type PostgresServer } from '../src/store/postgres-server.fixture.ts';

/**
 * Cluster API throughput against a bare node:http server doing the same requests, in the same
 * run: GET one ClusterRole by name (goal ≥ 0.5× bare) and create an Event with the SQLite store
 * (goal ≥ 0.25× bare), each also with the PostgreSQL store (a temporary local server, see
 * postgres-server.fixture.ts) with synchronous_commit=off (the durability SQLite's
 * synchronous=NORMAL gives) and with its default (fsync on every commit). Runs the bundled CLI,
 * as users do.
 */
const main = ensureBuilt();
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

async function measure(label: string, args: string[], requests: (prefix: string) => autocannon.Request[]): Promise<{ label: string; result: LoadResult }> {
  const server = await startProcess(args);
  try {
    await seed(server.url);
    await runLoad({ url: server.url, requests: requests('warm'), seconds: 2 });
    return { label, result: await runLoad({ url: server.url, requests: requests('t') }) };
  } finally {
    await server.stop();
  }
}

const dirs: string[] = [];
const fresh = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
  dirs.push(dir);
  return dir;
};
const fogbank = (store: 'memory' | 'sqlite'): string[] =>
  store === 'memory'
    ? [main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']
    : [main, 'start', '--port', '0', '--data-dir', fresh(), '--admin-token', TOKEN, '--log-level', 'warn'];

// One PostgreSQL server per setting for the whole run, a fresh database per measurement.
const postgres: [string, PostgresServer][] = [
  ['sync_commit off', await startPostgres({ synchronous_commit: 'off' })],
  ['fsync/commit', await startPostgres({})],
];
let databases = 0;
const onPostgres = async (requests: (prefix: string) => autocannon.Request[]): Promise<{ label: string; result: LoadResult }[]> => {
  const rows: { label: string; result: LoadResult }[] = [];
  for (const [setting, server] of postgres) {
    const url = await server.createDatabase(`bench_${++databases}`);
    rows.push(
      await measure(
        `fogbank postgres (${setting})`,
        [main, 'start', '--port', '0', '--store', url, '--data-dir', fresh(), '--admin-token', TOKEN, '--log-level', 'warn'],
        requests,
      ),
    );
  }
  return rows;
};

const gets = [
  await measure('bare node:http', [...BARE_SERVER], () => getRole),
  await measure('fogbank --ephemeral (memory)', fogbank('memory'), () => getRole),
  await measure('fogbank sqlite', fogbank('sqlite'), () => getRole),
  ...(await onPostgres(() => getRole)),
];
printTable('GET one ClusterRole by name (16 connections); goal ≥ 0.5× bare', gets);
console.log('');
const creates = [
  await measure('bare node:http', [...BARE_SERVER], createEvent),
  await measure('fogbank sqlite', fogbank('sqlite'), createEvent),
  await measure('fogbank --ephemeral (memory)', fogbank('memory'), createEvent),
  ...(await onPostgres(createEvent)),
];
printTable('create an events.k8s.io/v1 Event (16 connections); goal ≥ 0.25× bare with SQLite', creates);
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
for (const [, server] of postgres) await server.stop();
