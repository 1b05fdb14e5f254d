import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';
import { MemoryStore } from '../../../store/index.ts';
import { GenericRegistry, type RequestScope } from '../apimachinery/registry.ts';
import { clusterRoleBindingsView } from '../resources/cluster-role-bindings.ts';
import { clusterRolesView, type ClusterRole } from '../resources/cluster-roles.ts';
import { BOOTSTRAP_BINDINGS, BOOTSTRAP_ROLES } from './bootstrap-policy-data.ts';
import { reconcileBootstrapPolicy } from './bootstrap-policy.ts';

describe('default policy reconciled at start (rbac/bootstrap-roles)', () => {
  it('creates what is missing, restores lost permissions and subjects, and leaves autoupdate=false objects alone', async () => {
    const store = new MemoryStore();
    const registry = new GenericRegistry(store, new ManualClock(new Date('2025-01-01T00:00:00Z')), seededIds('bootstrap'), {
      namespaceExists: async () => true,
      beforeDelete: () => undefined,
      afterDelete: async () => undefined,
    });
    const roles: RequestScope = { view: clusterRolesView, group: 'rbac.authorization.k8s.io', namespace: undefined };
    const bindings: RequestScope = { view: clusterRoleBindingsView, group: 'rbac.authorization.k8s.io', namespace: undefined };
    await reconcileBootstrapPolicy(registry, roles, bindings);
    assert.equal((await store.list('cluster/clusterroles')).length, BOOTSTRAP_ROLES.length);
    assert.equal((await store.list('cluster/clusterrolebindings')).length, BOOTSTRAP_BINDINGS.length);

    await registry.delete(roles, 'view', { dryRun: false, preconditions: undefined });
    await registry.update(
      roles,
      'system:discovery',
      (current) => ({
        ...current!,
        rules: [
          { verbs: ['get'], nonResourceURLs: ['/api'] },
          { verbs: ['get'], nonResourceURLs: ['/custom'] },
        ],
      }),
      { dryRun: false, fieldManager: 'user', allowCreate: false },
    );
    await registry.update(
      roles,
      'system:monitoring',
      (current) => ({ ...current!, metadata: { ...current!.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] }),
      { dryRun: false, fieldManager: 'user', allowCreate: false },
    );
    await registry.update(
      bindings,
      'system:basic-user',
      (current) => ({ ...current!, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' }] }),
      { dryRun: false, fieldManager: 'user', allowCreate: false },
    );

    await reconcileBootstrapPolicy(registry, roles, bindings);
    assert.ok(await store.get('cluster/clusterroles', 'view'), 'a deleted default role is recreated');
    const discovery = (await store.get<ClusterRole>('cluster/clusterroles', 'system:discovery'))!.value;
    assert.deepEqual(
      discovery.rules?.slice(0, 2),
      [
        { verbs: ['get'], nonResourceURLs: ['/api'] },
        { verbs: ['get'], nonResourceURLs: ['/custom'] },
      ],
      'extra permissions are kept',
    );
    assert.deepEqual(
      discovery.rules?.slice(2).map((rule) => rule.nonResourceURLs?.[0]),
      ['/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
    );
    assert.deepEqual((await store.get<ClusterRole>('cluster/clusterroles', 'system:monitoring'))!.value.rules, [], 'autoupdate=false is honoured');
    const basic = (await store.get<{ subjects: unknown[] }>('cluster/clusterrolebindings', 'system:basic-user'))!.value;
    assert.deepEqual(basic.subjects, [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' },
    ]);
    const revision = await store.currentRevision();
    await reconcileBootstrapPolicy(registry, roles, bindings);
    assert.equal(await store.currentRevision(), revision, 'a reconciled policy is not written again');
    await store.close();
  });
});
