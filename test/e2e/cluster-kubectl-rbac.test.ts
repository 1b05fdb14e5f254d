import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const ADMIN = 'kubectl-rbac-admin';
const ALICE = 'kubectl-rbac-alice';
const GROUPS = '["devs" "system:authenticated"]';

describe('RBAC with the real kubectl: alice (group devs) bound to an event reader', () => {
  let server: RunningFogbank;
  let admin: Kubectl;
  let alice: Kubectl;

  before(async () => {
    server = await startFogbank({
      host: '127.0.0.1',
      port: 0,
      store: 'memory',
      adminToken: ADMIN,
      tokens: [{ token: ALICE, email: 'alice@example.com', scopes: [], permissions: [], groups: ['devs'] }],
      logLevel: 'silent',
    });
    admin = new Kubectl(server.url, ADMIN);
    alice = new Kubectl(server.url, ALICE);
    assert.equal(
      (await admin.run(['create', 'clusterrole', 'event-reader', '--verb=get,list', '--resource=events'])).stdout,
      'clusterrole.rbac.authorization.k8s.io/event-reader created\n',
    );
    assert.equal(
      (await admin.run(['create', 'clusterrolebinding', 'devs-read-events', '--clusterrole=event-reader', '--group=devs'])).stdout,
      'clusterrolebinding.rbac.authorization.k8s.io/devs-read-events created\n',
    );
  });
  after(async () => {
    admin.cleanup();
    alice.cleanup();
    await server.close();
  });

  it('alice lists events and is refused creating a ClusterRole with the real message', async () => {
    const listed = await alice.run(['get', 'events', '-A']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stderr, 'No resources found\n');
    const refused = await alice.run(['create', 'clusterrole', 'mine', '--verb=get', '--resource=namespaces']);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io is forbidden: User "alice@example.com" cannot create resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope\n',
    );
    const roles = await alice.run(['get', 'clusterroles']);
    assert.equal(
      roles.stderr,
      'Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io is forbidden: User "alice@example.com" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope\n',
    );
  });

  it('auth can-i answers yes/no and --list prints the rules', async () => {
    assert.equal((await alice.run(['auth', 'can-i', 'list', 'events'])).stdout, 'yes\n');
    const no = await alice.run(['auth', 'can-i', 'create', 'clusterroles']);
    assert.equal(no.stdout, 'no\n');
    assert.equal(no.code, 1);
    const list = await alice.run(['auth', 'can-i', '--list']);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs\n/);
    assert.match(list.stdout, /^events\s+\[\]\s+\[\]\s+\[get list\]$/m);
    assert.match(list.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    assert.match(list.stdout, /^\s+\[\/api\/\*\]\s+\[\]\s+\[get\]$/m);
  });

  it('refuses escalation, and lets the admin impersonate alice', async () => {
    await admin.run(['create', 'clusterrole', 'role-maker', '--verb=create', '--resource=clusterroles.rbac.authorization.k8s.io']);
    await admin.run(['create', 'clusterrolebinding', 'alice-makes-roles', '--clusterrole=role-maker', '--user=alice@example.com']);
    assert.equal(
      (await alice.run(['create', 'clusterrole', 'reader-too', '--verb=get', '--resource=events'])).stdout,
      'clusterrole.rbac.authorization.k8s.io/reader-too created\n',
    );
    const escalation = await alice.run(['create', 'clusterrole', 'namespace-deleter', '--verb=delete', '--resource=namespaces']);
    assert.equal(
      escalation.stderr,
      `Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io "namespace-deleter" is forbidden: user "alice@example.com" (groups=${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["namespaces"], Verbs:["delete"]}\n`,
    );
    assert.equal((await admin.run(['auth', 'can-i', 'list', 'events', '--as', 'alice@example.com', '--as-group', 'devs'])).stdout, 'yes\n');
    const asAlice = await admin.run(['get', 'clusterroles', '--as', 'alice@example.com']);
    assert.equal(
      asAlice.stderr,
      'Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io is forbidden: User "alice@example.com" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope\n',
    );
    const aliceImpersonating = await alice.run(['get', 'events', '--as', 'bob']);
    assert.equal(
      aliceImpersonating.stderr,
      'Error from server (Forbidden): users "bob" is forbidden: User "alice@example.com" cannot impersonate resource "users" in API group "" at the cluster scope\n',
    );
  });
});
