import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole } from '../resources/cluster-roles.ts';
import { aggregateRules } from './aggregation-controller.ts';

const role = (name: string, labels: Record<string, string>, verbs: string[][]): ClusterRole => ({
  metadata: { name, labels },
  rules: verbs.map((v) => ({ verbs: v, apiGroups: [''], resources: ['pods'] })),
});

describe('aggregation algorithm (reference §6)', () => {
  it('walks selectors in order, matches sorted by name, skips itself, keeps the first of equal rules', () => {
    const target: ClusterRole = {
      metadata: { name: 'agg', labels: { a: 'x' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: 'x' } }, { matchLabels: { a: 'x' } }] },
    };
    const all = [
      target,
      role('zeta', { a: 'x' }, [['list']]),
      role('alpha', { a: 'x', b: 'x' }, [['get'], ['list']]),
      role('beta', { b: 'x' }, [['watch'], ['get']]),
    ];
    assert.deepEqual(
      aggregateRules(target, all)?.map((rule) => rule.verbs),
      [['get'], ['list'], ['watch']],
    );
  });

  it('gives no rules when nothing matches, and undefined for a role without aggregationRule', () => {
    const target: ClusterRole = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { none: 'x' } }] } };
    assert.deepEqual(aggregateRules(target, [target, role('r', {}, [['get']])]), []);
    assert.equal(aggregateRules(role('plain', {}, []), []), undefined);
  });

  it('treats an empty selector as matching every role (LabelSelectorAsSelector)', () => {
    const target: ClusterRole = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{}] } };
    assert.deepEqual(aggregateRules(target, [target, role('r', {}, [['get']])])?.length, 1);
  });
});

describe('aggregation controller beside the server', () => {
  it('answers requests while a long sync is writing aggregated roles', async () => {
    const { startHarness } = await import('../../../testing/cluster-harness.ts');
    const h = await startHarness();
    try {
      const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
      for (let i = 0; i < 30; i++) {
        await h.call('POST', ROLES, { metadata: { name: `agg-${i}` }, aggregationRule: { clusterRoleSelectors: [{}] } });
      }
      // One more source role wakes a sync that rewrites all thirty aggregated roles; a request sent
      // right after it is answered before that sync has written them all.
      await h.call('POST', ROLES, { metadata: { name: 'source' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] });
      const answer = await h.call('GET', `${ROLES}/agg-29`);
      assert.equal(answer.status, 200);
      const pending = ((answer.body.rules ?? []) as { resources: string[] }[]).every((rule) => !rule.resources.includes('secrets'));
      assert.equal(pending, true, 'the request was answered only after the sync finished');
    } finally {
      await h.close();
    }
  });
});

describe('aggregation controller settles', () => {
  const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
  const rule = (resource: string) => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });

  /** quiet waits until no ClusterRole is written across a few turns in a row (bounded), and gives the writes seen since `from`. */
  async function quiet(store: import('../../../store/index.ts').MemoryStore, from: number): Promise<{ writes: number; revision: number; settled: boolean }> {
    const { CLUSTER_ROLE_STORE_KIND } = await import('./authorizer.ts');
    let revision = from;
    let writes = 0;
    for (let calm = 0, rounds = 0; rounds < 2000; rounds++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      const changes = await store.changesSince(revision, { kinds: [CLUSTER_ROLE_STORE_KIND], limit: 100_000 });
      if (changes.length === 0) {
        if (++calm >= 5) return { writes, revision, settled: true };
        continue;
      }
      calm = 0;
      writes += changes.length;
      revision = changes.at(-1)!.revision;
    }
    return { writes, revision, settled: false };
  }

  it('converges when match-all aggregated roles select each other and plain roles, and stays bounded as roles are added', async () => {
    const { startHarness } = await import('../../../testing/cluster-harness.ts');
    const h = await startHarness();
    try {
      const N = 12;
      const M = 8;
      for (let i = 0; i < M; i++)
        assert.equal((await h.call('POST', ROLES, { metadata: { name: `plain-${i}` }, rules: [rule(`r${i}`), rule(`s${M - i}`)] })).status, 201);
      // Created in reverse name order with rules of their own, so the first writes see stale, differently ordered rules.
      for (let i = N - 1; i >= 0; i--) {
        const created = await h.call('POST', ROLES, {
          metadata: { name: `agg-${String(i).padStart(2, '0')}` },
          aggregationRule: { clusterRoleSelectors: [{}] },
          rules: [rule(`own${i}`)],
        });
        assert.equal(created.status, 201);
      }
      const first = await quiet(h.store, 0);
      assert.equal(first.settled, true, `still writing after ${first.writes} writes`);
      // Every aggregated role ends with the same rules, in one order: the plain roles' rules, by role name.
      const listed = await h.call('GET', ROLES);
      const aggregated = (listed.body.items as { metadata: { name: string }; rules?: { resources: string[] }[] }[]).filter((item) =>
        item.metadata.name.startsWith('agg-'),
      );
      assert.equal(aggregated.length, N);
      const orders = new Set(aggregated.map((item) => JSON.stringify((item.rules ?? []).map((r) => r.resources[0]))));
      assert.equal(orders.size, 1, [...orders].join('\n'));
      for (let i = 0; i < M; i++) assert.ok([...orders][0]!.includes(`"r${i}"`));
      // Each added role changes each aggregated role's rules at most once more (plus a pass that finds nothing to do).
      let revision = first.revision;
      for (let k = 0; k < 5; k++) {
        assert.equal((await h.call('POST', ROLES, { metadata: { name: `late-${k}` }, rules: [rule(`late${k}`)] })).status, 201);
        const next = await quiet(h.store, revision);
        assert.equal(next.settled, true);
        assert.ok(next.writes <= 1 + N, `adding one role took ${next.writes} writes`);
        revision = next.revision;
      }
      // Nothing changed: a ClusterRole write that leaves the rules alone costs no aggregated write.
      assert.equal((await h.call('POST', ROLES, { metadata: { name: 'late-empty' } })).status, 201);
      assert.equal((await quiet(h.store, revision)).writes, 1);
    } finally {
      await h.close();
    }
  });
});
