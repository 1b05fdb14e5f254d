// bench/compute-insert.ts measures durable creates on the compute API: each connection inserts an
// instance template under a new name (instant Operations: the answer is the DONE Operation, the
// template committed with it) and reads it back, on the built fogbank with the SQLite store,
// against the bare node:http server doing the same (POST keeps the body by name, GET returns it),
// interleaved round by round, a fresh process (and data directory) each round.
// Goal (issue 27): ≥ 0.5× bare. Run alone: node --import tsx bench/compute-insert.ts [--rounds N] [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

const TOKEN = 'bench';
const TEMPLATES = '/compute/v1/projects/p/global/instanceTemplates';
const auth = { authorization: `Bearer ${TOKEN}` };
let counter = 0;

interface Cycle {
  name?: string;
}

const insertAndGet: autocannon.Request[] = [
  {
    method: 'POST',
    path: TEMPLATES,
    headers: { ...auth, 'content-type': 'application/json' },
    setupRequest: (request, context: Cycle) => {
      context.name = `t${counter++}`;
      return {
        ...request,
        body: JSON.stringify({
          name: context.name,
          properties: {
            machineType: 'e2-small',
            disks: [{ boot: true, autoDelete: true, initializeParams: { sourceImage: 'projects/debian-cloud/global/images/family/debian-12' } }],
            networkInterfaces: [{ network: 'global/networks/default', accessConfigs: [{ name: 'external-nat', type: 'ONE_TO_ONE_NAT' }] }],
          },
        }),
      };
    },
  },
  { method: 'GET', path: TEMPLATES, headers: auth, setupRequest: (request, context: Cycle) => ({ ...request, path: `${TEMPLATES}/${context.name}` }) },
];

/** bench measures insert + get requests per second, SQLite against bare. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const side = (label: string, args: (dir: string) => string[]) => ({
    label,
    measure: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-insert-'));
      const server = await startProcess(args(dir));
      try {
        await runLoad({ url: server.url, requests: insertAndGet, seconds: 2 });
        const result = await runLoad({ url: server.url, requests: insertAndGet, seconds });
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
    side('fogbank sqlite', (dir) => [
      main,
      'start',
      '--port',
      '0',
      '--data-dir',
      dir,
      '--admin-token',
      TOKEN,
      '--log-level',
      'warn',
      '--operations',
      'instant',
    ]),
  ]);
  return [
    metricOf({
      metric: 'compute instance template insert + get (SQLite, durable)',
      unit: 'req/s',
      fogbank: sqlite,
      baseline: { label: 'bare node:http', samples: bare },
      goal: ratioAtLeast(0.5),
      note: `instant Operations, 16 connections, ${seconds} s a side after 2 s of warm-up; requests (POST and GET) per second`,
    }),
  ];
};

runAlone(import.meta, bench);
