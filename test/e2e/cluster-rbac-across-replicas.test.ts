import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startReplicaPair, type ReplicaPair } from '../harness/replicas.ts';

// Namespaced RBAC written through one `fogbank start --store postgres://…` replica decides the
// very next request another replica answers: each follows the store's change feed.

const TOKEN = 'e2e-rbac-replicas';
const RBAC = '/apis/rbac.authorization.k8s.io/v1/namespaces';

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

describe('namespaced RBAC across two replicas on one PostgreSQL', () => {
  let pair: ReplicaPair;
  before(async () => {
    pair = await startReplicaPair('rbac_replicas', TOKEN);
  });
  after(async () => {
    await pair?.stop();
  });

  it('a RoleBinding written through A grants (and, deleted, stops granting) at B at once', async () => {
    const { a, b } = pair;
    const asAlice = { 'impersonate-user': 'alice' };
    for (const name of ['team-a', 'team-b']) assert.equal((await call(a.url, 'POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
    assert.equal(
      (
        await call(a.url, 'POST', `${RBAC}/team-a/roles`, {
          metadata: { name: 'event-reader' },
          rules: [{ verbs: ['list'], apiGroups: [''], resources: ['events'] }],
        })
      ).status,
      201,
    );
    // B has answered alice before the grant, so its policy is loaded and must be brought up to date.
    assert.equal((await call(b.url, 'GET', '/api/v1/namespaces/team-a/events', undefined, asAlice)).status, 403);
    const binding = {
      metadata: { name: 'alice-reads' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'event-reader' },
      subjects: [{ kind: 'User', name: 'alice' }],
    };
    assert.equal((await call(a.url, 'POST', `${RBAC}/team-a/rolebindings`, binding)).status, 201);
    assert.equal((await call(b.url, 'GET', '/api/v1/namespaces/team-a/events', undefined, asAlice)).status, 200);
    const elsewhere = await call(b.url, 'GET', '/api/v1/namespaces/team-b/events', undefined, asAlice);
    assert.equal(elsewhere.status, 403);
    assert.equal(elsewhere.json['message'], 'events is forbidden: User "alice" cannot list resource "events" in API group "" in the namespace "team-b"');
    assert.equal((await call(a.url, 'DELETE', `${RBAC}/team-a/rolebindings/alice-reads`)).status, 200);
    assert.equal((await call(b.url, 'GET', '/api/v1/namespaces/team-a/events', undefined, asAlice)).status, 403);
    const defaults = await call(b.url, 'GET', `${RBAC}/kube-system/roles/system:controller:token-cleaner`);
    assert.equal(defaults.status, 200, 'the namespaced default policy is in the shared store');
  });
});
