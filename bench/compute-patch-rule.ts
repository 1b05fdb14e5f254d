// bench/compute-patch-rule.ts measures patchRule throughput on a started fogbank (memory store,
// instant Operations, so every request validates, merges, type-checks the expression, commits the
// policy and answers a DONE Operation) against a bare node:http server answering a small JSON,
// in the same run. Absolute numbers depend on the machine; the ratio is what to watch.
// Run: npx tsx bench/compute-patch-rule.ts [seconds]
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { startFogbank } from '../src/fogbank.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const CONNECTIONS = 16;
const WORKERS = 1;
const TOKEN = 'bench-token';
const POLICY = '/compute/v1/projects/p/regions/us-central1/securityPolicies/pol';

// What gcloud sends for `rules update 1000 --action=deny-403 --expression=…`, alternating two
// actions so every request really changes the rule.
const bodies = ['deny(403)', 'allow'].map((action) =>
  JSON.stringify({ priority: 1000, action, match: { expr: { expression: "request.path.startsWith('/admin') && inIpRange(origin.ip, '10.0.0.0/8')" } } }),
);

/** run loads `url` from a worker thread (so the load generator does not share the server's thread); requests alternate the bodies. */
async function run(url: string, path: string): Promise<number> {
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    workers: WORKERS,
    requests: bodies.map((body) => ({ method: 'POST' as const, path, headers, body })),
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return result.requests.average;
}

async function baseline(): Promise<number> {
  const payload = JSON.stringify({ kind: 'compute#operation', status: 'DONE', progress: 100 });
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await run(`http://127.0.0.1:${port}`, '/');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function fogbank(): Promise<{ rps: number; fingerprintChanges: boolean }> {
  const server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
  try {
    const call = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await call('/compute/v1/projects/p/regions/us-central1/securityPolicies', { name: 'pol' });
    await call(`${POLICY}/addRule`, { priority: 1000, action: 'allow', match: { expr: { expression: 'true' } } });
    const before = (await (await fetch(`${server.url}${POLICY}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { fingerprint: string };
    const rps = await run(server.url, `${POLICY}/patchRule?priority=1000&updateMask=redirect_options,rate_limit_options`);
    const after = (await (await fetch(`${server.url}${POLICY}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { fingerprint: string };
    return { rps, fingerprintChanges: before.fingerprint !== after.fingerprint };
  } finally {
    await server.close();
  }
}

const bare = await baseline();
const patched = await fogbank();
if (!patched.fingerprintChanges) throw new Error('patchRule did not change the policy: the benchmark measured nothing');
console.log(`node:http baseline       ${bare.toFixed(0).padStart(8)} req/s`);
console.log(`fogbank patchRule        ${patched.rps.toFixed(0).padStart(8)} req/s`);
console.log(
  `ratio (patchRule / bare) ${(patched.rps / bare).toFixed(3).padStart(8)}   (${SECONDS}s each, ${CONNECTIONS} connections, ${WORKERS} load workers)`,
);
