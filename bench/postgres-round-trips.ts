import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs, ensureBuilt, startProcess } from './lib/processes.ts';
import { atMost, metricOf, runAlone, type Bench, type BenchMetric } from './lib/report.ts';
import { startPostgres } from '../src/testing/postgres-server.ts';

/**
 * What one request costs the PostgreSQL store, counted rather than timed (so a loaded machine
 * does not blur it): round trips to the database per GET of a ClusterRole and per Event create,
 * one request in flight and 16, and the CPU time fogbank and the database server spend per
 * request. fogbank reaches PostgreSQL through a counting proxy: every Query ('Q', simple
 * protocol) and Sync ('S', the end of an extended-protocol exchange) a client sends is one round
 * trip. Goals: a GET is one revision read alone and shares it under load (≤ 0.5 round trips), a
 * create costs its group's BEGIN and COMMIT alone (2) and shares them under load (≤ 0.5); the
 * background work (the feed's poll once a second, lease renewals) is counted in.
 */
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';

/** SSL_REQUEST is the startup code of a client asking for TLS (answered by one byte, then a new startup). */
const SSL_REQUEST = 80877103;

/** countingProxy forwards loopback connections to `port`, counting the round trips clients start. */
async function countingProxy(port: number): Promise<{ server: Server; port: number; roundTrips: () => number }> {
  let roundTrips = 0;
  const server = createServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on('data', (data) => {
      upstream.write(data);
      pending = Buffer.concat([pending, data]);
      for (;;) {
        if (!started) {
          // The startup message has no type byte: length, then a protocol code.
          if (pending.length < 8 || pending.length < pending.readInt32BE(0)) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(pending.readInt32BE(0));
          if (code !== SSL_REQUEST) started = true;
          continue;
        }
        if (pending.length < 5 || pending.length < 1 + pending.readInt32BE(1)) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'Q' || type === 'S') roundTrips++;
        pending = pending.subarray(1 + pending.readInt32BE(1));
      }
    });
    upstream.on('data', (data) => socket.write(data));
    for (const [from, to] of [
      [socket, upstream],
      [upstream, socket],
    ] as const) {
      from.on('error', () => to.destroy());
      from.on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, roundTrips: () => roundTrips };
}

/** serverCpuMs is the CPU time of the PostgreSQL server listening on `port` and its backends. */
function serverCpuMs(port: number): number {
  const pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  const postmaster = pids.find((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000');
      return args.some((arg) => arg.endsWith('postgres')) && args.includes('-p') && args[args.indexOf('-p') + 1] === String(port);
    } catch {
      return false;
    }
  });
  if (postmaster === undefined) throw new Error(`no PostgreSQL server on port ${port}`);
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      if (pid === postmaster || parent === postmaster) total += cpuMs(Number(pid));
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

const event = (name: string) => ({
  metadata: { name },
  eventTime: '2025-01-01T00:00:00.000000Z',
  reportingController: 'example.com/bench',
  reportingInstance: 'bench-1',
  action: 'Measure',
  reason: 'Measured',
  type: 'Normal',
  note: 'a benchmark event',
  regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
});

/** bench counts round trips and CPU per request; see the file comment. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const requests = quick ? 300 : 1000;
  const postgres = await startPostgres({ synchronous_commit: 'off' });
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-'));
  const proxy = await countingProxy(postgres.port);
  try {
    const url = (await postgres.createDatabase('bench_round_trips')).replace(`:${postgres.port}/`, `:${proxy.port}/`);
    const fogbank = await startProcess([main, 'start', '--port', '0', '--store', url, '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn']);
    try {
      const call = async (method: 'GET' | 'POST', path: string, body?: unknown, status = 200): Promise<void> => {
        const response = await fetch(`${fogbank.url}${path}`, {
          method,
          headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        await response.arrayBuffer();
        if (response.status !== status) throw new Error(`${method} ${path}: ${response.status}`);
      };
      await call('POST', ROLE, { metadata: { name: 'bench-reader' }, rules: [] }, 201);
      let created = 0;
      const operations = {
        GET: () => call('GET', `${ROLE}/bench-reader`),
        create: () => call('POST', EVENTS, event(`e-${created++}`), 201),
      };
      // Warm-up: prepared statements, pools, JIT.
      for (let i = 0; i < 50; i++) await Promise.all([operations.GET(), operations.create()]);
      const metrics: BenchMetric[] = [];
      for (const inFlight of [1, 16]) {
        for (const [name, operation] of Object.entries(operations)) {
          const trips: number[] = [];
          const ownCpu: number[] = [];
          const databaseCpu: number[] = [];
          for (let round = 0; round < rounds; round++) {
            const before = { trips: proxy.roundTrips(), own: cpuMs(fogbank.child.pid!), database: serverCpuMs(postgres.port) };
            let next = 0;
            await Promise.all(
              Array.from({ length: inFlight }, async () => {
                while (next < requests) {
                  next++;
                  await operation();
                }
              }),
            );
            trips.push((proxy.roundTrips() - before.trips) / requests);
            ownCpu.push(((cpuMs(fogbank.child.pid!) - before.own) * 1000) / requests);
            databaseCpu.push(((serverCpuMs(postgres.port) - before.database) * 1000) / requests);
          }
          // Alone, the feed's poll (once a second) and lease renewals add a few hundredths.
          const goal = name === 'GET' ? (inFlight === 1 ? 1.1 : 0.5) : inFlight === 1 ? 2.1 : 0.5;
          metrics.push(
            metricOf({ metric: `postgres round trips per ${name}, ${inFlight} in flight`, unit: 'trips', fogbank: trips, goal: atMost(goal, 'trips') }),
            metricOf({ metric: `fogbank CPU per ${name} on postgres, ${inFlight} in flight`, unit: 'µs', fogbank: ownCpu }),
            metricOf({ metric: `PostgreSQL CPU per ${name}, ${inFlight} in flight`, unit: 'µs', fogbank: databaseCpu }),
          );
        }
      }
      return metrics;
    } finally {
      await fogbank.stop();
    }
  } finally {
    proxy.server.close();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

runAlone(import.meta, bench);
