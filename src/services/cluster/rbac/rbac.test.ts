import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const ROLES = `${RBAC}/clusterroles`;
const BINDINGS = `${RBAC}/clusterrolebindings`;
const ALICE = { authorization: 'Bearer alice-token' };
const USER = 'alice@example.com';
const GROUPS = '["devs" "system:authenticated"]';

describe('RBAC: authorization, reviews, impersonation, escalation, default policy, aggregation', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness({ bootstrapPolicy: true });
    await h.call('POST', ROLES, {
      metadata: { name: 'event-reader' },
      rules: [{ verbs: ['get', 'list'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] }],
    });
    await h.call('POST', BINDINGS, {
      metadata: { name: 'devs-read-events' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'event-reader' },
      subjects: [{ kind: 'Group', name: 'devs' }],
    });
  });
  after(async () => h.close());

  it('holds the default roles and bindings of a fresh cluster', async () => {
    const roles = await h.call('GET', ROLES);
    const names = roles.body.items.map((item: { metadata: { name: string } }) => item.metadata.name);
    for (const name of [
      'admin',
      'cluster-admin',
      'edit',
      'view',
      'system:aggregate-to-view',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
    ])
      assert.ok(names.includes(name), name);
    const admin = roles.body.items.find((item: { metadata: { name: string } }) => item.metadata.name === 'cluster-admin');
    assert.deepEqual(admin.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    assert.deepEqual(admin.metadata.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
    const binding = await h.call('GET', `${BINDINGS}/cluster-admin`);
    assert.deepEqual(binding.body.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
  });

  it('aggregates view into edit into admin (selectors, sorted matches, no duplicates)', async () => {
    const view = (await h.call('GET', `${ROLES}/view`)).body;
    const source = (await h.call('GET', `${ROLES}/system:aggregate-to-view`)).body;
    assert.deepEqual(view.rules, source.rules);
    assert.equal(view.metadata.managedFields.at(-1).manager, 'clusterrole-aggregation-controller');
    assert.equal(view.metadata.managedFields.at(-1).operation, 'Apply');
    const edit = (await h.call('GET', `${ROLES}/edit`)).body;
    assert.ok(edit.rules.length > source.rules.length);
  });

  it('lets alice list events through her group binding and refuses the rest with the real 403', async () => {
    assert.equal((await h.call('GET', '/api/v1/events', undefined, ALICE)).status, 200);
    assert.equal((await h.call('GET', '/apis/events.k8s.io/v1/namespaces/default/events', undefined, ALICE)).status, 200);
    assert.equal((await h.call('GET', '/apis', undefined, ALICE)).status, 200, 'system:discovery via system:authenticated');
    const refused = await h.call('POST', ROLES, { metadata: { name: 'x' }, rules: [] }, ALICE);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `clusterroles.rbac.authorization.k8s.io is forbidden: User "${USER}" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`,
      reason: 'Forbidden',
      details: { group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
      code: 403,
    });
    const named = await h.call('DELETE', '/api/v1/namespaces/default/events/e1', undefined, ALICE);
    assert.equal(named.body.message, `events "e1" is forbidden: User "${USER}" cannot delete resource "events" in API group "" in the namespace "default"`);
    const path = await h.call('GET', '/apis', undefined, { 'impersonate-user': 'system:anonymous' });
    assert.equal(path.status, 403);
    assert.equal(path.body.message, 'forbidden: User "system:anonymous" cannot get path "/apis"');
    assert.equal((await h.call('GET', '/version', undefined, { 'impersonate-user': 'system:anonymous' })).status, 200, 'system:public-info-viewer');
  });

  it('answers SelfSubjectAccessReview with the RBAC reason, and validates it', async () => {
    const review = (spec: unknown) =>
      h.call(
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec },
        ALICE,
      );
    const allowed = await review({ resourceAttributes: { verb: 'list', group: '', resource: 'events', namespace: 'default' } });
    assert.equal(allowed.status, 201);
    assert.deepEqual(allowed.body.status, {
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "devs-read-events" of ClusterRole "event-reader" to Group "devs"',
    });
    assert.deepEqual((await review({ resourceAttributes: { verb: 'create', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' } })).body.status, {
      allowed: false,
    });
    assert.deepEqual((await review({ nonResourceAttributes: { verb: 'get', path: '/version' } })).body.status.allowed, true);
    const neither = await review({});
    assert.equal(neither.status, 422);
    assert.equal(
      neither.body.message,
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });

  it('lists the rules in SelfSubjectRulesReview', async () => {
    const rules = await h.call(
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
      ALICE,
    );
    assert.equal(rules.status, 201);
    assert.ok(
      rules.body.status.resourceRules.some(
        (rule: unknown) => JSON.stringify(rule) === JSON.stringify({ verbs: ['get', 'list'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] }),
      ),
    );
    assert.ok(rules.body.status.nonResourceRules.some((rule: { nonResourceURLs: string[] }) => rule.nonResourceURLs.includes('/api/*')));
    assert.equal(rules.body.status.incomplete, false);
  });

  it('impersonates only for principals allowed to, and then authorizes as the impersonated user', async () => {
    const asBob = { 'impersonate-user': 'bob', 'impersonate-group': 'devs' };
    const refused = await h.call('GET', '/api/v1/events', undefined, { ...ALICE, ...asBob });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, `users "bob" is forbidden: User "${USER}" cannot impersonate resource "users" in API group "" at the cluster scope`);
    const asAdmin = await h.call('GET', '/api/v1/events', undefined, asBob);
    assert.equal(asAdmin.status, 200);
    const bobCannot = await h.call('GET', ROLES, undefined, asBob);
    assert.equal(
      bobCannot.body.message,
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
  });

  it('authorizes an impersonated user against a binding the admin wrote a moment before', async () => {
    // The admin's own requests do not bring the policy up to date (system:masters needs none):
    // an impersonating one must, or carol would be judged by the policy before her binding.
    const asCarol = { 'impersonate-user': 'carol' };
    assert.equal((await h.call('GET', ROLES, undefined, asCarol)).status, 403);
    assert.equal(
      (
        await h.call('POST', ROLES, {
          metadata: { name: 'role-lister' },
          rules: [{ verbs: ['list'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'] }],
        })
      ).status,
      201,
    );
    const bound = await h.call('POST', BINDINGS, {
      metadata: { name: 'carol-lists' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-lister' },
      subjects: [{ kind: 'User', name: 'carol' }],
    });
    assert.equal(bound.status, 201);
    assert.equal((await h.call('GET', ROLES, undefined, asCarol)).status, 200);
  });

  it('prevents escalation on ClusterRole and ClusterRoleBinding writes with the real texts', async () => {
    await h.call('POST', ROLES, {
      metadata: { name: 'role-writer' },
      rules: [{ verbs: ['create', 'update', 'patch'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles', 'clusterrolebindings'] }],
    });
    await h.call('POST', BINDINGS, {
      metadata: { name: 'alice-writes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-writer' },
      subjects: [{ kind: 'User', name: USER }],
    });
    const held = await h.call('POST', ROLES, { metadata: { name: 'subset' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['events'] }] }, ALICE);
    assert.equal(held.status, 201, 'rules alice holds may be granted');
    const escalating = await h.call(
      'POST',
      ROLES,
      { metadata: { name: 'more' }, rules: [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets', 'events'] }] },
      ALICE,
    );
    assert.equal(escalating.status, 403);
    assert.equal(
      escalating.body.message,
      `clusterroles.rbac.authorization.k8s.io "more" is forbidden: user "${USER}" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["events"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}`,
    );
    const aggregated = await h.call(
      'POST',
      ROLES,
      { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } },
      ALICE,
    );
    assert.equal(
      aggregated.body.message,
      'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
    const bindAdmin = await h.call(
      'POST',
      BINDINGS,
      {
        metadata: { name: 'alice-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'User', name: USER }],
      },
      ALICE,
    );
    assert.equal(bindAdmin.status, 403);
    assert.match(
      bindAdmin.body.message,
      /^clusterrolebindings\.rbac\.authorization\.k8s\.io "alice-admin" is forbidden: user "alice@example\.com" \(groups=\["devs" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}$/,
    );
    const missing = await h.call(
      'POST',
      BINDINGS,
      {
        metadata: { name: 'nothing' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'nope' },
        subjects: [{ kind: 'User', name: USER }],
      },
      ALICE,
    );
    assert.equal(
      missing.body.message,
      'clusterrolebindings.rbac.authorization.k8s.io "nothing" is forbidden: clusterrole.rbac.authorization.k8s.io "nope" not found',
    );
  });

  it('validates ClusterRoleBindings with the real texts (and defaults subject apiGroup)', async () => {
    const bad = await h.call('POST', BINDINGS, {
      metadata: { name: 'bad' },
      roleRef: { apiGroup: 'x', kind: 'Role', name: '' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa' },
        { kind: 'Robot', name: 'r' },
      ],
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'ClusterRoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.apiGroup: Unsupported value: "x": supported values: "rbac.authorization.k8s.io", roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", roleRef.name: Required value, subjects[0].namespace: Required value, subjects[1].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
    );
    const changed = await h.call('PATCH', `${BINDINGS}/devs-read-events`, { roleRef: { name: 'view' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /roleRef: Invalid value: .*: cannot change roleRef$/);
  });

  it('picks up a labelled role into an aggregated role, drops it when the label goes, and overwrites direct edits', async () => {
    await h.call('POST', ROLES, {
      metadata: { name: 'collector' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] },
    });
    await h.call('POST', ROLES, {
      metadata: { name: 'z-part', labels: { 'example.com/agg': 'true' } },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    });
    await h.call('POST', ROLES, {
      metadata: { name: 'a-part', labels: { 'example.com/agg': 'true' } },
      rules: [
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      ],
    });
    const settled = async () => {
      for (let i = 0; i < 100; i++) {
        const body = (await h.call('GET', `${ROLES}/collector`)).body;
        if (JSON.stringify(body.rules ?? []) === JSON.stringify(want)) return body;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.fail(`collector never reached ${JSON.stringify(want)}`);
    };
    let want: unknown[] = [
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
    ];
    await settled();
    await h.call('PUT', `${ROLES}/collector`, {
      metadata: { name: 'collector' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] },
      rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    });
    await settled();
    await h.call('PATCH', `${ROLES}/a-part`, { metadata: { labels: { 'example.com/agg': null } } }, { 'content-type': 'application/merge-patch+json' });
    want = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
    await settled();
  });
});
