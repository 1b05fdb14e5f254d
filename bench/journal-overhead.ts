import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { startProcess } from './lib/processes.ts';

/**
 * What the request journal costs a GET: the same server (memory store, one family answering GET
 * of a ClusterRole and of a missing instance template) with the journal off (`journalSize: 0`,
 * no hook at all) and on (the default 1,000), in alternating rounds of the same run, so machine
 * noise falls on both. Goal: the journaled rows within noise of the first (≥ 0.95×).
 */
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);

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
  'cluster GET clusterrole': [{ method: 'GET', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin', headers: auth }],
  'compute GET (404)': [{ method: 'GET', path: '/compute/v1/projects/p/global/instanceTemplates/missing', headers: auth }],
};

for (const [name, requests] of Object.entries(targets)) {
  const rows: { label: string; result: LoadResult }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of [0, 1000]) {
      const server = await startProcess(serverScript(size));
      // A short warm-up so both start from a compiled hot path.
      await runLoad({ url: server.url, requests, seconds: 1 });
      rows.push({ label: `${size === 0 ? 'journal off' : 'journal on '} round ${round + 1}`, result: await runLoad({ url: server.url, requests }) });
      await server.stop();
    }
  }
  const mean = (on: boolean): number => {
    const picked = rows.filter((row) => row.label.startsWith(on ? 'journal on' : 'journal off'));
    return picked.reduce((sum, row) => sum + row.result.requestsPerSecond, 0) / picked.length;
  };
  printTable(`${name} (ratios to the first round without the journal)`, rows);
  console.log(`mean: off ${mean(false).toFixed(0)} req/s, on ${mean(true).toFixed(0)} req/s, on/off ${(mean(true) / mean(false)).toFixed(3)}\n`);
}
