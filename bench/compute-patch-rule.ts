// bench/compute-patch-rule.ts measures patchRule throughput on the built fogbank (SQLite, the
// default store, and the memory store; instant Operations, so every request validates, merges,
// type-checks the expression, commits the policy with its history entry and answers a DONE
// Operation) against the bare node:http server (parses the JSON body, answers a small JSON),
// interleaved round by round, a fresh process each round. Goal (issue 27): SQLite ≥ 0.3× bare.
// Run alone: node --import tsx bench/compute-patch-rule.ts [--rounds N] [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { type Bench, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

const TOKEN = 'bench-token';
const POLICY = '/compute/v1/projects/p/regions/us-central1/securityPolicies/pol';
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

// What gcloud sends for `rules update 1000 --action=deny-403 --expression=…`, alternating two
// actions so every request really changes the rule.
const requests: autocannon.Request[] = ['deny(403)', 'allow'].map((action) => ({
  method: 'POST',
  path: `${POLICY}/patchRule?priority=1000&updateMask=redirect_options,rate_limit_options`,
  headers,
  body: JSON.stringify({ priority: 1000, action, match: { expr: { expression: "request.path.startsWith('/admin') && inIpRange(origin.ip, '10.0.0.0/8')" } } }),
}));

async function call(url: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

async function fingerprint(url: string): Promise<string> {
  return ((await (await fetch(`${url}${POLICY}`, { headers })).json()) as { fingerprint: string }).fingerprint;
}

/** bench measures patchRule requests per second against bare, a fresh fogbank process (and data directory) each round. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const measure = async (url: string, isFogbank: boolean): Promise<number> => {
    const before = isFogbank ? await fingerprint(url) : '';
    await runLoad({ url, requests, seconds: 2 });
    const result = await runLoad({ url, requests, seconds });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    if (isFogbank && (await fingerprint(url)) === before) throw new Error('patchRule did not change the policy: the benchmark measured nothing');
    return result.requestsPerSecond;
  };
  const fogbankSide = (label: string, store: string[]) => ({
    label,
    measure: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-patch-'));
      const server = await startProcess([
        main,
        'start',
        '--port',
        '0',
        '--admin-token',
        TOKEN,
        '--log-level',
        'warn',
        '--operations',
        'instant',
        ...(store.length > 0 ? store : ['--data-dir', dir]),
      ]);
      try {
        await call(server.url, '/compute/v1/projects/p/regions/us-central1/securityPolicies', { name: 'pol' });
        await call(server.url, `${POLICY}/addRule`, { priority: 1000, action: 'allow', match: { expr: { expression: 'true' } } });
        return await measure(server.url, true);
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  });
  const [bare, sqlite, memory] = await interleaved(rounds, [
    {
      label: 'bare node:http',
      measure: async () => {
        const server = await startProcess([...BARE_SERVER]);
        try {
          return await measure(server.url, false);
        } finally {
          await server.stop();
        }
      },
    },
    fogbankSide('fogbank sqlite', []),
    fogbankSide('fogbank memory', ['--ephemeral']),
  ]);
  const baseline = { label: 'bare node:http', samples: bare };
  const note = `instant Operations, 16 connections, ${seconds} s a side after 2 s of warm-up`;
  return [
    metricOf({ metric: 'patchRule (SQLite)', unit: 'req/s', fogbank: sqlite, baseline, goal: ratioAtLeast(0.3), note }),
    metricOf({ metric: 'patchRule (memory)', unit: 'req/s', fogbank: memory, baseline }),
  ];
};

runAlone(import.meta, bench);
