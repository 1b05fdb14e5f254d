import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { CLUSTER_GROUP_PREFIXES } from '../src/services/cluster/index.ts';
import { apiGroupVocabulary, attributesOf, Authorizer, DEFAULT_API_DOMAIN } from '../src/services/cluster/public.ts';
import { startHarness } from '../src/testing/cluster-harness.ts';
import { loadSeconds, runLoad } from './lib/load.ts';
import { BARE_SERVER, ensureBuilt, startProcess } from './lib/processes.ts';
import { atMost, type Bench, interleaved, median, metricOf, ratioAtLeast, runAlone } from './lib/report.ts';

/**
 * RBAC costs. (1) GET throughput of one ClusterRole as the admin (system:masters: allowed without
 * evaluating rules) and as alice (allowed by a group binding, evaluated against every binding of a
 * cluster holding the default policy plus 200 unrelated bindings), against a bare node:http
 * server in the same run; the alice/admin ratio is the price of rule evaluation (goal ≥ 0.90).
 * The in-process price of one authorization, as a share of a GET at the measured rate (goal ≤ 10%).
 * (2) Aggregation: 1,000 labelled ClusterRoles selected by one aggregated role — time until the
 * aggregated role holds all their rules, and the latency of one label change with 1,000 present.
 */
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

/** seed makes the target role, 200 unrelated bindings and the group binding that lets alice read it. */
async function seed(url: string): Promise<void> {
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
}

/** bench measures GET with and without RBAC evaluation, the price of one decision, and aggregation. */
export const bench: Bench = async ({ rounds, quick }) => {
  const main = ensureBuilt();
  const seconds = loadSeconds(quick);
  const dir = mkdtempSync(join(tmpdir(), 'fogbank-bench-rbac-'));
  const config = join(dir, 'tokens.yaml');
  writeFileSync(config, `tokens:\n  - token: ${ALICE}\n    email: alice@example.com\n    scopes: []\n    permissions: []\n    groups: [devs]\n`);
  const fogbank = [main, 'start', '--port', '0', '--ephemeral', '--admin-token', ADMIN, '--config', config, '--log-level', 'warn'];
  // One fogbank, admin and alice loads interleaved with the bare server in rounds, so machine noise hits all alike.
  const bare = await startProcess([...BARE_SERVER]);
  const server = await startProcess(fogbank);
  let bareRuns: number[];
  let adminRuns: number[];
  let aliceRuns: number[];
  try {
    await seed(server.url);
    await runLoad({ url: bare.url, requests: get(ADMIN), seconds: 1 });
    await runLoad({ url: server.url, requests: get(ADMIN), seconds: 2 });
    await runLoad({ url: server.url, requests: get(ALICE), seconds: 2 });
    const side = (label: string, url: string, token: string) => ({
      label,
      measure: async () => (await runLoad({ url, requests: get(token), seconds })).requestsPerSecond,
    });
    [bareRuns, adminRuns, aliceRuns] = await interleaved(rounds, [
      side('bare node:http', bare.url, ADMIN),
      side('GET as admin', server.url, ADMIN),
      side('GET as alice', server.url, ALICE),
    ]);
  } finally {
    await server.stop();
    await bare.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const metrics = [
    metricOf({
      metric: 'GET ClusterRole as admin (system:masters)',
      unit: 'req/s',
      fogbank: adminRuns,
      baseline: { label: 'bare node:http', samples: bareRuns },
    }),
    metricOf({
      metric: 'GET ClusterRole as alice (RBAC rules) vs admin',
      unit: 'req/s',
      fogbank: aliceRuns,
      baseline: { label: 'GET as admin', samples: adminRuns },
      goal: ratioAtLeast(0.9, 'admin'),
    }),
  ];

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
    const n = quick ? 50_000 : 200_000;
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
    const getMicros = 1e6 / median(aliceRuns);
    metrics.push(
      metricOf({
        metric: 'authorization per request (in process), share of a GET as alice',
        unit: '%',
        fogbank: [(perCall / getMicros) * 100],
        goal: atMost(10, '%'),
        note: `${perCall.toFixed(2)} µs (freshness check + attributes + decision, 1 core) against ${getMicros.toFixed(1)} µs per GET`,
      }),
      metricOf({ metric: 'authorization per namespaced request (RoleBinding to a Role among 201)', unit: 'µs', fogbank: [perNamespacedCall] }),
    );
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
  metrics.push(
    metricOf({ metric: 'aggregation: aggregate complete after the last of 1,000 creates', unit: 'ms', fogbank: [settled - created], goal: atMost(1000, 'ms') }),
    metricOf({ metric: 'aggregation: one label removed with 1,000 roles present', unit: 'ms', fogbank: [changed - change], goal: atMost(1000, 'ms') }),
    metricOf({ metric: 'aggregation: a new aggregated role over 999 labelled roles', unit: 'ms', fogbank: [lateDone - late] }),
    metricOf({ metric: 'aggregation: 1,000 labelled roles created (controller running)', unit: 'ms', fogbank: [created - began] }),
  );
  return metrics;
};

runAlone(import.meta, bench);
