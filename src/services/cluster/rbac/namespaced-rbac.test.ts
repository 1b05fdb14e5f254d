import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ALICE = { authorization: 'Bearer alice-token' };
const GROUPS = '["devs" "system:authenticated"]';
const roles = (namespace: string) => `${RBAC}/namespaces/${namespace}/roles`;
const bindings = (namespace: string) => `${RBAC}/namespaces/${namespace}/rolebindings`;
const roleRef = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const alice = [{ kind: 'User', name: 'alice@example.com' }];
const SELF_RULE = {
  verbs: ['create'],
  apiGroups: ['authorization.k8s.io', 'authentication.k8s.io'],
  resources: ['selfsubjectrulesreviews', 'selfsubjectreviews'],
};

describe('namespaced RBAC: Role and RoleBinding', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
    for (const name of ['team-a', 'team-b']) assert.equal((await h.call('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
    // What system:basic-user gives everyone on a real cluster (the harness starts without the default policy).
    await h.call('POST', `${RBAC}/clusterroles`, { metadata: { name: 'self' }, rules: [SELF_RULE] });
    await h.call('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'self' },
      roleRef: roleRef('ClusterRole', 'self'),
      subjects: [{ kind: 'Group', name: 'system:authenticated' }],
    });
    assert.equal(
      (
        await h.call('POST', roles('team-a'), {
          metadata: { name: 'event-reader' },
          rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['events'] }],
        })
      ).status,
      201,
    );
    assert.equal(
      (await h.call('POST', bindings('team-a'), { metadata: { name: 'alice-reads' }, roleRef: roleRef('Role', 'event-reader'), subjects: alice })).status,
      201,
    );
  });
  after(async () => h.close());

  it('validates rules, roleRef and subjects with the apiserver texts', async () => {
    const urls = await h.call('POST', roles('team-a'), { metadata: { name: 'bad' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] });
    assert.equal(urls.status, 422);
    assert.equal(
      urls.body.message,
      'Role.rbac.authorization.k8s.io "bad" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs',
    );
    const kind = await h.call('POST', bindings('team-a'), {
      metadata: { name: 'bad' },
      roleRef: roleRef('Namespace', 'x'),
      subjects: [{ kind: 'Robot', name: 'r' }],
    });
    assert.equal(
      kind.body.message,
      'RoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.kind: Unsupported value: "Namespace": supported values: "Role", "ClusterRole", subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
    );
    const badAccount = await h.call('POST', bindings('team-a'), {
      metadata: { name: 'bad' },
      roleRef: roleRef('Role', 'event-reader'),
      subjects: [{ kind: 'ServiceAccount', name: 'Robot_1' }],
    });
    assert.equal(
      badAccount.body.message,
      `RoleBinding.rbac.authorization.k8s.io "bad" is invalid: subjects[0].name: Invalid value: "Robot_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    const account = await h.call('POST', bindings('team-a'), {
      metadata: { name: 'robot' },
      roleRef: roleRef('Role', 'event-reader'),
      subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
    });
    assert.equal(account.status, 201, 'a ServiceAccount subject of a RoleBinding may leave its namespace out');
    const changed = await h.call('PUT', `${bindings('team-a')}/robot`, { ...account.body, roleRef: roleRef('ClusterRole', 'view') });
    assert.equal(changed.status, 422);
    assert.equal(
      changed.body.message,
      'RoleBinding.rbac.authorization.k8s.io "robot" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef',
    );
    const outside = await h.call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/nowhere/roles', { metadata: { name: 'r' } });
    assert.equal(outside.status, 404);
    assert.equal(outside.body.message, 'namespaces "nowhere" not found');
  });

  it('grants inside the binding namespace only, with the real 403 elsewhere', async () => {
    assert.equal((await h.call('GET', '/api/v1/namespaces/team-a/events', undefined, ALICE)).status, 200);
    const other = await h.call('GET', '/api/v1/namespaces/team-b/events', undefined, ALICE);
    assert.equal(other.status, 403);
    assert.equal(other.body.message, 'events is forbidden: User "alice@example.com" cannot list resource "events" in API group "" in the namespace "team-b"');
    const all = await h.call('GET', '/api/v1/events', undefined, ALICE);
    assert.equal(all.body.message, 'events is forbidden: User "alice@example.com" cannot list resource "events" in API group "" at the cluster scope');
  });

  it('scopes a RoleBinding to a ClusterRole to its namespace, and reports a missing role in the 403', async () => {
    await h.call('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'namespace-reader' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['namespaces'] }],
    });
    await h.call('POST', bindings('team-b'), { metadata: { name: 'ns' }, roleRef: roleRef('ClusterRole', 'namespace-reader'), subjects: alice });
    assert.equal((await h.call('GET', '/api/v1/namespaces/team-b', undefined, ALICE)).status, 200);
    assert.equal((await h.call('GET', '/api/v1/namespaces/team-a', undefined, ALICE)).status, 403);
    await h.call('POST', bindings('team-b'), { metadata: { name: 'dangling' }, roleRef: roleRef('Role', 'missing'), subjects: alice });
    const refused = await h.call('GET', '/api/v1/namespaces/team-b/events', undefined, ALICE);
    assert.equal(
      refused.body.message,
      'events is forbidden: User "alice@example.com" cannot list resource "events" in API group "" in the namespace "team-b": RBAC: role.rbac.authorization.k8s.io "missing" not found',
    );
    await h.call('DELETE', `${bindings('team-b')}/dangling`);
  });

  it('matches ServiceAccount subjects (the namespace defaulting to the binding’s) and impersonates accounts with their groups', async () => {
    const robot = { 'impersonate-user': 'system:serviceaccount:team-a:robot' };
    assert.equal((await h.call('GET', '/api/v1/namespaces/team-a/events', undefined, robot)).status, 200);
    const review = await h.call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { kind: 'SelfSubjectReview' }, robot);
    assert.deepEqual(review.body.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
    const sar = await h.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { user: 'system:serviceaccount:team-a:robot', resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'events' } },
    });
    assert.equal(sar.status, 201);
    assert.deepEqual(sar.body.status, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "robot/team-a" of Role "event-reader" to ServiceAccount "robot/team-a"',
    });
    const elsewhere = { 'impersonate-user': 'system:serviceaccount:team-b:robot' };
    assert.equal((await h.call('GET', '/api/v1/namespaces/team-a/events', undefined, elsewhere)).status, 403);
  });

  it('answers SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview per namespace', async () => {
    const local = await h.call('POST', '/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews', {
      spec: { user: 'alice@example.com', resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'events' } },
    });
    assert.equal(local.status, 201);
    assert.equal(local.body.metadata.namespace, 'team-a');
    assert.deepEqual(local.body.status, {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "alice-reads/team-a" of Role "event-reader" to User "alice@example.com"',
    });
    const mismatch = await h.call('POST', '/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews', {
      spec: { user: 'alice@example.com', resourceAttributes: { namespace: 'team-b', verb: 'get', resource: 'events' } },
    });
    assert.equal(mismatch.status, 422);
    assert.equal(
      mismatch.body.message,
      'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "team-b": must match metadata.namespace',
    );
    const nobody = await h.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      spec: { resourceAttributes: { verb: 'get', resource: 'events' } },
    });
    assert.equal(
      nobody.body.message,
      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
    const rules = await h.call('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'team-a' } }, ALICE);
    assert.deepEqual(rules.body.status, {
      resourceRules: [SELF_RULE, { verbs: ['get', 'list'], apiGroups: [''], resources: ['events'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    const none = await h.call('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'team-b' } }, ALICE);
    assert.deepEqual(none.body.status.resourceRules, [SELF_RULE, { verbs: ['get'], apiGroups: [''], resources: ['namespaces'] }]);
    const openapi = (await h.call('GET', '/openapi/v3/apis/authorization.k8s.io/v1')).body;
    const localPath = openapi.paths['/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews'];
    assert.deepEqual(localPath.post['x-kubernetes-group-version-kind'], { group: 'authorization.k8s.io', kind: 'LocalSubjectAccessReview', version: 'v1' });
    assert.deepEqual(openapi.components.schemas['io.k8s.api.authorization.v1.SubjectAccessReviewStatus'].required, ['allowed']);
    const missing = await h.call('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: {} }, ALICE);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.message, 'no namespace on request');
  });

  it('refuses escalation in a namespace and allows it with escalate and bind', async () => {
    await h.call('POST', roles('team-a'), {
      metadata: { name: 'role-maker' },
      rules: [{ verbs: ['create', 'update'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'] }],
    });
    await h.call('POST', bindings('team-a'), { metadata: { name: 'alice-makes' }, roleRef: roleRef('Role', 'role-maker'), subjects: alice });
    const held = await h.call(
      'POST',
      roles('team-a'),
      { metadata: { name: 'mine' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['events'] }] },
      ALICE,
    );
    assert.equal(held.status, 201, 'a role within what alice holds');
    const refused = await h.call(
      'POST',
      roles('team-a'),
      { metadata: { name: 'secrets' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }] },
      ALICE,
    );
    assert.equal(refused.status, 403);
    assert.equal(
      refused.body.message,
      `roles.rbac.authorization.k8s.io "secrets" is forbidden: user "alice@example.com" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
    );
    const bind = await h.call(
      'POST',
      bindings('team-a'),
      { metadata: { name: 'view-for-bob' }, roleRef: roleRef('ClusterRole', 'namespace-reader'), subjects: [{ kind: 'User', name: 'bob' }] },
      ALICE,
    );
    assert.equal(bind.status, 403);
    assert.equal(
      bind.body.message,
      `rolebindings.rbac.authorization.k8s.io "view-for-bob" is forbidden: user "alice@example.com" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["namespaces"], Verbs:["get"]}`,
    );
    const missing = await h.call('POST', bindings('team-a'), { metadata: { name: 'x' }, roleRef: roleRef('Role', 'nope'), subjects: alice }, ALICE);
    assert.equal(missing.body.message, 'rolebindings.rbac.authorization.k8s.io "x" is forbidden: role.rbac.authorization.k8s.io "nope" not found');
    await h.call('POST', roles('team-a'), {
      metadata: { name: 'binder' },
      rules: [
        { verbs: ['bind'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['namespace-reader'] },
        { verbs: ['escalate'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
      ],
    });
    await h.call('POST', bindings('team-a'), { metadata: { name: 'alice-binds' }, roleRef: roleRef('Role', 'binder'), subjects: alice });
    assert.equal(
      (
        await h.call(
          'POST',
          bindings('team-a'),
          { metadata: { name: 'view-for-bob' }, roleRef: roleRef('ClusterRole', 'namespace-reader'), subjects: [{ kind: 'User', name: 'bob' }] },
          ALICE,
        )
      ).status,
      201,
    );
    assert.equal(
      (
        await h.call(
          'POST',
          roles('team-a'),
          { metadata: { name: 'secrets' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }] },
          ALICE,
        )
      ).status,
      201,
    );
  });

  it('prints roles and rolebindings as kubectl shows them', async () => {
    const table = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const printed = await h.call('GET', bindings('team-a'), undefined, table);
    assert.deepEqual(
      printed.body.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`),
      ['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1'],
    );
    const robot = printed.body.rows.find((row: { cells: unknown[] }) => row.cells[0] === 'robot');
    assert.deepEqual(robot.cells, ['robot', 'Role/event-reader', '0s', '', '', '/robot']);
    const roleTable = await h.call('GET', roles('team-a'), undefined, table);
    assert.deepEqual(
      roleTable.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Created At'],
    );
  });

  it('takes a namespace’s roles and bindings with it when it is deleted', async () => {
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'short-lived' } });
    await h.call('POST', roles('short-lived'), { metadata: { name: 'r' }, rules: [] });
    await h.call('PUT', `${roles('short-lived')}/r`, { metadata: { name: 'r' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['events'] }] });
    await h.call('POST', bindings('short-lived'), { metadata: { name: 'b' }, roleRef: roleRef('Role', 'r'), subjects: alice });
    assert.equal((await h.call('GET', '/api/v1/namespaces/short-lived/events', undefined, ALICE)).status, 200, 'a write counts for the next request');
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/short-lived')).status, 200);
    assert.equal((await h.store.list('cluster/roles', { prefix: 'short-lived/' })).length, 0);
    assert.equal((await h.store.list('cluster/rolebindings', { prefix: 'short-lived/' })).length, 0);
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'short-lived' } });
    assert.equal((await h.call('GET', '/api/v1/namespaces/short-lived/events', undefined, ALICE)).status, 403, 'the grant went with its namespace');
  });
});

describe('namespaced default policy', () => {
  it('reconciles the Roles and RoleBindings of kube-system and kube-public at start', async () => {
    const h = await startHarness({ bootstrapPolicy: true });
    try {
      const system = await h.call('GET', roles('kube-system'));
      assert.deepEqual(
        system.body.items.map((item: { metadata: { name: string } }) => item.metadata.name),
        [
          'extension-apiserver-authentication-reader',
          'system::leader-locking-kube-controller-manager',
          'system::leader-locking-kube-scheduler',
          'system:controller:bootstrap-signer',
          'system:controller:cloud-provider',
          'system:controller:token-cleaner',
        ],
      );
      const signer = (await h.call('GET', `${roles('kube-public')}/system:controller:bootstrap-signer`)).body;
      assert.deepEqual(signer.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' });
      assert.deepEqual(signer.metadata.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
      assert.deepEqual(signer.rules[1], { apiGroups: [''], resources: ['configmaps'], verbs: ['update'], resourceNames: ['cluster-info'] });
      const lock = (await h.call('GET', `${bindings('kube-system')}/system::leader-locking-kube-scheduler`)).body;
      assert.deepEqual(lock.subjects, [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-scheduler' },
        { kind: 'ServiceAccount', name: 'kube-scheduler', namespace: 'kube-system' },
      ]);
      const scheduler = await h.call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        spec: {
          user: 'system:kube-scheduler',
          resourceAttributes: { namespace: 'kube-system', verb: 'update', group: 'coordination.k8s.io', resource: 'leases' },
        },
      });
      assert.equal(scheduler.body.status.allowed, true);
    } finally {
      await h.close();
    }
  });
});
