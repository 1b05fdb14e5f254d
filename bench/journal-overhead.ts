import type autocannon from 'autocannon';
import { loadSeconds, runLoad } from './lib/load.ts';
import { startProcess } from './lib/processes.ts';
import { type Bench, type BenchMetric, interleaved, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * What the request journal costs a GET: the same server (memory store, one family answering GET
 * of a ClusterRole and of a missing instance template) with the journal off (`journalSize: 0`,
 * no hook at all, the baseline) and on (the default 1,000), interleaved round by round, so machine
 * noise falls on both. Goal: the journaled figure within noise of the first (≥ 0.95×).
 */
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };

/** serverScript starts fogbank in a child process with the given journal size and prints its URL. */
function serverScript(journalSize: number): string[] {
  const code = `const { startFogbank } = await import('./src/fogbank.ts');
const fb = await startFogbank({ port: 0, ephemeral: true, adminToken: '${TOKEN}', journalSize: ${journalSize} });
await fb.warmUp();
console.log('listening on ' + fb.url);
process.on('SIGTERM', () => fb.close().then(() => process.exit(0)));`;
  return ['--import', 'tsx', '--input-type=module', '-e', code];
}

const targets: Record<string, autocannon.Request[]> = {
  'GET clusterrole, journal on': [{ method: 'GET', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', headers: auth }],
  'compute GET (404), journal on': [{ method: 'GET', path: '/compute/v1/projects/p/global/instanceTemplates/missing', headers: auth }],
};

/** bench measures req/s with the journal on against the same server with it off. */
export const bench: Bench = async ({ rounds, quick }) => {
  const metrics: BenchMetric[] = [];
  for (const [name, requests] of Object.entries(targets)) {
    const side = (size: number) => ({
      label: size === 0 ? 'journal off' : 'journal on',
      measure: async () => {
        const server = await startProcess(serverScript(size));
        try {
          // A short warm-up so both start from a compiled hot path.
          await runLoad({ url: server.url, requests, seconds: 1 });
          return (await runLoad({ url: server.url, requests, seconds: loadSeconds(quick) })).requestsPerSecond;
        } finally {
          await server.stop();
        }
      },
    });
    const [off, on] = await interleaved(rounds, [side(0), side(1000)]);
    metrics.push(
      metricOf({ metric: name, unit: 'req/s', fogbank: on, baseline: { label: 'journal off', samples: off }, goal: ratioAtLeast(0.95, 'journal off') }),
    );
  }
  return metrics;
};

runAlone(import.meta, bench);
