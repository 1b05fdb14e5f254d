import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { apiGroupVocabulary, DEFAULT_API_DOMAIN } from '../src/services/cluster/identifiers.ts';
import { CLUSTER_GROUP_PREFIXES } from '../src/services/cluster/index.ts';
import { attributesOf } from '../src/services/cluster/rbac/authorize-requests.ts';
import { Authorizer } from '../src/services/cluster/rbac/authorizer.ts';
import { startHarness } from '../src/services/cluster/testing/harness.ts';
import { printTable, runLoad, type LoadResult } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';

/**
 * RBAC costs. (1) GET throughput of one ClusterRole as the admin (system:masters: allowed without
 * evaluating rules) and as alice (allowed by a group binding, evaluated against every binding of a
 * cluster holding the default policy plus 200 unrelated bindings), against a bare node:http
 * server in the same run; the alice/admin ratio is the price of rule evaluation (goal ≥ 0.90).
 * (2) Aggregation: 1,000 labelled ClusterRoles selected by one aggregated role — time until the
 * aggregated role holds all their rules, and the latency of one label change with 1,000 present.
 */
const main = ensureBuilt();
const ADMIN = 'bench-admin';
const ALICE = 'bench-alice';
const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const BINDINGS = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
const RBAC_NS = '/apis/rbac.authorization.k8s.io/v1/namespaces/team-a';

const get = (token: string): autocannon.Request[] => [{ method: 'GET', path: `${ROLES}/target`, headers: { authorization: `Bearer ${token}` } }];

async function post(url: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
}

const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-rbac-'));
const config = join(dir, 'tokens.yaml');
writeFileSync(config, `tokens:\n  - token: ${ALICE}\n    email: alice@example.com\n    scopes: []\n    permissions: []\n    groups: [devs]\n`);

async function measure(label: string, args: string[], token: string): Promise<{ label: string; result: LoadResult }> {
  const server = await startProcess(args);
  try {
    await runLoad({ url: server.url, requests: get(token), seconds: 2 });
    return { label, result: await runLoad({ url: server.url, requests: get(token) }) };
  } finally {
    await server.stop();
  }
}

const seed = async (url: string): Promise<void> => {
  await post(url, ROLES, { metadata: { name: 'target' }, rules: [{ verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'] }] });
  for (let i = 0; i < 200; i++)
    await post(url, BINDINGS, {
      metadata: { name: `unrelated-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: `user-${i}` }],
    });
  await post(url, BINDINGS, {
    metadata: { name: 'devs-read-roles' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'target' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  });
};
const fogbank = [main, 'start', '--port', '0', '--ephemeral', '--admin-token', ADMIN, '--config', config, '--log-level', 'warn'];
const bare = await measure('bare node:http', [...BARE_SERVER], ADMIN);
// One fogbank, admin and alice loads interleaved in rounds, so machine noise hits both alike; medians reported.
const server = await startProcess(fogbank);
const adminRuns: LoadResult[] = [];
const aliceRuns: LoadResult[] = [];
try {
  await seed(server.url);
  await runLoad({ url: server.url, requests: get(ADMIN), seconds: 2 });
  await runLoad({ url: server.url, requests: get(ALICE), seconds: 2 });
  for (let round = 0; round < 3; round++) {
    adminRuns.push(await runLoad({ url: server.url, requests: get(ADMIN) }));
    aliceRuns.push(await runLoad({ url: server.url, requests: get(ALICE) }));
  }
} finally {
  await server.stop();
}
rmSync(dir, { recursive: true, force: true });
const medianRun = (runs: LoadResult[]): LoadResult => [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[1]!;
const rows = [
  bare,
  { label: 'fogbank GET as admin (masters)', result: medianRun(adminRuns) },
  { label: 'fogbank GET as alice (RBAC rules)', result: medianRun(aliceRuns) },
];
printTable('GET one ClusterRole (16 connections), authorization on; fogbank rows are medians of 3 interleaved rounds', rows);
const ratios = aliceRuns.map((run, index) => run.requestsPerSecond / adminRuns[index]!.requestsPerSecond).sort((a, b) => a - b);
const ratio = ratios[1]!;
console.log(
  `RBAC evaluation: alice/admin throughput ratio per round ${ratios.map((r) => r.toFixed(3)).join(', ')}; median ${ratio.toFixed(3)} (goal ≥ 0.90: ${ratio >= 0.9 ? 'met' : 'NOT met'})`,
);

// The per-request price of authorization itself, in process: URL → attributes, policy freshness check, decision.
{
  const h = await startHarness({ bootstrapPolicy: true });
  await h.call('POST', ROLES, {
    metadata: { name: 'target' },
    rules: [{ verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'] }],
  });
  for (let i = 0; i < 200; i++)
    await h.call('POST', BINDINGS, {
      metadata: { name: `unrelated-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: `user-${i}` }],
    });
  await h.call('POST', BINDINGS, {
    metadata: { name: 'devs-read-roles' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'target' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  });
  const groups = apiGroupVocabulary(CLUSTER_GROUP_PREFIXES, DEFAULT_API_DOMAIN);
  const authorizer = new Authorizer(h.store, groups);
  const alice = { name: 'alice@example.com', groups: ['devs', 'system:authenticated'] };
  const once = async (): Promise<boolean> => {
    await authorizer.refresh();
    return authorizer.decide(alice, attributesOf('GET', `${ROLES}/target`, groups)).allowed;
  };
  for (let i = 0; i < 20000; i++) await once();
  const n = 200000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) if (!(await once())) throw new Error('alice should be allowed');
  const perCall = ((performance.now() - t0) * 1000) / n;
  // The same for a namespaced request allowed by a RoleBinding (to a Role) among 200 unrelated ones in its namespace.
  await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'team-a' } });
  await h.call('POST', `${RBAC_NS}/roles`, { metadata: { name: 'event-reader' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['events'] }] });
  for (let i = 0; i < 200; i++)
    await h.call('POST', `${RBAC_NS}/rolebindings`, {
      metadata: { name: `unrelated-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: `user-${i}` }],
    });
  await h.call('POST', `${RBAC_NS}/rolebindings`, {
    metadata: { name: 'devs-read-events' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'event-reader' },
    subjects: [{ kind: 'Group', name: 'devs' }],
  });
  const namespaced = async (): Promise<boolean> => {
    await authorizer.refresh();
    return authorizer.decide(alice, attributesOf('GET', '/api/v1/namespaces/team-a/events', groups)).allowed;
  };
  for (let i = 0; i < 20000; i++) await namespaced();
  const t1 = performance.now();
  for (let i = 0; i < n; i++) if (!(await namespaced())) throw new Error('alice should be allowed in team-a');
  const perNamespacedCall = ((performance.now() - t1) * 1000) / n;
  await h.close();
  const getMicros = 1e6 / rows[2]!.result.requestsPerSecond;
  console.log(
    `authorization per request: ${perCall.toFixed(2)} µs (freshness check + attributes + decision, 1 core) vs ${getMicros.toFixed(1)} µs per GET at the measured throughput → ${((perCall / getMicros) * 100).toFixed(1)}% of a GET (goal ≤ 10%)`,
  );
  console.log(`authorization per namespaced request (RoleBinding to a Role, 201 RoleBindings in the namespace): ${perNamespacedCall.toFixed(2)} µs`);
}

// Aggregation, in process (the controller runs inside the harness).
const h = await startHarness();
await h.call('POST', ROLES, { metadata: { name: 'aggregate' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'bench/agg': 'true' } }] } });
const began = performance.now();
for (let i = 0; i < 1000; i++) {
  const created = await h.call('POST', ROLES, {
    metadata: { name: `part-${String(i).padStart(4, '0')}`, labels: { 'bench/agg': 'true' } },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: [`r${i}`] }],
  });
  if (created.status !== 201) throw new Error(`create part-${i}: ${created.status}`);
}
const created = performance.now();
const rulesOf = async () => ((await h.call('GET', `${ROLES}/aggregate`)).body.rules ?? []).length as number;
const until = async (want: number): Promise<void> => {
  for (let i = 0; i < 20000; i++) {
    if ((await rulesOf()) === want) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`aggregate never reached ${want} rules`);
};
await until(1000);
const settled = performance.now();
const change = performance.now();
await h.call('PATCH', `${ROLES}/part-0500`, { metadata: { labels: { 'bench/agg': null } } }, { 'content-type': 'application/merge-patch+json' });
await until(999);
const changed = performance.now();
// A new aggregated role over the 999 labelled roles already present: one full sync.
const late = performance.now();
await h.call('POST', ROLES, { metadata: { name: 'aggregate-late' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'bench/agg': 'true' } }] } });
for (let i = 0; i < 20000 && ((await h.call('GET', `${ROLES}/aggregate-late`)).body.rules ?? []).length !== 999; i++)
  await new Promise((resolve) => setImmediate(resolve));
const lateDone = performance.now();
await h.close();
console.log(`aggregation: a new aggregated role over 999 existing labelled roles complete in ${(lateDone - late).toFixed(0)} ms`);
console.log(
  `aggregation: 1,000 roles created in ${(created - began).toFixed(0)} ms (controller running throughout); aggregate complete ${(settled - created).toFixed(0)} ms after the last create`,
);
console.log(
  `aggregation: one label removed with 1,000 roles present → aggregate updated in ${(changed - change).toFixed(0)} ms (goal < 1000 ms: ${changed - change < 1000 && settled - created < 1000 ? 'met' : 'NOT met'})`,
);
