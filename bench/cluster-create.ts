// bench/cluster-create.ts measures durable creates on the cluster API: each request creates a new
// events.k8s.io/v1 Event on the built fogbank with the SQLite store (the default: acknowledged
// only once committed), against the bare node:http server (parses the JSON body, keeps it in a
// Map), interleaved round by round, a fresh process (and data directory) each round.
// Goal (issue 27): ≥ 0.5× bare. Run alone: node --import tsx bench/cluster-create.ts [--rounds N] [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

const TOKEN = 'bench';
let counter = 0;

const createEvent: autocannon.Request[] = [
  {
    method: 'POST',
    path: '/apis/events.k8s.io/v1/namespaces/default/events',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    // A new name per request: every one is a create.
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({
        metadata: { name: `e${counter++}` },
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

/** bench measures Event creates per second, SQLite against bare. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const side = (label: string, args: (dir: string) => string[]) => ({
    label,
    measure: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-create-'));
      const server = await startProcess(args(dir));
      try {
        await runLoad({ url: server.url, requests: createEvent, seconds: 2 });
        const result = await runLoad({ url: server.url, requests: createEvent, seconds });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
        return result.requestsPerSecond;
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  });
  const [bare, sqlite] = await interleaved(rounds, [
    side('bare node:http', () => [...BARE_SERVER]),
    side('fogbank sqlite', (dir) => [main, 'start', '--port', '0', '--data-dir', dir, '--admin-token', TOKEN, '--log-level', 'warn']),
  ]);
  return [
    metricOf({
      metric: 'cluster create Event (SQLite, durable)',
      unit: 'req/s',
      fogbank: sqlite,
      baseline: { label: 'bare node:http', samples: bare },
      goal: ratioAtLeast(0.5),
      note: `16 connections, ${seconds} s a side after 2 s of warm-up`,
    }),
  ];
};

runAlone(import.meta, bench);
