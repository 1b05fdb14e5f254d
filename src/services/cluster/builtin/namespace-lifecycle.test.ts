import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ClusterHarness, startHarness } from '../../../testing/cluster-harness.ts';

const MERGE = { 'content-type': 'application/merge-patch+json' };

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('namespace deletion: Terminating, content removed as the namespace controller does, then gone', () => {
  let h: ClusterHarness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  it('moves to Terminating, refuses new content, removes every kind inside, and goes once its finalizers do', async () => {
    // A metadata finalizer keeps the namespace after its content is gone, so each stage can be seen.
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'team', finalizers: ['example.com/hold'] } });
    await h.call('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'cfg' }, data: { a: 'b' } });
    await h.call('POST', '/apis/coordination.k8s.io/v1/namespaces/team/leases', { metadata: { name: 'lock' }, spec: {} });
    const deleted = await h.call('DELETE', '/api/v1/namespaces/team');
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status.phase, 'Terminating');
    assert.equal(typeof deleted.body.metadata.deletionTimestamp, 'string');
    const refused = await h.call('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'late' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated');
    assert.deepEqual(refused.body.details.causes, [
      { reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' },
    ]);
    const again = await h.call('DELETE', '/api/v1/namespaces/team');
    assert.equal(again.status, 409);
    assert.equal(
      again.body.message,
      'Operation cannot be fulfilled on namespaces "team": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
    );
    await eventually(async () => (await h.call('GET', '/apis/coordination.k8s.io/v1/namespaces/team/leases/lock')).status === 404, 'the lease to go');
    assert.equal((await h.call('GET', '/api/v1/namespaces/team/configmaps/cfg')).status, 404);
    assert.equal((await h.call('GET', '/api/v1/namespaces/team')).body.status.phase, 'Terminating');
    const released = await h.call('PATCH', '/api/v1/namespaces/team', { metadata: { finalizers: null } }, MERGE);
    assert.equal(released.status, 200);
    assert.equal((await h.call('GET', '/api/v1/namespaces/team')).status, 404);
  });

  it('goes on its own when nothing holds it', async () => {
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'brief' } });
    await h.call('POST', '/api/v1/namespaces/brief/secrets', { metadata: { name: 's' }, stringData: { k: 'v' } });
    assert.equal((await h.call('DELETE', '/api/v1/namespaces/brief')).body.status.phase, 'Terminating');
    await eventually(async () => (await h.call('GET', '/api/v1/namespaces/brief')).status === 404, 'the namespace to go');
    assert.equal((await h.call('GET', '/api/v1/namespaces/brief/secrets/s')).status, 404);
  });

  it("has no deletecollection: DELETE of the collection is the route table's 405 and deletes nothing", async () => {
    const before = (await h.call('GET', '/api/v1/namespaces')).body.items.length;
    const refused = await h.call('DELETE', '/api/v1/namespaces');
    assert.equal(refused.status, 405);
    assert.deepEqual(refused.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] },
      code: 405,
    });
    assert.equal((await h.call('GET', '/api/v1/namespaces')).body.items.length, before);
  });
});
