import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole } from '../resources/cluster-roles.ts';
import { aggregateRules } from './aggregation-controller.ts';

const role = (name: string, labels: Record<string, string>, verbs: string[][]): ClusterRole => ({ metadata: { name, labels }, rules: verbs.map((v) => ({ verbs: v, apiGroups: [''], resources: ['pods'] })) });

describe('aggregation algorithm (reference §6)', () => {
  it('walks selectors in order, matches sorted by name, skips itself, keeps the first of equal rules', () => {
    const target: ClusterRole = { metadata: { name: 'agg', labels: { a: 'x' } }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: 'x' } }, { matchLabels: { a: 'x' } }] } };
    const all = [target, role('zeta', { a: 'x' }, [['list']]), role('alpha', { a: 'x', b: 'x' }, [['get'], ['list']]), role('beta', { b: 'x' }, [['watch'], ['get']])];
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
    const { startHarness } = await import('../testing/harness.ts');
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
