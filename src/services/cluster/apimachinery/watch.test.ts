import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { openWatch, type ReceivedEvent } from '../../../testing/watch-reader.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
const MERGE = { 'content-type': 'application/merge-patch+json' };

const summary = (events: readonly ReceivedEvent[]) => events.map((event) => `${event.type}:${event.object.metadata?.name ?? ''}`);

describe('watch (reference §1.3, §3.3, §3.4)', () => {
  let h: ClusterHarness;
  let base: string;
  before(async () => {
    h = await startHarness({ store: { changeRetention: 30 }, watch: { bookmarkIntervalMs: 100 } });
    base = await h.listen();
  });
  after(async () => h.close());

  it('streams ADDED, MODIFIED and DELETED after a resourceVersion, as chunked JSON lines', async () => {
    const rv = await h.store.currentRevision();
    const watch = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${rv}`, ADMIN_TOKEN);
    assert.equal(watch.status, 200);
    assert.equal(watch.contentType, 'application/json');
    await h.call('POST', ROLES, { metadata: { name: 'w1' }, rules: [] });
    await h.call('PATCH', `${ROLES}/w1`, { metadata: { labels: { a: 'b' } } }, MERGE);
    await h.call('DELETE', `${ROLES}/w1`);
    await watch.until((events) => events.length === 3, 'three events');
    assert.deepEqual(summary(watch.events), ['ADDED:w1', 'MODIFIED:w1', 'DELETED:w1']);
    assert.equal(watch.events[0]!.object.kind, 'ClusterRole');
    assert.equal(watch.events[0]!.object.apiVersion, 'rbac.authorization.k8s.io/v1');
    assert.deepEqual(
      watch.events.map((event) => Number(event.object.metadata.resourceVersion)),
      [rv + 1, rv + 2, rv + 3],
    );
    assert.deepEqual(watch.events[2]!.object.metadata.labels, { a: 'b' }, 'DELETED carries the last state');
    watch.close();
  });

  it('starts with the current state when no resourceVersion is given, and ends at timeoutSeconds', async () => {
    await h.call('POST', ROLES, { metadata: { name: 'present' }, rules: [] });
    const watch = await openWatch(`${base}${ROLES}?watch=1&timeoutSeconds=1`, ADMIN_TOKEN);
    await watch.until((events) => events.length === 1, 'the initial ADDED');
    assert.deepEqual(summary(watch.events), ['ADDED:present']);
    await watch.ended;
  });

  it('sends initial events then the initial-events-end bookmark for sendInitialEvents', async () => {
    const watch = await openWatch(`${base}${ROLES}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, ADMIN_TOKEN);
    await watch.until((events) => events.some((event) => event.type === 'BOOKMARK'), 'the bookmark');
    assert.deepEqual(summary(watch.events).slice(0, 2), ['ADDED:present', 'BOOKMARK:']);
    assert.deepEqual(watch.events[1]!.object, {
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { resourceVersion: String(await h.store.currentRevision()), creationTimestamp: null, annotations: { 'k8s.io/initial-events-end': 'true' } },
    });
    watch.close();
  });

  it('sends periodic bookmarks once the revision moves', async () => {
    const watch = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${await h.store.currentRevision()}&allowWatchBookmarks=true`, ADMIN_TOKEN);
    await h.call('POST', '/api/v1/namespaces', { metadata: { name: 'elsewhere' } });
    const target = String(await h.store.currentRevision());
    await watch.until(
      (events) => events.some((event) => event.type === 'BOOKMARK' && event.object.metadata.resourceVersion === target),
      'a bookmark at the new revision',
    );
    assert.ok(watch.events.every((event) => event.type === 'BOOKMARK'));
    watch.close();
  });

  it('applies selectors to the stream: an object leaving the selection is DELETED for the watcher', async () => {
    await h.call('POST', ROLES, { metadata: { name: 'sel', labels: { team: 'a' } }, rules: [] });
    const watch = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${await h.store.currentRevision()}&labelSelector=team%3Da`, ADMIN_TOKEN);
    await h.call('POST', ROLES, { metadata: { name: 'other', labels: { team: 'b' } }, rules: [] });
    await h.call('PATCH', `${ROLES}/sel`, { metadata: { labels: { team: 'b' } } }, MERGE);
    await h.call('PATCH', `${ROLES}/other`, { metadata: { labels: { team: 'a' } } }, MERGE);
    await watch.until((events) => events.length === 2, 'two events');
    assert.deepEqual(summary(watch.events), ['DELETED:sel', 'ADDED:other']);
    const byName = await openWatch(`${base}${ROLES}?watch=true&fieldSelector=metadata.name%3Dother`, ADMIN_TOKEN);
    await byName.until((events) => events.length === 1, 'the named object');
    assert.deepEqual(summary(byName.events), ['ADDED:other']);
    watch.close();
    byName.close();
  });

  it('reports a compacted resourceVersion as an in-stream 410 ERROR', async () => {
    const old = await h.store.currentRevision();
    for (let i = 0; i < 35; i++) await h.call('POST', '/api/v1/namespaces', { metadata: { name: `fill-${i}` } });
    const watch = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${old}`, ADMIN_TOKEN);
    assert.equal(watch.status, 200);
    await watch.ended;
    const oldest = await h.store.oldestResumableRevision();
    assert.deepEqual(watch.events, [
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${old} (${oldest})`,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('streams one-row Tables with column definitions only on the first event', async () => {
    const watch = await openWatch(
      `${base}${ROLES}?watch=true&resourceVersion=${await h.store.currentRevision()}`,
      ADMIN_TOKEN,
      'application/json;as=Table;v=v1;g=meta.k8s.io',
    );
    assert.equal(watch.contentType, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    await h.call('POST', ROLES, { metadata: { name: 't1' }, rules: [] });
    await h.call('POST', ROLES, { metadata: { name: 't2' }, rules: [] });
    await watch.until((events) => events.length === 2, 'two table events');
    assert.equal(watch.events[0]!.object.kind, 'Table');
    assert.equal(watch.events[0]!.object.columnDefinitions.length, 2);
    assert.equal(watch.events[1]!.object.columnDefinitions, null);
    assert.deepEqual(watch.events[1]!.object.rows[0].cells, ['t2', '2025-01-01T00:00:00Z']);
    watch.close();
  });

  it('carries in each Table row what includeObject asks for: the object, its metadata by default, or nothing', async () => {
    const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const from = await h.store.currentRevision();
    const full = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}&includeObject=Object`, ADMIN_TOKEN, table);
    const metadata = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}`, ADMIN_TOKEN, table);
    const none = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}&includeObject=None`, ADMIN_TOKEN, table);
    await h.call('POST', ROLES, { metadata: { name: 'included' }, rules: [] });
    for (const watch of [full, metadata, none]) await watch.until((events) => events.length === 1, 'one table event');
    assert.equal(full.events[0]!.object.rows[0].object.kind, 'ClusterRole');
    assert.deepEqual(full.events[0]!.object.rows[0].object.rules, []);
    assert.equal(metadata.events[0]!.object.rows[0].object.kind, 'PartialObjectMetadata');
    assert.deepEqual(Object.keys(none.events[0]!.object.rows[0]), ['cells']);
    for (const watch of [full, metadata, none]) watch.close();
  });

  it('answers a Table watch with a bad includeObject as the list does: 422 before the stream starts', async () => {
    const bad = await h.call('GET', `${ROLES}?watch=true&includeObject=All`, undefined, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      "TableOptions.meta.k8s.io \"\" is invalid: includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty",
    );
  });

  it('loses nothing across a write burst', async () => {
    const watch = await openWatch(`${base}/api/v1/namespaces/default/events?watch=true&resourceVersion=${await h.store.currentRevision()}`, ADMIN_TOKEN);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', '/api/v1/namespaces/default/events', {
          metadata: { name: `burst-${i}` },
          involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
          reason: 'Burst',
        }),
      ),
    );
    await watch.until((events) => events.length === 50, 'fifty events');
    const revisions = watch.events.map((event) => Number(event.object.metadata.resourceVersion));
    assert.deepEqual(
      revisions,
      [...revisions].sort((a, b) => a - b),
    );
    assert.equal(new Set(watch.events.map((event) => event.object.metadata.name)).size, 50);
    watch.close();
  });

  it('gives each view its own encoding of a shared change, also to a watcher replaying older changes', async () => {
    const from = await h.store.currentRevision();
    const eventsV1 = await openWatch(`${base}/apis/events.k8s.io/v1/namespaces/default/events?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    const coreV1 = await openWatch(`${base}/api/v1/namespaces/default/events?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    const body = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Shared', message: name });
    await h.call('POST', '/api/v1/namespaces/default/events', body('shared-1'));
    await h.call('POST', '/api/v1/namespaces/default/events', body('shared-2'));
    // Opened after both changes: it replays them while the two live watchers already had them.
    const replaying = await openWatch(`${base}/apis/events.k8s.io/v1/namespaces/default/events?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    await h.call('POST', '/api/v1/namespaces/default/events', body('shared-3'));
    for (const watch of [eventsV1, coreV1, replaying]) await watch.until((events) => events.length === 3, 'three events');
    for (const watch of [eventsV1, replaying]) {
      assert.deepEqual(summary(watch.events), ['ADDED:shared-1', 'ADDED:shared-2', 'ADDED:shared-3']);
      assert.deepEqual(
        watch.events.map((event) => [event.object.apiVersion, event.object.note]),
        [1, 2, 3].map((n) => ['events.k8s.io/v1', `shared-${n}`]),
      );
    }
    assert.deepEqual(summary(coreV1.events), ['ADDED:shared-1', 'ADDED:shared-2', 'ADDED:shared-3']);
    assert.deepEqual(
      coreV1.events.map((event) => [event.object.apiVersion, event.object.message]),
      [1, 2, 3].map((n) => ['v1', `shared-${n}`]),
    );
    for (const watch of [eventsV1, coreV1, replaying]) watch.close();
  });
});
