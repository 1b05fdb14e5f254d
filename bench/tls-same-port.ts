import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { ensureBuilt, median, startProcess } from './lib/processes.ts';

/**
 * What serving HTTPS on the same port costs plain HTTP (core/tls/same-port.ts reads each
 * connection's first bytes before Node's HTTP parser gets it): GET one ClusterRole by name from
 * `fogbank start --no-tls` and from `fogbank start` (TLS on, the default), with keep-alive
 * connections (the sniffing runs once per connection) and with a new connection per request
 * (`Connection: close`, where it runs once per request). Alternating rounds, medians; the first
 * row is the baseline. A last row shows the same GET over HTTPS, for scale.
 */
const main = ensureBuilt();
const TOKEN = 'bench';
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const auth = { authorization: `Bearer ${TOKEN}` };
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);

const keepAlive: autocannon.Request[] = [{ method: 'GET', path: `${ROLE}/bench-reader`, headers: auth }];
const closing: autocannon.Request[] = [{ method: 'GET', path: `${ROLE}/bench-reader`, headers: { ...auth, connection: 'close' } }];

async function seed(url: string): Promise<void> {
  const response = await fetch(`${url}${ROLE}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] }),
  });
  if (response.status >= 300) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
}

async function measure(args: string[], requests: autocannon.Request[], https = false): Promise<LoadResult> {
  const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn', ...args]);
  try {
    await seed(server.url);
    const url = https ? server.url.replace(/^http:/, 'https:') : server.url;
    await runLoad({ url, requests, seconds: 1 });
    return await runLoad({ url, requests });
  } finally {
    await server.stop();
  }
}

function medianOf(results: readonly LoadResult[]): LoadResult {
  return {
    requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    non2xx: Math.max(...results.map((r) => r.non2xx)),
    errors: Math.max(...results.map((r) => r.errors)),
  };
}

// autocannon's HTTPS client checks certificates; fogbank's ephemeral CA is not one it knows.
process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
for (const [title, requests] of [
  ['keep-alive connections', keepAlive],
  ['a new connection per request', closing],
] as const) {
  const plain: LoadResult[] = [];
  const sniffing: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    plain.push(await measure(['--no-tls'], requests));
    sniffing.push(await measure([], requests));
  }
  printTable(`GET one ClusterRole by name, ${title} (16 connections, median of ${ROUNDS}); goal: no measurable drop`, [
    { label: 'fogbank --no-tls (plain HTTP)', result: medianOf(plain) },
    { label: 'fogbank, TLS on: plain HTTP', result: medianOf(sniffing) },
    { label: 'fogbank, TLS on: HTTPS', result: await measure([], requests, true) },
  ]);
  console.log('');
}
