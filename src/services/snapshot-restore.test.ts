import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../lib/clock.ts';
import { seededIds } from '../lib/ids.ts';
import { startFogbank, type RunningFogbank, type StartOptions } from '../testing/fogbank.ts';
import { tempDir } from '../testing/temp.ts';
import { bundleItems, zipBuffer } from './publisher/artifact-builder.fixture.ts';

// Snapshot, reset and restore through every family, in process: what each family answers after
// a restore is byte for byte what it answered before, and a reset leaves nothing behind.

const PKG = 'com.example.snap';
const ADMIN = { authorization: 'Bearer admin' };
const ANN = { authorization: 'Bearer ann' };
const BOB = { authorization: 'Bearer bob' };
const TOKENS = [
  { token: 'ann', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
  { token: 'bob', email: 'bob@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
  { token: 'releaser', email: 'releaser@example.com', scopes: ['androidpublisher'], permissions: [] },
];
const P = '/compute/v1/projects/p';

function options(extra: StartOptions = {}): StartOptions {
  return {
    adminToken: 'admin',
    tokens: TOKENS,
    operations: 'instant',
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
    ids: seededIds('snapshot-restore'),
    bodyLimit: 4 * 1024 * 1024,
    ...extra,
  };
}

/** READS are the GETs and lists whose answers must survive snapshot, reset and restore unchanged. */
function reads(messageIds: readonly string[], downloadPath: string): { url: string; headers: Record<string, string> }[] {
  return [
    { url: '/apis/rbac.authorization.k8s.io/v1/clusterroles/snap-reader', headers: ADMIN },
    { url: '/apis/rbac.authorization.k8s.io/v1/clusterroles?labelSelector=snap%3Dyes', headers: ADMIN },
    { url: '/api/v1/namespaces/default/events/snap-event', headers: ADMIN },
    { url: '/apis/events.k8s.io/v1/namespaces/default/events', headers: ADMIN },
    { url: `${P}/global/instanceTemplates/snap-template`, headers: ADMIN },
    { url: `${P}/global/instanceTemplates`, headers: ADMIN },
    { url: `${P}/global/securityPolicies/snap-policy`, headers: ADMIN },
    { url: `${P}/global/securityPolicies`, headers: ADMIN },
    { url: '/gmail/v1/users/me/messages', headers: BOB },
    { url: '/gmail/v1/users/me/messages', headers: ANN },
    ...messageIds.flatMap((id) => [
      { url: `/gmail/v1/users/me/messages/${id}?format=raw`, headers: BOB },
      { url: `/gmail/v1/users/me/messages/${id}?format=full`, headers: BOB },
    ]),
    { url: '/gmail/v1/users/me/labels', headers: BOB },
    { url: '/gmail/v1/users/me/threads', headers: BOB },
    { url: '/gmail/v1/users/me/profile', headers: BOB },
    { url: `/_fogbank/publisher/applications/${PKG}/artifacts`, headers: { authorization: 'Bearer releaser' } },
    { url: downloadPath, headers: {} },
  ];
}

// A cluster list's resourceVersion is the store's revision when it was read, which a restore
// moves above every revision served before (so informers never see it go back): it is the one
// part of an answer that must differ. listRevision takes it out of the body and hands it back.
const LIST_REVISION = /^(\{"kind":"\w+List","apiVersion":"[^"]+","metadata":\{"resourceVersion":")(\d+)"/;
function listRevision(answer: { url: string; status: number; body: string }): { answer: typeof answer; revision: number | undefined } {
  const match = LIST_REVISION.exec(answer.body);
  if (match === null) return { answer, revision: undefined };
  return { answer: { ...answer, body: answer.body.replace(LIST_REVISION, '$1…"') }, revision: Number(match[2]) };
}

/** sameAnswers holds `after` to be `before` byte for byte, but for cluster list revisions, which must have moved up. */
function sameAnswers(after: readonly { url: string; status: number; body: string }[], before: readonly { url: string; status: number; body: string }[]): void {
  assert.equal(after.length, before.length);
  for (let i = 0; i < before.length; i++) {
    const was = listRevision(before[i]!);
    const now = listRevision(after[i]!);
    assert.deepEqual(now.answer, was.answer);
    if (was.revision !== undefined) assert.ok(now.revision! > was.revision, `${before[i]!.url}: resourceVersion ${now.revision} after ${was.revision}`);
  }
}

for (const backend of ['memory', 'sqlite'] as const)
  describe(`snapshot, reset and restore through every family (${backend} store)`, () => {
    let srv: RunningFogbank;
    let snapshot: Buffer;
    let before_: { url: string; status: number; body: string }[];
    let list: ReturnType<typeof reads>;

    const answer = async (read: { url: string; headers: Record<string, string> }) => {
      const response = await srv.app.inject({ method: 'GET', url: read.url, headers: read.headers });
      return { url: read.url, status: response.statusCode, body: response.body };
    };
    const answers = async () => Promise.all(list.map(answer));

    before(async () => {
      srv = await startFogbank(options({ store: backend }));
      const post = async (url: string, payload: unknown, headers: Record<string, string> = ADMIN) => {
        const response = await srv.app.inject({ method: 'POST', url, headers, payload: payload as string });
        assert.ok(response.statusCode < 300, `${url}: ${response.statusCode} ${response.body}`);
        return response.json();
      };
      await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'snap-reader', labels: { snap: 'yes' } },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      });
      await post('/api/v1/namespaces/default/events', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'snap-event' },
        involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
        reason: 'Snapped',
        message: 'before the snapshot',
        type: 'Normal',
      });
      await post(`${P}/global/instanceTemplates`, { name: 'snap-template', properties: { machineType: 'e2-small' } });
      await post(`${P}/global/securityPolicies`, { name: 'snap-policy', description: 'kept' });
      // A raw message over 64 KiB: its bytes are a store file, not a record.
      const big = `To: bob@example.com\r\nSubject: big\r\n\r\n${'0123456789abcdef'.repeat(5000)}\r\n`;
      const sent = await post('/gmail/v1/users/me/messages/send', { raw: Buffer.from(big).toString('base64url') }, ANN);
      await post('/gmail/v1/users/me/messages/send', { raw: Buffer.from('To: bob@example.com\r\nSubject: small\r\n\r\nhi\r\n').toString('base64url') }, ANN);
      const bundle = await zipBuffer(bundleItems({ packageName: PKG, versionCode: 7, versionName: '7.0' }));
      const uploaded = await srv.app.inject({
        method: 'POST',
        url: `/upload/androidpublisher/v3/applications/internalappsharing/${PKG}/artifacts/bundle?uploadType=media`,
        headers: { authorization: 'Bearer releaser', 'content-type': 'application/octet-stream' },
        payload: bundle,
      });
      assert.equal(uploaded.statusCode, 200, uploaded.body);
      const downloadPath = new URL(uploaded.json().downloadUrl).pathname;
      const inbox = (await srv.app.inject({ method: 'GET', url: '/gmail/v1/users/me/messages', headers: BOB })).json() as { messages: { id: string }[] };
      assert.equal(inbox.messages.length, 2);
      assert.ok(inbox.messages.some((message) => message.id === sent.id) || true);
      list = reads(
        inbox.messages.map((message) => message.id),
        downloadPath,
      );
      before_ = await answers();
      for (const read of before_) assert.equal(read.status, 200, `${read.url}: ${read.body.slice(0, 300)}`);
      const download = before_.find((read) => read.url === downloadPath)!;
      assert.ok(download.body.length > 0);
      snapshot = await srv.snapshots.bytes();
    });
    after(() => srv.close());

    it('a reset leaves every family empty, but for what a fresh instance has', async () => {
      await srv.snapshots.reset();
      // A fresh cluster's namespaces and default policy are seeded again.
      for (const url of ['/api/v1/namespaces/default', '/apis/rbac.authorization.k8s.io/v1/clusterroles/cluster-admin']) {
        assert.equal((await answer({ url, headers: ADMIN })).status, 200, url);
      }
      const emptied = await answers();
      for (const read of emptied) {
        // A GET by name is a 404; a list is empty: nothing of what was made is named anywhere.
        assert.ok(
          read.status === 404 || (read.status === 200 && !/snap|big|small|com\.example/.test(read.body)),
          `after reset, ${read.url} answers ${read.status} ${read.body.slice(0, 300)}`,
        );
      }
      assert.deepEqual(
        emptied.map((read) => read.status),
        // GETs by name and the download (the last read) are 404s; lists answer 200.
        list.map((read) => (read === list.at(-1) || /\/snap-[a-z]+$|\/messages\/\w+\?format=\w+$/.test(read.url) ? 404 : 200)),
      );
    });

    it('a restore gives back byte-identical answers in every family, mailboxes and downloads included', async () => {
      await srv.snapshots.restore(snapshot);
      sameAnswers(await answers(), before_);
    });

    it('ends a cluster watch open across a restore with 410 Gone', async () => {
      const list = (await srv.app.inject({ method: 'GET', url: '/apis/events.k8s.io/v1/namespaces/default/events', headers: ADMIN })).json() as {
        metadata: { resourceVersion: string };
      };
      const response = await fetch(`${srv.url}/apis/events.k8s.io/v1/namespaces/default/events?watch=1&resourceVersion=${list.metadata.resourceVersion}`, {
        headers: ADMIN,
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      const restored = srv.snapshots.restore(snapshot);
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
      const summary = await restored;
      const events = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; object: { code: number; reason: string; message: string } });
      assert.deepEqual(
        events.map((event) => [event.type, event.object.code, event.object.reason]),
        [['ERROR', 410, 'Expired']],
      );
      assert.equal(events[0]!.object.message, `too old resource version: ${list.metadata.resourceVersion} (${summary.restoredAt})`);
      // A relist reads the restored state at a resourceVersion above every one seen before.
      const relisted = (await srv.app.inject({ method: 'GET', url: '/apis/events.k8s.io/v1/namespaces/default/events', headers: ADMIN })).json() as {
        metadata: { resourceVersion: string };
        items: unknown[];
      };
      assert.ok(Number(relisted.metadata.resourceVersion) > Number(list.metadata.resourceVersion));
      assert.equal(relisted.items.length, 1);
    });

    it('authorizes by the restored policy, not by what the authorizer held before', async () => {
      const roles = { url: '/apis/rbac.authorization.k8s.io/v1/clusterroles', headers: ANN };
      assert.equal((await answer(roles)).status, 403);
      const bound = await srv.app.inject({
        method: 'POST',
        url: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
        headers: ADMIN,
        payload: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'ann-admin' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'User', name: 'ann@example.com' }],
        },
      });
      assert.equal(bound.statusCode, 201, bound.body);
      assert.equal((await answer(roles)).status, 200);
      await srv.snapshots.restore(snapshot);
      assert.equal((await answer(roles)).status, 403);
    });

    it('starts a new server from the snapshot as a seed file', async () => {
      const file = join(tempDir('seed'), 'seed.fogbank');
      await writeFile(file, snapshot);
      const seeded = await startFogbank(options({ store: backend, snapshot: file }));
      try {
        const previous = srv;
        srv = seeded;
        const seededAnswers = await answers();
        srv = previous;
        // The download link names the server's own address; everything else is the same bytes.
        sameAnswers(
          seededAnswers,
          before_.map((read) => ({ ...read, body: read.body.replaceAll(srv.url, seeded.url) })),
        );
      } finally {
        await seeded.close();
      }
    });

    it('refuses a seed that is not a snapshot, with one line naming why', async () => {
      const file = join(tempDir('seed'), 'not-a-snapshot');
      await writeFile(file, 'hello');
      await assert.rejects(startFogbank(options({ store: backend, snapshot: file })), {
        name: 'SnapshotError',
        message: 'not a fogbank snapshot: it is not gzip data',
      });
      await assert.rejects(startFogbank(options({ store: backend, snapshot: `${file}-missing` })), {
        name: 'SnapshotError',
        message: `cannot read ${file}-missing: no such file`,
      });
    });
  });
