import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { openWatch, type ReceivedEvent } from '../../../testing/watch-reader.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const summary = (events: readonly ReceivedEvent[]) => events.map((event) => `${event.type}:${event.object.metadata?.name ?? ''}`);

describe('the deprecated /watch/ paths, served as the apiserver 1.32 serves them', () => {
  let h: ClusterHarness;
  let base: string;
  before(async () => {
    h = await startHarness({ bootstrapPolicy: true });
    base = await h.listen();
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'ns1' } });
  });
  after(async () => h.close());

  const role = (name: string) => h.call('POST', `${RBAC}/clusterroles`, { metadata: { name }, rules: [] });
  const event = (namespace: string, name: string) =>
    h.call('POST', `/api/v1/namespaces/${namespace}/events`, {
      metadata: { name },
      involvedObject: { kind: 'Pod', name: 'p', namespace },
      reason: 'Test',
      message: 'm',
      type: 'Normal',
    });

  it('streams a collection under /apis/{group}/{version}/watch/ without watch=true', async () => {
    const rv = await h.store.currentRevision();
    const watch = await openWatch(`${base}${RBAC}/watch/clusterroles?resourceVersion=${rv}`, ADMIN_TOKEN);
    assert.equal(watch.status, 200);
    assert.equal(watch.contentType, 'application/json');
    await role('watched-1');
    await watch.until((events) => events.length === 1, 'the ADDED event');
    assert.deepEqual(summary(watch.events), ['ADDED:watched-1']);
    watch.close();
  });

  it('streams namespaced events under /api/v1/watch/namespaces/{ns}/events, and across namespaces under /api/v1/watch/events', async () => {
    const rv = await h.store.currentRevision();
    const inNamespace = await openWatch(`${base}/api/v1/watch/namespaces/ns1/events?resourceVersion=${rv}`, ADMIN_TOKEN);
    const everywhere = await openWatch(`${base}/api/v1/watch/events?resourceVersion=${rv}`, ADMIN_TOKEN);
    await event('default', 'elsewhere');
    await event('ns1', 'here');
    await inNamespace.until((events) => events.length === 1, 'the ns1 event');
    await everywhere.until((events) => events.length === 2, 'both events');
    assert.deepEqual(summary(inNamespace.events), ['ADDED:here']);
    assert.deepEqual(summary(everywhere.events), ['ADDED:elsewhere', 'ADDED:here']);
    inNamespace.close();
    everywhere.close();
  });

  it('watches one object under /watch/clusterroles/{name}, as a metadata.name field selector', async () => {
    await role('single');
    await role('other');
    const watch = await openWatch(`${base}${RBAC}/watch/clusterroles/single`, ADMIN_TOKEN);
    await watch.until((events) => events.length === 1, 'the initial ADDED');
    await h.call('PATCH', `${RBAC}/clusterroles/other`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    await h.call('PATCH', `${RBAC}/clusterroles/single`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    await watch.until((events) => events.length === 2, 'the MODIFIED event');
    assert.deepEqual(summary(watch.events), ['ADDED:single', 'MODIFIED:single']);
    watch.close();
    const agreeing = await openWatch(`${base}${RBAC}/watch/clusterroles/single?fieldSelector=metadata.name%3Dsingle&timeoutSeconds=1`, ADMIN_TOKEN);
    await agreeing.ended;
    assert.deepEqual(summary(agreeing.events), ['ADDED:single']);
  });

  it("answers a field selector naming another object with the apiserver's 400, and other methods with 405", async () => {
    const mismatch = await h.call('GET', `${RBAC}/watch/clusterroles/single?fieldSelector=metadata.name%3Dother`);
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.message, "fieldSelector metadata.name doesn't match requested name");
    const posted = await h.call('POST', `${RBAC}/watch/clusterroles`, { metadata: { name: 'x' } });
    assert.equal(posted.status, 405);
    assert.equal(posted.body.kind, 'Status');
  });

  it('validates the options as sent: a watch path without watch=true is still validated as a list', async () => {
    const response = await h.call('GET', `${RBAC}/watch/clusterroles?sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(response.status, 422);
    assert.match(response.body.message, /sendInitialEvents is forbidden for list/);
  });

  it('authorizes a /watch/ path with the watch verb', async () => {
    const watch = await h.call('GET', `${RBAC}/watch/clusterroles?timeoutSeconds=1`, undefined, { authorization: 'Bearer alice-token' });
    assert.equal(watch.status, 403);
    assert.equal(
      watch.body.message,
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "alice@example.com" cannot watch resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    const named = await h.call('GET', `/api/v1/watch/namespaces/ns1/events/x?timeoutSeconds=1`, undefined, { authorization: 'Bearer alice-token' });
    assert.equal(named.body.message, 'events "x" is forbidden: User "alice@example.com" cannot watch resource "events" in API group "" in the namespace "ns1"');
  });

  it('lists the watch paths in the OpenAPI documents', async () => {
    const rbac = JSON.parse((await h.call('GET', '/openapi/v3/apis/rbac.authorization.k8s.io/v1')).raw.body);
    assert.equal(rbac.paths['/apis/rbac.authorization.k8s.io/v1/watch/clusterroles'].get['x-kubernetes-action'], 'watchlist');
    assert.equal(rbac.paths['/apis/rbac.authorization.k8s.io/v1/watch/clusterroles/{name}'].get['x-kubernetes-action'], 'watch');
    const core = JSON.parse((await h.call('GET', '/openapi/v3/api/v1')).raw.body);
    for (const path of ['/api/v1/watch/namespaces/{namespace}/events', '/api/v1/watch/namespaces/{namespace}/events/{name}', '/api/v1/watch/events'])
      assert.ok(core.paths[path]?.get, path);
  });
});
