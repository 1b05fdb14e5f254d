import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Readable } from 'node:stream';
import { auth, gmail, type gmail_v1 } from '@googleapis/gmail';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

// The real client with only rootUrl changed; a media call also takes rootUrl in its own options
// (googleapis-common applies the client-wide rootUrl to the metadata URL only).
let server: RunningFogbank;
let rootUrl: string;
const client = (token: string): gmail_v1.Gmail => {
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token });
  return gmail({ version: 'v1', rootUrl, auth: oauth, retry: false } as never);
};
let ann: gmail_v1.Gmail;
let bob: gmail_v1.Gmail;
let carol: gmail_v1.Gmail;
let dave: gmail_v1.Gmail;
let admin: gmail_v1.Gmail;

const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64url');
const header = (message: gmail_v1.Schema$Message, name: string): string | undefined =>
  message.payload?.headers?.find((h) => h.name?.toLowerCase() === name.toLowerCase())?.value ?? undefined;

async function apiError(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status?: number; response?: { status: number; data: { error: { message: string } } } };
    return { status: e.response!.status, message: e.response!.data.error.message };
  }
  throw new Error('the call succeeded');
}

before(async () => {
  server = await startFogbank({
    ephemeral: true,
    port: 0,
    adminToken: 'admin-token',
    tokens: [
      { token: 'ann-token', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] },
      { token: 'bob-token', email: 'bob@example.com', scopes: ['https://www.googleapis.com/auth/mail.modify'], permissions: [] },
      { token: 'carol-token', email: 'carol@example.com', scopes: ['gmail.readonly'], permissions: [] },
      { token: 'dave-token', email: 'dave@example.com', scopes: ['mail.send'], permissions: [] },
    ],
  });
  rootUrl = `${server.url}/`;
  ann = client('ann-token');
  bob = client('bob-token');
  carol = client('carol-token');
  dave = client('dave-token');
  admin = client('admin-token');
});
after(() => server.close());

describe('mail through @googleapis/gmail', () => {
  const attachment = Buffer.from('%PDF-1.4 fake pdf bytes\n');
  const rich = [
    'From: Ann <ann@example.com>',
    'To: Bob <bob@example.com>',
    'Cc: carol@example.com',
    'Bcc: dave@example.com',
    'Subject: Quarterly report',
    'Message-ID: <report-1@example.com>',
    'Date: Mon, 2 Jun 2025 10:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="XX"',
    '',
    '--XX',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Numbers attached. Cheers',
    '--XX',
    'Content-Type: application/pdf; name="report.pdf"',
    'Content-Disposition: attachment; filename="report.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    attachment.toString('base64'),
    '--XX--',
    '',
  ].join('\r\n');
  let sent: gmail_v1.Schema$Message;

  test('send with requestBody.raw: To, Cc, Bcc and an attachment reach every mailbox; Bcc only on the SENT copy', async () => {
    sent = (await ann.users.messages.send({ userId: 'me', requestBody: { raw: b64(rich) } })).data;
    assert.match(sent.id!, /^[0-9a-f]{16}$/);
    assert.equal(sent.threadId, sent.id);
    assert.deepEqual(sent.labelIds, ['SENT']);
    const own = (await ann.users.messages.get({ userId: 'me', id: sent.id! })).data;
    assert.equal(header(own, 'Bcc'), 'dave@example.com');
    assert.equal(own.snippet, 'Numbers attached. Cheers');
    for (const reader of [bob, carol]) {
      const list = (await reader.users.messages.list({ userId: 'me', q: 'subject:quarterly has:attachment' })).data;
      assert.equal(list.messages?.length, 1);
      const copy = (await reader.users.messages.get({ userId: 'me', id: list.messages![0]!.id! })).data;
      assert.deepEqual(copy.labelIds, ['INBOX', 'UNREAD']);
      assert.equal(header(copy, 'Bcc'), undefined);
      assert.equal(copy.payload?.mimeType, 'multipart/mixed');
      assert.deepEqual(
        copy.payload?.parts?.map((p) => [p.partId, p.mimeType, p.filename]),
        [
          ['0', 'text/plain', ''],
          ['1', 'application/pdf', 'report.pdf'],
        ],
      );
      assert.equal(Buffer.from(copy.payload!.parts![0]!.body!.data!, 'base64url').toString(), 'Numbers attached. Cheers');
      assert.equal(copy.payload!.parts![0]!.body!.size, 24);
      const part = copy.payload!.parts![1]!;
      const fetched = (await reader.users.messages.attachments.get({ userId: 'me', messageId: copy.id!, id: part.body!.attachmentId! })).data;
      assert.equal(Buffer.from(fetched.data!, 'base64url').toString(), attachment.toString());
      assert.equal(fetched.size, attachment.length);
    }
    // dave holds only gmail.send, so the admin reads his mailbox: the Bcc recipient got it, without Bcc.
    const daves = (await admin.users.messages.list({ userId: 'dave@example.com' })).data;
    const daveCopy = (await admin.users.messages.get({ userId: 'dave@example.com', id: daves.messages![0]!.id!, format: 'raw' })).data;
    assert.ok(!Buffer.from(daveCopy.raw!, 'base64url').toString().includes('Bcc:'));
  });

  test('format=raw round-trips byte for byte; metadata and minimal formats', async () => {
    const raw = (await ann.users.messages.get({ userId: 'me', id: sent.id!, format: 'raw' })).data;
    assert.equal(Buffer.from(raw.raw!, 'base64url').toString(), rich);
    const metadata = (await ann.users.messages.get({ userId: 'me', id: sent.id!, format: 'metadata', metadataHeaders: ['Subject', 'To'] })).data;
    assert.deepEqual(metadata.payload?.headers, [
      { name: 'To', value: 'Bob <bob@example.com>' },
      { name: 'Subject', value: 'Quarterly report' },
    ]);
    const minimal = (await ann.users.messages.get({ userId: 'me', id: sent.id!, format: 'minimal' })).data;
    assert.equal(minimal.payload, undefined);
    assert.equal(minimal.sizeEstimate, Buffer.byteLength(rich));
  });

  test('send with media: multipart and media-only; From is filled in, Message-ID added', async () => {
    const multipart = (
      await ann.users.messages.send(
        { userId: 'me', requestBody: {}, media: { mimeType: 'message/rfc822', body: 'To: bob@example.com\r\nSubject: via multipart\r\n\r\nfirst' } },
        { rootUrl },
      )
    ).data;
    const mediaOnly = (
      await ann.users.messages.send(
        {
          userId: 'me',
          media: {
            mimeType: 'message/rfc822',
            body: Readable.from([Buffer.from('From: someone@else.com\r\nTo: bob@example.com\r\nSubject: via media\r\n\r\nsecond')]),
          },
        },
        { rootUrl },
      )
    ).data;
    const streamed = (
      await ann.users.messages.send(
        {
          userId: 'me',
          requestBody: {},
          media: {
            mimeType: 'message/rfc822',
            body: Readable.from([Buffer.from('To: bob@example.com\r\nSubject: via streamed multipart\r\n\r\n'), Buffer.from('third')]),
          },
        },
        { rootUrl },
      )
    ).data;
    assert.equal((await ann.users.messages.get({ userId: 'me', id: streamed.id!, format: 'minimal' })).data.snippet, 'third');
    for (const id of [multipart.id!, mediaOnly.id!]) {
      const message = (await ann.users.messages.get({ userId: 'me', id })).data;
      assert.equal(header(message, 'From')?.replace(/^.*</, '').replace(/>$/, ''), 'ann@example.com');
      assert.match(header(message, 'Message-ID')!, /^<[^@]+@mail\.gmail\.com>$/);
    }
    const inbox = (await bob.users.messages.list({ userId: 'me', q: 'subject:via' })).data;
    assert.equal(inbox.messages?.length, 3);
  });

  test('a draft created, listed, updated and sent; then gone', async () => {
    const draft = (await ann.users.drafts.create({ userId: 'me', requestBody: { message: { raw: b64('To: bob@example.com\r\nSubject: Draft\r\n\r\nv1') } } }))
      .data;
    assert.match(draft.id!, /^r-\d+$/);
    assert.deepEqual(draft.message?.labelIds, ['DRAFT']);
    assert.deepEqual(
      (await ann.users.drafts.list({ userId: 'me' })).data.drafts?.map((d) => d.id),
      [draft.id],
    );
    const updated = (
      await ann.users.drafts.update({ userId: 'me', id: draft.id!, requestBody: { message: { raw: b64('To: bob@example.com\r\nSubject: Draft\r\n\r\nv2') } } })
    ).data;
    assert.equal(updated.id, draft.id);
    const got = (await ann.users.drafts.get({ userId: 'me', id: draft.id! })).data;
    assert.equal(got.message?.snippet, 'v2');
    const sentDraft = (await ann.users.drafts.send({ userId: 'me', requestBody: { id: draft.id! } })).data;
    assert.deepEqual(sentDraft.labelIds, ['SENT']);
    assert.equal((await ann.users.drafts.list({ userId: 'me' })).data.drafts, undefined);
    assert.deepEqual(await apiError(ann.users.drafts.get({ userId: 'me', id: draft.id! })), { status: 404, message: 'Requested entity was not found.' });
    const bobs = (await bob.users.messages.list({ userId: 'me', q: 'subject:draft v2' })).data;
    assert.equal(bobs.messages?.length, 1);
  });

  test('a reply joins the thread in both mailboxes; history lists the sends', async () => {
    const original = (await bob.users.messages.list({ userId: 'me', q: 'rfc822msgid:report-1@example.com' })).data.messages![0]!;
    const reply = (
      await bob.users.messages.send({
        userId: 'me',
        requestBody: {
          threadId: original.threadId!,
          raw: b64(
            'To: ann@example.com\r\nSubject: Re: Quarterly report\r\nIn-Reply-To: <report-1@example.com>\r\nReferences: <report-1@example.com>\r\n\r\nThanks!',
          ),
        },
      })
    ).data;
    assert.equal(reply.threadId, original.threadId);
    const annThread = (await ann.users.threads.get({ userId: 'me', id: sent.threadId! })).data;
    assert.equal(annThread.messages?.length, 2);
    assert.equal(annThread.messages![1]!.snippet, 'Thanks!');
    const history = (await ann.users.history.list({ userId: 'me', startHistoryId: '1', historyTypes: ['messageAdded'] })).data;
    assert.ok((history.history?.length ?? 0) >= 4);
    assert.ok(history.history!.every((h) => h.messagesAdded !== undefined));
    const profile = (await ann.users.getProfile({ userId: 'me' })).data;
    assert.equal(profile.emailAddress, 'ann@example.com');
    assert.equal(profile.historyId, history.historyId);
  });

  test('labels, modify, trash and untrash', async () => {
    const labels = (await bob.users.labels.list({ userId: 'me' })).data.labels!;
    assert.ok(['INBOX', 'SENT', 'DRAFT', 'UNREAD', 'TRASH', 'SPAM', 'STARRED'].every((id) => labels.some((l) => l.id === id && l.type === 'system')));
    const label = (await bob.users.labels.create({ userId: 'me', requestBody: { name: 'Reports' } })).data;
    const id = (await bob.users.messages.list({ userId: 'me', q: 'is:unread subject:quarterly' })).data.messages![0]!.id!;
    const modified = (await bob.users.messages.modify({ userId: 'me', id, requestBody: { addLabelIds: [label.id!], removeLabelIds: ['UNREAD'] } })).data;
    assert.deepEqual(modified.labelIds, ['INBOX', label.id]);
    assert.equal((await bob.users.messages.list({ userId: 'me', q: 'label:reports' })).data.messages?.[0]?.id, id);
    await bob.users.messages.trash({ userId: 'me', id });
    assert.equal((await bob.users.messages.list({ userId: 'me', q: 'label:reports' })).data.messages, undefined);
    assert.equal((await bob.users.messages.list({ userId: 'me', q: 'label:reports', includeSpamTrash: true })).data.messages?.length, 1);
    await bob.users.messages.untrash({ userId: 'me', id });
    assert.equal((await bob.users.labels.get({ userId: 'me', id: label.id! })).data.messagesTotal, 1);
  });

  test('every bad input answers Gmail’s 4xx with its message', async () => {
    const send = (raw: string) => ann.users.messages.send({ userId: 'me', requestBody: { raw } });
    assert.deepEqual(await apiError(ann.users.messages.send({ userId: 'me', requestBody: {} })), {
      status: 400,
      message: "'raw' RFC822 payload message string or uploading message via /upload/* URL required",
    });
    assert.deepEqual(await apiError(send('not base64!')), { status: 400, message: 'Invalid value for ByteString: not base64!' });
    assert.deepEqual(await apiError(send(b64('To: human@f\r\n\r\nx'))), { status: 400, message: 'Invalid To header' });
    assert.deepEqual(await apiError(send(b64('To: a@example.com\r\nCc: nope\r\n\r\nx'))), { status: 400, message: 'Invalid Cc header' });
    assert.deepEqual(await apiError(send(b64('To: a@example.com\r\nBcc: x@\r\n\r\nx'))), { status: 400, message: 'Invalid Bcc header' });
    assert.deepEqual(await apiError(send(b64('Subject: nobody\r\n\r\nx'))), { status: 400, message: 'Recipient address required' });
    assert.deepEqual(await apiError(send(b64('this is not a message'))), {
      status: 400,
      message: 'Invalid RFC822 message: it does not start with a header field.',
    });
    assert.deepEqual(await apiError(ann.users.drafts.send({ userId: 'me', requestBody: { id: 'r-123' } })), {
      status: 404,
      message: 'Requested entity was not found.',
    });
    const draft = (await ann.users.drafts.create({ userId: 'me', requestBody: { message: { raw: b64('Subject: no one yet\r\n\r\nx') } } })).data;
    assert.deepEqual(await apiError(ann.users.drafts.send({ userId: 'me', requestBody: { id: draft.id! } })), {
      status: 400,
      message: 'Recipient address required',
    });
    assert.deepEqual(
      await apiError(ann.users.messages.send({ userId: 'me', media: { mimeType: 'text/plain', body: 'To: b@example.com\r\n\r\nx' } }, { rootUrl })),
      { status: 400, message: "Media type 'text/plain' is not supported. Valid media types: [message/*]" },
    );
    assert.deepEqual(
      await apiError(ann.users.messages.send({ userId: 'me', media: { mimeType: 'message/rfc822', body: Buffer.alloc(36_700_161, 0x61) } }, { rootUrl })),
      { status: 413, message: 'Media larger than the maximum size of 36700160 bytes.' },
    );
    assert.deepEqual(await apiError(ann.users.messages.list({ userId: 'bob@example.com' })), { status: 403, message: 'Delegation denied for bob@example.com' });
    assert.deepEqual(await apiError(carol.users.messages.send({ userId: 'me', requestBody: { raw: b64('To: a@example.com\r\n\r\nx') } })), {
      status: 403,
      message: 'Request had insufficient authentication scopes.',
    });
    assert.deepEqual(await apiError(dave.users.drafts.create({ userId: 'me', requestBody: { message: { raw: b64('To: a@example.com\r\n\r\nx') } } })), {
      status: 403,
      message: 'Request had insufficient authentication scopes.',
    });
    assert.equal((await apiError(client('wrong').users.getProfile({ userId: 'me' }))).status, 401);
    // Nothing half-stored: the failed sends left no message behind.
    assert.equal((await ann.users.messages.list({ userId: 'me', q: 'nobody' })).data.messages, undefined);
  });
});
