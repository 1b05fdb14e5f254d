import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FogbankServer } from '../../core/server.ts';
import { ManualClock } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { startFogbank } from '../../testing/fogbank.ts';
import { mailService } from './index.ts';

// In-process requests through the public surface (both path spellings, every upload protocol).
let app: FogbankServer;
let close: () => Promise<void>;
const clock = new ManualClock(Date.UTC(2025, 5, 1));
const ann = { authorization: 'Bearer ann' };
const bob = { authorization: 'Bearer bob' };
const b64 = (text: string): string => Buffer.from(text).toString('base64url');

before(async () => {
  const server = await startFogbank({
    ephemeral: true,
    clock,
    ids: seededIds('mail-http'),
    adminToken: 'admin',
    tokens: [
      { token: 'ann', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
      { token: 'bob', email: 'bob@example.com', scopes: ['mail.modify'], permissions: [] },
    ],
    operations: 'instant',
    bodyLimit: 1024 * 1024,
    services: [mailService],
  });
  app = server.app;
  close = server.close;
});
after(() => close());

async function send(raw: string, extra: Record<string, unknown> = {}, headers = ann): Promise<{ id: string; threadId: string; labelIds: string[] }> {
  const response = await app.inject({ method: 'POST', url: '/mail/v1/users/me/messages/send', headers, payload: { raw: b64(raw), ...extra } });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function list(headers: Record<string, string>, query: string): Promise<string[]> {
  const response = await app.inject({ method: 'GET', url: `/gmail/v1/users/me/messages?${query}`, headers });
  assert.equal(response.statusCode, 200, response.body);
  return ((response.json().messages ?? []) as { id: string }[]).map((m) => m.id);
}

const get = async (headers: Record<string, string>, id: string, format = 'full') =>
  (await app.inject({ method: 'GET', url: `/gmail/v1/users/me/messages/${id}?format=${format}`, headers })).json();

describe('sending', () => {
  test('From is rewritten to the sender keeping its name; Message-ID and Date are added', async () => {
    const sent = await send('From: "Boss" <boss@elsewhere.com>\r\nTo: bob@example.com\r\nSubject: rewrite\r\n\r\nx');
    const headers = (await get(ann, sent.id, 'metadata')).payload.headers as { name: string; value: string }[];
    const value = (name: string) => headers.find((h) => h.name === name)?.value;
    assert.equal(value('From'), '"Boss" <ann@example.com>');
    assert.match(value('Message-ID')!, /^<[A-Za-z0-9_-]+@mail\.gmail\.com>$/);
    assert.equal(value('Date'), 'Sun, 1 Jun 2025 00:00:00 +0000');
  });

  test('threading: the sender needs threadId + References + subject; recipients thread by headers', async () => {
    const first = await send('To: bob@example.com\r\nSubject: Plans\r\nMessage-ID: <plans@example.com>\r\n\r\none');
    const withoutThreadId = await send('To: bob@example.com\r\nSubject: Re: Plans\r\nIn-Reply-To: <plans@example.com>\r\n\r\ntwo');
    assert.equal(withoutThreadId.threadId, withoutThreadId.id);
    const otherSubject = await send('To: bob@example.com\r\nSubject: Something else\r\nIn-Reply-To: <plans@example.com>\r\n\r\nthree', {
      threadId: first.threadId,
    });
    assert.equal(otherSubject.threadId, otherSubject.id);
    const reply = await send('To: bob@example.com\r\nSubject: RE: plans\r\nReferences: <plans@example.com>\r\n\r\nfour', { threadId: first.threadId });
    assert.equal(reply.threadId, first.threadId);
    const bobs = (await app.inject({ method: 'GET', url: '/gmail/v1/users/me/threads?q=plans', headers: bob })).json().threads as { id: string }[];
    const thread = (await app.inject({ method: 'GET', url: `/gmail/v1/users/me/threads/${bobs[0]!.id}?format=minimal`, headers: bob })).json();
    assert.deepEqual(
      thread.messages.map((m: { snippet: string }) => m.snippet),
      ['one', 'two', 'four'],
    );
  });

  test('the spec path, the upload path in both spellings and the resumable alias', async () => {
    const upload = await app.inject({
      method: 'POST',
      url: '/upload/mail/v1/users/me/drafts?uploadType=multipart',
      headers: { ...ann, 'content-type': 'multipart/related; boundary="b"' },
      payload:
        '--b\r\ncontent-type: application/json\r\n\r\n{"message":{}}\r\n--b\r\ncontent-type: message/rfc822\r\n\r\nTo: bob@example.com\r\nSubject: spec upload\r\n\r\nd\r\n--b--',
    });
    assert.equal(upload.statusCode, 200, upload.body);
    assert.match(upload.json().id, /^r-\d+$/);
    const initiated = await app.inject({
      method: 'POST',
      url: '/resumable/upload/gmail/v1/users/me/messages/send',
      headers: { ...ann, 'x-upload-content-type': 'message/rfc822' },
    });
    assert.equal(initiated.statusCode, 200);
    const location = new URL(String(initiated.headers['location']));
    assert.equal(location.pathname, '/resumable/upload/gmail/v1/users/me/messages/send');
    const done = await app.inject({
      method: 'PUT',
      url: `${location.pathname}${location.search}`,
      payload: 'To: bob@example.com\r\nSubject: resumable alias\r\n\r\nr',
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json().labelIds, ['SENT']);
    const sentToMetadata = await app.inject({
      method: 'POST',
      url: '/gmail/v1/users/me/messages/send',
      headers: { ...ann, 'content-type': 'message/rfc822' },
      payload: 'To: b@example.com\r\n\r\nx',
    });
    assert.equal(sentToMetadata.json().error.message, 'Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/');
  });
});

describe('search and lists', () => {
  test('q operators, negation, labelIds and pages', async () => {
    clock.set(Date.UTC(2025, 6, 1));
    const old = await send('To: bob@example.com\r\nCc: carol@example.com\r\nSubject: Invoice 7\r\n\r\npay the invoice');
    clock.set(Date.UTC(2025, 6, 20));
    const recent = await send('To: carol@example.com\r\nBcc: bob@example.com\r\nSubject: Lunch\r\n\r\nsoup today');
    clock.set(Date.UTC(2025, 6, 21));
    assert.deepEqual(await list(ann, 'q=cc:carol@example.com'), [old.id]);
    assert.deepEqual(await list(ann, 'q=bcc:bob'), [recent.id]);
    assert.deepEqual(await list(ann, `q=${encodeURIComponent('after:2025/07/10 to:carol')}`), [recent.id]);
    assert.deepEqual(await list(ann, `q=${encodeURIComponent('before:2025/07/10 subject:invoice')}`), [old.id]);
    assert.deepEqual(await list(ann, `q=${encodeURIComponent('newer_than:5d')}`), [recent.id]);
    assert.deepEqual(await list(ann, `q=${encodeURIComponent('"soup today"')}`), [recent.id]);
    assert.deepEqual(await list(ann, `q=${encodeURIComponent('from:ann -subject:lunch newer_than:30d')}`), [old.id]);
    const bobInbox = await list(bob, 'labelIds=INBOX&labelIds=UNREAD&q=is:unread%20from:ann@example.com%20newer_than:30d');
    assert.equal(bobInbox.length, 2);
    const page1 = (await app.inject({ method: 'GET', url: '/gmail/v1/users/me/messages?maxResults=1&q=newer_than:60d', headers: bob })).json();
    assert.equal(page1.messages.length, 1);
    const page2 = (
      await app.inject({ method: 'GET', url: `/gmail/v1/users/me/messages?maxResults=1&q=newer_than:60d&pageToken=${page1.nextPageToken}`, headers: bob })
    ).json();
    assert.notEqual(page2.messages[0].id, page1.messages[0].id);
    assert.equal(
      (await app.inject({ method: 'GET', url: '/gmail/v1/users/me/messages?q=is:nonsense', headers: bob })).json().error.message,
      'Invalid search query: is:nonsense',
    );
  });

  test('history: historyTypes filter, labelId and the mailbox historyId', async () => {
    const profile = (await app.inject({ method: 'GET', url: '/gmail/v1/users/me/profile', headers: bob })).json();
    const start = profile.historyId;
    const [id] = await list(bob, 'q=subject:lunch');
    await app.inject({
      method: 'POST',
      url: `/gmail/v1/users/me/messages/${id}/modify`,
      headers: bob,
      payload: { removeLabelIds: ['UNREAD'], addLabelIds: ['STARRED'] },
    });
    const history = (
      await app.inject({ method: 'GET', url: `/gmail/v1/users/me/history?startHistoryId=${start}&historyTypes=labelRemoved`, headers: bob })
    ).json();
    assert.deepEqual(
      history.history.map((h: { labelsRemoved: { labelIds: string[] }[] }) => h.labelsRemoved[0]!.labelIds),
      [['UNREAD']],
    );
    assert.equal(history.history[0].labelsAdded, undefined);
    assert.equal(history.historyId, String(Number(start) + 1));
  });

  test('labels: create, duplicate, system labels cannot be deleted, delete takes it off messages', async () => {
    const created = (await app.inject({ method: 'POST', url: '/gmail/v1/users/me/labels', headers: bob, payload: { name: 'Finance' } })).json();
    assert.deepEqual(created, { id: 'Label_1', name: 'Finance', type: 'user' });
    const duplicate = await app.inject({ method: 'POST', url: '/gmail/v1/users/me/labels', headers: bob, payload: { name: 'finance' } });
    assert.equal(duplicate.statusCode, 409);
    assert.equal(duplicate.json().error.message, 'Label name exists or conflicts');
    assert.equal((await app.inject({ method: 'DELETE', url: '/gmail/v1/users/me/labels/INBOX', headers: bob })).json().error.message, 'Invalid delete request');
    const [id] = await list(bob, 'q=subject:invoice');
    await app.inject({ method: 'POST', url: `/gmail/v1/users/me/messages/${id}/modify`, headers: bob, payload: { addLabelIds: ['Label_1'] } });
    assert.equal(
      (await app.inject({ method: 'POST', url: `/gmail/v1/users/me/messages/${id}/modify`, headers: bob, payload: { addLabelIds: ['Label_9'] } })).json().error
        .message,
      'Invalid label: Label_9',
    );
    assert.equal((await app.inject({ method: 'DELETE', url: '/gmail/v1/users/me/labels/Label_1', headers: bob })).statusCode, 204);
    assert.ok(!(await get(bob, id!, 'minimal')).labelIds.includes('Label_1'));
  });

  test('delete needs the full-mailbox scope; deleting removes the message', async () => {
    const [id] = await list(bob, 'q=subject:invoice');
    const denied = await app.inject({ method: 'DELETE', url: `/gmail/v1/users/me/messages/${id}`, headers: bob });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.details[0].reason, 'ACCESS_TOKEN_SCOPE_INSUFFICIENT');
    const sent = await list(ann, 'q=subject:invoice');
    assert.equal((await app.inject({ method: 'DELETE', url: `/gmail/v1/users/me/messages/${sent[0]}`, headers: ann })).statusCode, 204);
    assert.equal((await app.inject({ method: 'GET', url: `/gmail/v1/users/me/messages/${sent[0]}`, headers: ann })).statusCode, 404);
    // bob's copy shares the raw and is still readable.
    assert.equal((await get(bob, id!)).payload.body.data, b64('pay the invoice'));
  });

  test('401 without a token and with an unknown one, in the Google envelope', async () => {
    const none = await app.inject({ method: 'GET', url: '/gmail/v1/users/me/profile' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error.status, 'UNAUTHENTICATED');
    assert.match(none.json().error.message, /^Request is missing required authentication credential\./);
    const wrong = await app.inject({ method: 'GET', url: '/gmail/v1/users/me/profile', headers: { authorization: 'Bearer nope' } });
    assert.match(wrong.json().error.message, /^Request had invalid authentication credentials\./);
  });
});
