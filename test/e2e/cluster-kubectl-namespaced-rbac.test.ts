import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const ADMIN = 'kubectl-ns-rbac-admin';
const ALICE = 'kubectl-ns-rbac-alice';
const CAROL = 'kubectl-ns-rbac-carol';
const GROUPS = '["devs" "system:authenticated"]';
/** What kubectl prints while the server serves no Pods (the kinds branch adds them; then stderr is empty). */
/** Pods are served, so kubectl's discovery check of `auth can-i … pods` warns of nothing. */
const NO_PODS = /^$/;

/** timeless replaces creation timestamps and ages, which depend on the wall clock, keeping the column widths. */
const timeless = (text: string): string => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'YYYY-MM-DDTHH:MM:SSZ').replace(/ \d+s( |\n)/g, ' Ns$1');

const ROLE_AND_BINDING = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: pod-reader
  namespace: team-a
rules:
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: read-pods
  namespace: team-a
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: pod-reader
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
`;

describe('namespaced RBAC with the real kubectl: Roles and RoleBindings in team-a, nothing in team-b', () => {
  let server: RunningFogbank;
  let admin: Kubectl;
  let alice: Kubectl;
  const file = (name: string, text: string): string => {
    const path = join(admin.dir, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    server = await startFogbank({
      host: '127.0.0.1',
      port: 0,
      store: 'memory',
      adminToken: ADMIN,
      tokens: [
        { token: ALICE, email: 'alice', scopes: [], permissions: [], groups: ['devs'] },
        { token: CAROL, email: 'carol', scopes: [], permissions: [] },
      ],
      logLevel: 'silent',
    });
    admin = await Kubectl.overHttps(server, ADMIN);
    alice = await Kubectl.overHttps(server, ALICE);
    for (const namespace of ['team-a', 'team-b'])
      assert.equal((await admin.run(['create', 'namespace', namespace])).stdout, `namespace/${namespace} created\n`);
  });
  after(async () => {
    admin.cleanup();
    alice.cleanup();
    await server.close();
  });

  it('creates roles and bindings, and prints them as a real cluster does', async () => {
    // With Pods served (kinds branch) this is the tutorial's `--resource=pods`; events exist today.
    const role = await admin.run(['create', 'role', 'event-reader', '--verb=get,list', '--resource=events', '-n', 'team-a']);
    assert.equal(role.stdout, 'role.rbac.authorization.k8s.io/event-reader created\n', role.stderr);
    assert.equal(
      (await admin.run(['create', 'rolebinding', 'alice-events', '--role=event-reader', '--user=alice', '-n', 'team-a'])).stdout,
      'rolebinding.rbac.authorization.k8s.io/alice-events created\n',
    );
    assert.equal(
      (await admin.run(['create', 'clusterrole', 'namespace-reader', '--verb=get', '--resource=namespaces'])).stdout,
      'clusterrole.rbac.authorization.k8s.io/namespace-reader created\n',
    );
    assert.equal(
      (
        await admin.run([
          'create',
          'rolebinding',
          'devs-namespace',
          '--clusterrole=namespace-reader',
          '--group=devs',
          '--serviceaccount=team-a:robot',
          '-n',
          'team-a',
        ])
      ).stdout,
      'rolebinding.rbac.authorization.k8s.io/devs-namespace created\n',
    );
    const listed = await admin.run(['get', 'roles,rolebindings', '-n', 'team-a']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(
      timeless(listed.stdout),
      [
        'NAME                                          CREATED AT',
        'role.rbac.authorization.k8s.io/event-reader   YYYY-MM-DDTHH:MM:SSZ',
        '',
        'NAME                                                   ROLE                           AGE',
        'rolebinding.rbac.authorization.k8s.io/alice-events     Role/event-reader              Ns',
        'rolebinding.rbac.authorization.k8s.io/devs-namespace   ClusterRole/namespace-reader   Ns',
        '',
      ].join('\n'),
    );
    const wide = await admin.run(['get', 'rolebindings', '-n', 'team-a', '-o', 'wide']);
    assert.equal(
      timeless(wide.stdout),
      [
        'NAME             ROLE                           AGE   USERS   GROUPS   SERVICEACCOUNTS',
        'alice-events     Role/event-reader              Ns    alice            ',
        'devs-namespace   ClusterRole/namespace-reader   Ns            devs     team-a/robot',
        '',
      ].join('\n'),
    );
    const none = await admin.run(['get', 'roles', '-n', 'team-b']);
    assert.equal(none.stderr, 'No resources found in team-b namespace.\n');
    const defaults = await admin.run(['get', 'rolebindings', '-n', 'kube-public', '-o', 'name']);
    assert.equal(defaults.stdout, 'rolebinding.rbac.authorization.k8s.io/system:controller:bootstrap-signer\n');
  });

  it("runs the RBAC tutorial's first commands: a pod reader, bound in team-a only", async () => {
    const created = await admin.run(['create', 'clusterrole', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    assert.equal(created.stdout, 'clusterrole.rbac.authorization.k8s.io/pod-reader created\n', created.stderr);
    assert.equal(
      (await admin.run(['create', 'rolebinding', 'tutorial-pods', '--clusterrole=pod-reader', '--user=carol', '-n', 'team-a'])).stdout,
      'rolebinding.rbac.authorization.k8s.io/tutorial-pods created\n',
    );
    const carol = await Kubectl.overHttps(server, CAROL);
    try {
      const listed = await carol.run(['get', 'pods', '-n', 'team-a']);
      assert.deepEqual([listed.code, listed.stderr], [0, 'No resources found in team-a namespace.\n']);
      const refused = await carol.run(['get', 'pods', '-n', 'team-b']);
      assert.equal(
        refused.stderr,
        'Error from server (Forbidden): pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "team-b"\n',
      );
    } finally {
      carol.cleanup();
    }
  });

  it('lets alice list in team-a and refuses her in team-b with the apiserver text', async () => {
    const listed = await alice.run(['get', 'events', '-n', 'team-a']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr, 'No resources found in team-a namespace.\n');
    const refused = await alice.run(['get', 'events', '-n', 'team-b']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'Error from server (Forbidden): events is forbidden: User "alice" cannot list resource "events" in API group "" in the namespace "team-b"\n',
    );
    assert.equal(
      (await alice.run(['get', 'namespace', 'team-a', '-o', 'name'])).stdout,
      'namespace/team-a\n',
      'a RoleBinding to a ClusterRole grants in its namespace',
    );
    assert.equal(
      (await alice.run(['get', 'namespace', 'team-b', '-o', 'name'])).stderr,
      'Error from server (Forbidden): namespaces "team-b" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "team-b"\n',
    );
  });

  it('answers auth can-i per namespace, for users and service accounts', async () => {
    const yes = await admin.run(['auth', 'can-i', 'list', 'events', '-n', 'team-a', '--as', 'alice']);
    assert.deepEqual([yes.stdout, yes.code], ['yes\n', 0]);
    const no = await admin.run(['auth', 'can-i', 'list', 'events', '-n', 'team-b', '--as', 'alice']);
    assert.deepEqual([no.stdout, no.code], ['no\n', 1]);
    const robot = await admin.run(['auth', 'can-i', 'get', 'namespaces/team-a', '-n', 'team-a', '--as', 'system:serviceaccount:team-a:robot']);
    assert.equal(robot.stdout, 'yes\n', robot.stderr);
    assert.equal((await admin.run(['auth', 'can-i', 'get', 'namespaces/team-b', '-n', 'team-b', '--as', 'system:serviceaccount:team-a:robot'])).stdout, 'no\n');
    // The authorizer takes any resource name: kubectl only warns when discovery does not list it.
    const applied = await admin.run(['apply', '--server-side', '-f', file('pod-reader.yaml', ROLE_AND_BINDING)]);
    assert.equal(
      applied.stdout,
      'role.rbac.authorization.k8s.io/pod-reader serverside-applied\nrolebinding.rbac.authorization.k8s.io/read-pods serverside-applied\n',
      applied.stderr,
    );
    const pods = await admin.run(['auth', 'can-i', 'list', 'pods', '-n', 'team-a', '--as', 'alice']);
    assert.equal(pods.stdout, 'yes\n');
    assert.match(pods.stderr, NO_PODS);
    const podsElsewhere = await admin.run(['auth', 'can-i', 'list', 'pods', '-n', 'team-b', '--as', 'alice']);
    assert.equal(podsElsewhere.stdout, 'no\n');
    assert.match(podsElsewhere.stderr, NO_PODS);
  });

  it('lists what alice may do in each namespace (auth can-i --list -n)', async () => {
    const teamA = await admin.run(['auth', 'can-i', '--list', '-n', 'team-a', '--as', 'alice', '--as-group', 'devs']);
    assert.equal(teamA.code, 0, teamA.stderr);
    assert.match(teamA.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    assert.match(teamA.stdout, /^events\s+\[\]\s+\[\]\s+\[get list\]$/m);
    assert.match(teamA.stdout, /^pods\s+\[\]\s+\[\]\s+\[get list\]$/m);
    assert.match(teamA.stdout, /^namespaces\s+\[\]\s+\[\]\s+\[get\]$/m);
    assert.match(teamA.stdout, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    const teamB = await admin.run(['auth', 'can-i', '--list', '-n', 'team-b', '--as', 'alice', '--as-group', 'devs']);
    assert.doesNotMatch(teamB.stdout, /^(events|pods|namespaces)\s/m);
    assert.match(teamB.stdout, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  });

  it('reconciles a Role and a RoleBinding from a multi-document file as kubectl auth reconcile prints it', async () => {
    const path = file(
      'team-b.yaml',
      ROLE_AND_BINDING.replaceAll('team-a', 'team-b')
        .replaceAll('pod-reader', 'event-watcher')
        .replace('["pods"]', '["events"]')
        .replace('read-pods', 'watch-events'),
    );
    const created = await admin.run(['auth', 'reconcile', '-f', path]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'role.rbac.authorization.k8s.io/event-watcher reconciled\nrolebinding.rbac.authorization.k8s.io/watch-events reconciled\n');
    assert.equal(
      created.stderr,
      [
        '\treconciliation required create',
        '\tmissing rules added:',
        '\t\t{Verbs:[get list] APIGroups:[] Resources:[events] ResourceNames:[] NonResourceURLs:[]}',
        '\treconciliation required create',
        '\tmissing subjects added:',
        '\t\t{Kind:User APIGroup:rbac.authorization.k8s.io Name:alice Namespace:}',
        '',
      ].join('\n'),
    );
    const again = await admin.run(['auth', 'reconcile', '-f', path]);
    assert.deepEqual([again.stdout, again.stderr], [created.stdout, '']);
    writeFileSync(path, readFileSync(path, 'utf8').replace('verbs: ["get", "list"]', 'verbs: ["get", "list", "watch"]'));
    const updated = await admin.run(['auth', 'reconcile', '-f', path]);
    assert.equal(
      updated.stderr,
      '\treconciliation required update\n\tmissing rules added:\n\t\t{Verbs:[watch] APIGroups:[] Resources:[events] ResourceNames:[] NonResourceURLs:[]}\n',
    );
    assert.equal((await admin.run(['get', 'role', 'event-watcher', '-n', 'team-b', '-o', 'jsonpath={.rules[*].verbs}'])).stdout, '["get","list"] ["watch"]');
    assert.equal((await alice.run(['auth', 'can-i', 'watch', 'events', '-n', 'team-b'])).stdout, 'yes\n');
    // A binding whose roleRef changed cannot be updated (roleRef is immutable): kubectl deletes and recreates it.
    const otherRole = readFileSync(path, 'utf8')
      .replace('name: event-watcher\n  namespace', 'name: event-lister\n  namespace')
      .replace('  name: event-watcher\nsubjects', '  name: event-lister\nsubjects');
    writeFileSync(path, otherRole);
    const recreated = await admin.run(['auth', 'reconcile', '-f', path]);
    assert.equal(recreated.code, 0, recreated.stderr);
    assert.equal(recreated.stdout, 'role.rbac.authorization.k8s.io/event-lister reconciled\nrolebinding.rbac.authorization.k8s.io/watch-events reconciled\n');
    assert.match(recreated.stderr, /\treconciliation required recreate\n$/);
    assert.equal((await admin.run(['get', 'rolebinding', 'watch-events', '-n', 'team-b', '-o', 'jsonpath={.roleRef.name}'])).stdout, 'event-lister');
  });

  it('refuses escalation with the real message, and honours bind', async () => {
    await admin.run([
      'create',
      'role',
      'role-maker',
      '--verb=create',
      '--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io',
      '-n',
      'team-a',
    ]);
    await admin.run(['create', 'rolebinding', 'alice-makes-roles', '--role=role-maker', '--user=alice', '-n', 'team-a']);
    assert.equal(
      (await alice.run(['create', 'role', 'reader-too', '--verb=get', '--resource=events', '-n', 'team-a'])).stdout,
      'role.rbac.authorization.k8s.io/reader-too created\n',
    );
    const escalation = await alice.run(['create', 'role', 'event-deleter', '--verb=delete', '--resource=events', '-n', 'team-a']);
    assert.equal(escalation.code, 1);
    assert.equal(
      escalation.stderr,
      `Error from server (Forbidden): roles.rbac.authorization.k8s.io "event-deleter" is forbidden: user "alice" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["events"], Verbs:["delete"]}\n`,
    );
    await admin.run(['create', 'clusterrole', 'event-deleter', '--verb=delete', '--resource=events']);
    const binding = await alice.run(['create', 'rolebinding', 'bob-deletes', '--clusterrole=event-deleter', '--user=bob', '-n', 'team-a']);
    assert.equal(binding.code, 1);
    // kubectl create rolebinding words a refused create its own way.
    assert.equal(
      binding.stderr,
      `error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "bob-deletes" is forbidden: user "alice" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["events"], Verbs:["delete"]}\n`,
    );
    await admin.run([
      'create',
      'role',
      'deleter-binder',
      '--verb=bind',
      '--resource=clusterroles.rbac.authorization.k8s.io',
      '--resource-name=event-deleter',
      '-n',
      'team-a',
    ]);
    await admin.run(['create', 'rolebinding', 'alice-binds-deleter', '--role=deleter-binder', '--user=alice', '-n', 'team-a']);
    assert.equal(
      (await alice.run(['create', 'rolebinding', 'bob-deletes', '--clusterrole=event-deleter', '--user=bob', '-n', 'team-a'])).stdout,
      'rolebinding.rbac.authorization.k8s.io/bob-deletes created\n',
    );
    assert.equal((await admin.run(['auth', 'can-i', 'delete', 'events', '-n', 'team-a', '--as', 'bob'])).stdout, 'yes\n');
    const elsewhere = await alice.run(['create', 'rolebinding', 'bob-deletes', '--clusterrole=event-deleter', '--user=bob', '-n', 'team-b']);
    assert.equal(
      elsewhere.stderr,
      'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team-b"\n',
    );
  });

  it('deletes a namespace with its roles and bindings', async () => {
    await admin.run(['create', 'namespace', 'team-c']);
    await admin.run(['create', 'role', 'r', '--verb=get', '--resource=events', '-n', 'team-c']);
    await admin.run(['create', 'rolebinding', 'b', '--role=r', '--user=alice', '-n', 'team-c']);
    assert.equal((await admin.run(['delete', 'namespace', 'team-c'])).stdout, 'namespace "team-c" deleted\n');
    await admin.run(['create', 'namespace', 'team-c']);
    assert.equal((await admin.run(['get', 'roles,rolebindings', '-n', 'team-c'])).stderr, 'No resources found in team-c namespace.\n');
  });
});
