import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { Kubectl } from '../harness/kubectl.ts';

const ADMIN = 'kubectl-whoami-admin';
const ALICE = 'kubectl-whoami-alice';

describe('kubectl auth whoami against fogbank (authentication.k8s.io/v1 SelfSubjectReview)', () => {
  let server: RunningFogbank;
  let admin: Kubectl;
  let alice: Kubectl;

  before(async () => {
    server = await startFogbank({
      adminToken: ADMIN,
      tokens: [{ token: ALICE, email: 'alice@example.com', scopes: [], permissions: [], groups: ['devs'] }],
    });
    admin = new Kubectl(server.url, ADMIN);
    alice = new Kubectl(server.url, ALICE);
  });
  after(async () => {
    admin.cleanup();
    alice.cleanup();
    await server.close();
  });

  it("prints the admin's attributes as a table", async () => {
    const result = await admin.run(['auth', 'whoami']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    assert.equal(result.stdout, 'ATTRIBUTE   VALUE\nUsername    system:admin\nGroups      [system:masters system:authenticated]\n');
  });

  it("prints a token user's attributes (the default policy lets every authenticated user ask)", async () => {
    const result = await alice.run(['auth', 'whoami']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'ATTRIBUTE   VALUE\nUsername    alice@example.com\nGroups      [devs system:authenticated]\n');
  });

  it('prints the SelfSubjectReview itself with -o json', async () => {
    for (const [client, username, groups] of [
      [admin, 'system:admin', ['system:masters', 'system:authenticated']],
      [alice, 'alice@example.com', ['devs', 'system:authenticated']],
    ] as const) {
      const result = await client.run(['auth', 'whoami', '-o', 'json']);
      assert.equal(result.code, 0, result.stderr);
      const review = JSON.parse(result.stdout) as { kind: string; apiVersion: string; metadata: { creationTimestamp: string }; status: unknown };
      assert.equal(review.kind, 'SelfSubjectReview');
      assert.equal(review.apiVersion, 'authentication.k8s.io/v1');
      assert.match(review.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(review.status, { userInfo: { username, groups } });
    }
  });

  it('answers as the impersonated user', async () => {
    const result = await admin.run(['auth', 'whoami', '--as', 'bob', '--as-group', 'team']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'ATTRIBUTE   VALUE\nUsername    bob\nGroups      [team system:authenticated]\n');
  });

  it('lists the resource in api-resources', async () => {
    const result = await admin.run(['api-resources', '--api-group', 'authentication.k8s.io']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^selfsubjectreviews\s+authentication\.k8s\.io\/v1\s+false\s+SelfSubjectReview\ntokenreviews\s+authentication\.k8s\.io\/v1\s+false\s+TokenReview\n$/m,
    );
  });
});
