import type autocannon from 'autocannon';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * A built-in kind served by the generic, schema-driven strategy against a dedicated one: GET one
 * Pod and GET one ClusterRole by name on the same server, at the same concurrency, with a bare
 * node:http server doing the same requests in the same run as the baseline (the goal: a Pod as
 * fast as a ClusterRole).
 */
const main = ensureBuilt();
const TOKEN = 'bench';
const auth = { authorization: `Bearer ${TOKEN}` };
const ROLE = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const PODS = '/api/v1/namespaces/default/pods';

async function post(url: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`seeding ${path} failed: ${response.status} ${await response.text()}`);
}

async function seed(url: string): Promise<void> {
  await post(url, ROLE, { metadata: { name: 'bench-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] });
  await post(url, PODS, {
    metadata: { name: 'bench-pod', labels: { app: 'bench' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
  });
}

const requestsFor = (path: string): autocannon.Request[] => [{ method: 'GET', path, headers: auth }];

/** measureOn loads one running server with GETs of `path` (after a 2 s warm-up). */
async function measureOn(url: string, label: string, path: string): Promise<{ label: string; result: LoadResult }> {
  await runLoad({ url, requests: requestsFor(path), seconds: 2 });
  return { label, result: await runLoad({ url, requests: requestsFor(path) }) };
}

const bare = await startProcess([...BARE_SERVER]);
const baseline = await measureOn(bare.url, 'bare node:http', `${PODS}/bench-pod`);
await bare.stop();
// One fogbank for both kinds, measured in turn twice, so load from elsewhere on the machine shows as a difference between rounds.
const server = await startProcess([main, 'start', '--port', '0', '--ephemeral', '--admin-token', TOKEN, '--log-level', 'warn']);
const rows = [baseline];
try {
  await seed(server.url);
  for (const round of [1, 2]) {
    rows.push(await measureOn(server.url, `GET ClusterRole (dedicated) #${round}`, `${ROLE}/bench-reader`));
    rows.push(await measureOn(server.url, `GET Pod (generic strategy) #${round}`, `${PODS}/bench-pod`));
  }
} finally {
  await server.stop();
}
printTable('GET one object by name (16 connections); goal: a Pod as fast as a ClusterRole', rows);
