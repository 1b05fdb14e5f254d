import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../lib/clock.ts';
import { seededIds } from '../../../lib/ids.ts';
import { MemoryStore } from '../../../store/index.ts';
import { GenericRegistry, type RequestScope } from '../apimachinery/registry.ts';
import { clusterRoleBindingsView } from '../resources/cluster-role-bindings.ts';
import { clusterRolesView, type ClusterRole } from '../resources/cluster-roles.ts';
import { roleBindingsView, type RoleBinding } from '../resources/role-bindings.ts';
import { rolesView, type Role } from '../resources/roles.ts';
import { BOOTSTRAP_BINDINGS, BOOTSTRAP_ROLES } from './bootstrap-policy-data.ts';
import { NAMESPACED_BOOTSTRAP_BINDINGS, NAMESPACED_BOOTSTRAP_ROLES } from './bootstrap-policy-namespaced.ts';
import { reconcileBootstrapPolicy, reconcileNamespacedPolicy } from './bootstrap-policy.ts';

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

describe('namespaced default policy reconciled at start', () => {
  it('creates the kube-system and kube-public Roles and RoleBindings, restores lost rules and subjects, and leaves autoupdate=false alone', async () => {
    const store = new MemoryStore();
    const registry = new GenericRegistry(store, new ManualClock(new Date('2025-01-01T00:00:00Z')), seededIds('bootstrap-namespaced'), {
      namespaceExists: async () => true,
      beforeDelete: () => undefined,
      afterDelete: async () => undefined,
    });
    const roles: RequestScope = { view: rolesView, group: 'rbac.authorization.k8s.io', namespace: undefined };
    const bindings: RequestScope = { view: roleBindingsView, group: 'rbac.authorization.k8s.io', namespace: undefined };
    await reconcileNamespacedPolicy(registry, roles, bindings);
    assert.deepEqual(
      (await store.list('cluster/roles')).map((record) => record.key),
      NAMESPACED_BOOTSTRAP_ROLES.map((role) => `${role.namespace}/${role.name}`).sort(),
    );
    assert.equal((await store.list('cluster/rolebindings')).length, NAMESPACED_BOOTSTRAP_BINDINGS.length);

    const system: RequestScope = { ...roles, namespace: 'kube-system' };
    await registry.delete(system, 'system:controller:token-cleaner', { dryRun: false, preconditions: undefined });
    await registry.update(system, 'system:controller:bootstrap-signer', (current) => ({ ...current!, rules: [] }), {
      dryRun: false,
      fieldManager: 'user',
      allowCreate: false,
    });
    await registry.update(
      system,
      'system:controller:cloud-provider',
      (current) => ({ ...current!, metadata: { ...current!.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] }),
      { dryRun: false, fieldManager: 'user', allowCreate: false },
    );
    await registry.update(
      { ...bindings, namespace: 'kube-public' },
      'system:controller:bootstrap-signer',
      (current) => ({ ...current!, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' }] }),
      { dryRun: false, fieldManager: 'user', allowCreate: false },
    );

    await reconcileNamespacedPolicy(registry, roles, bindings);
    assert.ok(await store.get('cluster/roles', 'kube-system/system:controller:token-cleaner'), 'a deleted default Role is recreated');
    assert.deepEqual((await store.get<Role>('cluster/roles', 'kube-system/system:controller:bootstrap-signer'))!.value.rules, [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['watch'] },
    ]);
    assert.deepEqual((await store.get<Role>('cluster/roles', 'kube-system/system:controller:cloud-provider'))!.value.rules, [], 'autoupdate=false is honoured');
    const signer = (await store.get<RoleBinding>('cluster/rolebindings', 'kube-public/system:controller:bootstrap-signer'))!.value;
    assert.deepEqual(signer.subjects, [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' },
      { kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: 'kube-system' },
    ]);
    const revision = await store.currentRevision();
    await reconcileNamespacedPolicy(registry, roles, bindings);
    assert.equal(await store.currentRevision(), revision, 'a reconciled policy is not written again');
    await store.close();
  });
});
