import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startHarness, type ClusterHarness } from '../../../testing/cluster-harness.ts';
import { openWatch, type ReceivedEvent } from '../../../testing/watch-reader.ts';

const ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

const summary = (events: readonly ReceivedEvent[]) => events.map((event) => `${event.type}:${event.object.metadata?.name ?? ''}`);
const revisions = (events: readonly ReceivedEvent[]) => events.map((event) => Number(event.object.metadata.resourceVersion));

// Watchers without selectors in the same form share one subscription and one encoding per
// change (watch-channels.ts); each must still get exactly the changes after its own start.
describe('watch channels: watchers sharing one subscription', () => {
  let h: ClusterHarness;
  let base: string;
  before(async () => {
    h = await startHarness({ watch: { bookmarkIntervalMs: 100 } });
    base = await h.listen();
  });
  after(async () => h.close());

  it('a watcher joining behind the others gets the changes it missed, once each, then the shared ones', async () => {
    const from = await h.store.currentRevision();
    const first = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    await h.call('POST', ROLES, { metadata: { name: 'c1' }, rules: [] });
    await h.call('POST', ROLES, { metadata: { name: 'c2' }, rules: [] });
    await first.until((events) => events.length === 2, 'two events on the first watch');
    // Joins the open channel from the older revision: c1 and c2 come from the channel's recent lines.
    const behind = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    // Joins at the newest revision: nothing before it.
    const current = await h.store.currentRevision();
    const ahead = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${current}`, ADMIN_TOKEN);
    await h.call('DELETE', `${ROLES}/c1`);
    await first.until((events) => events.length === 3, 'three events on the first watch');
    await behind.until((events) => events.length === 3, 'three events on the watch behind');
    await ahead.until((events) => events.length === 1, 'one event on the watch ahead');
    assert.deepEqual(summary(first.events), ['ADDED:c1', 'ADDED:c2', 'DELETED:c1']);
    assert.deepEqual(summary(behind.events), ['ADDED:c1', 'ADDED:c2', 'DELETED:c1']);
    assert.deepEqual(revisions(behind.events), revisions(first.events));
    assert.deepEqual(summary(ahead.events), ['DELETED:c1']);
    first.close();
    behind.close();
    ahead.close();
  });

  it('a bookmark sent to one member comes after the shared events it was already sent', async () => {
    const from = await h.store.currentRevision();
    const plain = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    const bookmarked = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}&allowWatchBookmarks=true`, ADMIN_TOKEN);
    for (let i = 0; i < 5; i++) await h.call('POST', ROLES, { metadata: { name: `b${i}` }, rules: [] });
    await bookmarked.until((events) => events.some((event) => event.type === 'BOOKMARK'), 'a bookmark');
    await plain.until((events) => events.length === 5, 'five events');
    const bookmarkAt = bookmarked.events.findIndex((event) => event.type === 'BOOKMARK');
    const bookmarkRevision = Number(bookmarked.events[bookmarkAt]!.object.metadata.resourceVersion);
    // Every event at or before the bookmark's revision came before it.
    for (const event of bookmarked.events.slice(bookmarkAt + 1)) {
      if (event.type !== 'BOOKMARK') assert.ok(Number(event.object.metadata.resourceVersion) > bookmarkRevision, 'no event older than a bookmark after it');
    }
    assert.deepEqual(summary(plain.events), ['ADDED:b0', 'ADDED:b1', 'ADDED:b2', 'ADDED:b3', 'ADDED:b4']);
    plain.close();
    bookmarked.close();
  });

  it('a watcher leaving does not end the others; the last one leaving closes the channel, and a new one opens again', async () => {
    const from = await h.store.currentRevision();
    const leaving = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    const staying = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${from}`, ADMIN_TOKEN);
    await h.call('POST', ROLES, { metadata: { name: 'l1' }, rules: [] });
    await leaving.until((events) => events.length === 1, 'one event');
    leaving.close();
    await h.call('POST', ROLES, { metadata: { name: 'l2' }, rules: [] });
    await staying.until((events) => events.length === 2, 'two events');
    assert.deepEqual(summary(staying.events), ['ADDED:l1', 'ADDED:l2']);
    staying.close();
    const again = await h.store.currentRevision();
    const fresh = await openWatch(`${base}${ROLES}?watch=true&resourceVersion=${again}`, ADMIN_TOKEN);
    await h.call('POST', ROLES, { metadata: { name: 'l3' }, rules: [] });
    await fresh.until((events) => events.length === 1, 'one event');
    assert.deepEqual(summary(fresh.events), ['ADDED:l3']);
    fresh.close();
  });
});
