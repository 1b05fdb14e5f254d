import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { plain, SmtpDialogue, xoauth2 } from './smtp-client.fixture.ts';

const MAIL = 'https://mail.google.com/';
const TOKENS = [
  { token: 'ann-token', email: 'ann@example.com', scopes: [MAIL], permissions: [] },
  { token: 'send-only', email: 'sam@example.com', scopes: ['gmail.send'], permissions: [] },
];
const SID = '[0-9a-f]{13}-[0-9a-f]{11}sm\\d{8}a91\\.\\d - gsmtp';
const withSid = (text: string): RegExp => new RegExp(`^${text.replace(/[.?*+()[\]|]/g, '\\$&').replace('<sid>', SID)}$`);

let server: RunningFogbank;
let port: number;
let ca: string;

async function messages(token: string, q = ''): Promise<{ id: string; labelIds: string[]; raw: string }[]> {
  const list = (await (
    await fetch(`${server.url}/gmail/v1/users/me/messages?q=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as {
    messages?: { id: string }[];
  };
  return Promise.all(
    (list.messages ?? []).map(
      async ({ id }) =>
        (await (await fetch(`${server.url}/gmail/v1/users/me/messages/${id}?format=raw`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
          id: string;
          labelIds: string[];
          raw: string;
        },
    ),
  );
}

/** authenticated opens a connection, upgrades it and signs in as ann. */
async function authenticated(): Promise<SmtpDialogue> {
  const { dialogue } = await SmtpDialogue.open(port);
  await dialogue.send('EHLO client.example');
  await dialogue.startTls(ca);
  await dialogue.send('EHLO client.example');
  assert.equal(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`), '235 2.7.0 Accepted');
  return dialogue;
}

describe('SMTP submission as smtp.gmail.com', () => {
  before(async () => {
    server = await startFogbank({ ephemeral: true, tokens: TOKENS, smtpPort: 0, mailMaxRecipients: 3 });
    port = server.listeners.find((listener) => listener.name === 'SMTP submission (STARTTLS)')!.port;
    ca = (await server.tlsMaterial())!.trust;
  });
  after(() => server.close());

  test('the listener accepts once start resolved, and lists its address', () => {
    assert.deepEqual(
      server.listeners.map(({ family, url }) => ({ family, url })),
      [{ family: 'mail', url: `smtp://127.0.0.1:${port}` }],
    );
  });

  test('greeting and EHLO before TLS: no AUTH, STARTTLS offered; AUTH and MAIL get Gmail 530s', async () => {
    const { dialogue, greeting } = await SmtpDialogue.open(port);
    assert.match(greeting, withSid('220 smtp.gmail.com ESMTP <sid>'));
    assert.equal(
      await dialogue.send('EHLO client.example'),
      '250-smtp.gmail.com at your service, [127.0.0.1]\n250-SIZE 35882577\n250-8BITMIME\n250-STARTTLS\n250-ENHANCEDSTATUSCODES\n250-PIPELINING\n250 SMTPUTF8',
    );
    const mustStartTls = await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`);
    assert.match(
      mustStartTls,
      withSid(
        '530-5.7.0 Must issue a STARTTLS command first. For more information, go to\n530-5.7.0  https://support.google.com/a/answer/3221692 and review RFC 3207\n530 5.7.0 specifications. <sid>',
      ),
    );
    assert.equal(await dialogue.send('MAIL FROM:<ann@example.com>'), mustStartTls);
    assert.equal(await dialogue.send('STARTTLS'), '220 2.0.0 Ready to start TLS');
    dialogue.end();
  });

  test('after STARTTLS: AUTH offered, bad credentials refused with 535-5.7.8, MAIL without AUTH with 530-5.7.0', async () => {
    const { dialogue } = await SmtpDialogue.open(port);
    await dialogue.send('EHLO client.example');
    assert.equal(await dialogue.startTls(ca), '220 2.0.0 Ready to start TLS');
    assert.equal(
      await dialogue.send('EHLO client.example'),
      '250-smtp.gmail.com at your service, [127.0.0.1]\n250-SIZE 35882577\n250-8BITMIME\n250-AUTH LOGIN PLAIN XOAUTH2\n250-ENHANCEDSTATUSCODES\n250-PIPELINING\n250 SMTPUTF8',
    );
    assert.match(
      await dialogue.send('MAIL FROM:<ann@example.com>'),
      withSid('530-5.7.0 Authentication Required. For more information, go to\n530 5.7.0  https://support.google.com/mail/?p=WantAuthError <sid>'),
    );
    const bad = withSid(
      '535-5.7.8 Username and Password not accepted. For more information, go to\n535 5.7.8  https://support.google.com/mail/?p=BadCredentials <sid>',
    );
    assert.match(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'wrong')}`), bad);
    // A valid token of another mailbox, and a token without https://mail.google.com/ (gmail.send does not do for SMTP).
    assert.match(await dialogue.send(`AUTH PLAIN ${plain('bob@example.com', 'ann-token')}`), bad);
    assert.match(await dialogue.send(`AUTH PLAIN ${plain('sam@example.com', 'send-only')}`), bad);
    assert.equal(await dialogue.send('AUTH LOGIN'), '334 VXNlcm5hbWU6');
    assert.equal(await dialogue.send(Buffer.from('ann@example.com').toString('base64')), '334 UGFzc3dvcmQ6');
    assert.equal(await dialogue.send(Buffer.from('ann-token').toString('base64')), '235 2.7.0 Accepted');
    assert.match(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`), withSid('503 5.7.0 No identity changes permitted <sid>'));
    assert.match(await dialogue.send('QUIT'), withSid('221 2.0.0 closing connection <sid>'));
    dialogue.end();
  });

  test('XOAUTH2: a token without the mail scope gets the JSON challenge, then 535-5.7.8', async () => {
    const { dialogue } = await SmtpDialogue.open(port);
    await dialogue.send('EHLO client.example');
    await dialogue.startTls(ca);
    await dialogue.send('EHLO client.example');
    const challenge = await dialogue.send(`AUTH XOAUTH2 ${xoauth2('sam@example.com', 'send-only')}`);
    assert.equal(challenge, '334 eyJzdGF0dXMiOiI0MDAiLCJzY2hlbWVzIjoiQmVhcmVyIiwic2NvcGUiOiJodHRwczovL21haWwuZ29vZ2xlLmNvbS8ifQ==');
    assert.match(await dialogue.send(''), /^535-5\.7\.8 Username and Password not accepted/);
    assert.equal(await dialogue.send(`AUTH XOAUTH2 ${xoauth2('ann@example.com', 'ann-token')}`), '235 2.7.0 Accepted');
    dialogue.end();
  });

  test('a message goes to the sender SENT and each envelope recipient INBOX/UNREAD, Bcc only on the sender copy, journaled as smtp.DATA', async () => {
    const dialogue = await authenticated();
    assert.match(await dialogue.send('MAIL FROM:<ann@example.com> SIZE=200'), withSid('250 2.1.0 OK <sid>'));
    for (const rcpt of ['bob@example.com', 'carol@example.com', 'dave@example.com'])
      assert.match(await dialogue.send(`RCPT TO:<${rcpt}>`), withSid('250 2.1.5 OK <sid>'));
    assert.match(await dialogue.send('DATA'), withSid('354 Go ahead <sid>'));
    const accepted = await dialogue.send(
      'From: Ann <ann@example.com>\r\nTo: bob@example.com\r\nCc: carol@example.com\r\nSubject: over smtp\r\nMessage-ID: <smtp-1@example.com>\r\n\r\nHello.\r\n..a dot-stuffed line\r\n.',
    );
    assert.match(accepted, new RegExp(`^250 2\\.0\\.0 OK  \\d{10} ${SID}$`));
    assert.match(await dialogue.send('RSET'), withSid('250 2.1.5 Flushed <sid>'));
    dialogue.end();
    const [sent] = await messages('ann-token', 'rfc822msgid:smtp-1@example.com');
    assert.deepEqual(sent!.labelIds, ['SENT']);
    for (const recipient of ['bob', 'carol', 'dave']) {
      const inbox = (await (
        await fetch(`${server.url}/gmail/v1/users/${recipient}@example.com/messages?q=rfc822msgid:smtp-1@example.com`, {
          headers: { authorization: `Bearer ${server.adminToken}` },
        })
      ).json()) as { messages: { id: string }[] };
      const copy = (await (
        await fetch(`${server.url}/gmail/v1/users/${recipient}@example.com/messages/${inbox.messages[0]!.id}?format=raw`, {
          headers: { authorization: `Bearer ${server.adminToken}` },
        })
      ).json()) as { labelIds: string[]; raw: string };
      assert.deepEqual(copy.labelIds, ['INBOX', 'UNREAD']);
      assert.doesNotMatch(Buffer.from(copy.raw, 'base64url').toString(), /^Bcc:/im);
    }
    const senderRaw = Buffer.from(sent!.raw, 'base64url').toString();
    assert.match(senderRaw, /\r\nBcc: dave@example\.com\r\n/);
    assert.match(senderRaw, /\r\n\.a dot-stuffed line\r\n/);
    const journal = await server.control.requests.read({ method: 'smtp.DATA' });
    assert.equal(journal[0]?.family, 'mail');
    assert.equal(journal[0]?.status, 250);
    assert.equal(journal[0]?.principal, 'ann@example.com');
  });

  test('a reply over SMTP joins its thread in the recipient and the sender mailbox, writes history, and a From or MAIL FROM of another address sends as the user', async () => {
    const admin = { authorization: `Bearer ${server.adminToken}` };
    const api = async <T>(path: string): Promise<T> => (await (await fetch(`${server.url}/gmail/v1/users/${path}`, { headers: admin })).json()) as T;
    const submit = async (envelopeFrom: string, text: string): Promise<void> => {
      const dialogue = await authenticated();
      assert.match(await dialogue.send(`MAIL FROM:<${envelopeFrom}>`), /^250 2\.1\.0 OK /);
      assert.match(await dialogue.send('RCPT TO:<hank@example.com>'), /^250 2\.1\.5 OK /);
      await dialogue.send('DATA');
      assert.match(await dialogue.send(`${text}\r\n.`), /^250 2\.0\.0 OK {2}/);
      dialogue.end();
    };
    await submit('ann@example.com', 'From: ann@example.com\r\nTo: hank@example.com\r\nSubject: plans\r\nMessage-ID: <smtp-thread-1@example.com>\r\n\r\nfirst');
    const { historyId } = await api<{ historyId: string }>('hank@example.com/profile');
    // Sent as someone else, in the envelope and in From: Gmail sends it as the user (send-as rewrites From).
    await submit(
      'boss@elsewhere.example',
      'From: Boss <boss@elsewhere.example>\r\nTo: hank@example.com\r\nSubject: Re: plans\r\nMessage-ID: <smtp-thread-2@example.com>\r\nIn-Reply-To: <smtp-thread-1@example.com>\r\nReferences: <smtp-thread-1@example.com>\r\n\r\nsecond',
    );
    const first = await api<{ messages: { id: string; threadId: string }[] }>('hank@example.com/messages?q=rfc822msgid:smtp-thread-1@example.com');
    const second = await api<{ messages: { id: string; threadId: string }[] }>('hank@example.com/messages?q=rfc822msgid:smtp-thread-2@example.com');
    assert.equal(second.messages[0]!.threadId, first.messages[0]!.threadId, 'the reply is in the first message thread');
    // The sender's copy too: SMTP names no threadId, so it is threaded by its headers, as mail clients' replies are in Gmail.
    const sentFirst = await api<{ messages: { threadId: string }[] }>('ann@example.com/messages?q=rfc822msgid:smtp-thread-1@example.com');
    const sentSecond = await api<{ messages: { id: string; threadId: string }[] }>('ann@example.com/messages?q=rfc822msgid:smtp-thread-2@example.com');
    assert.notEqual(sentSecond.messages[0]!.threadId, sentSecond.messages[0]!.id, 'the sender copy of the reply joined a thread');
    assert.equal(sentSecond.messages[0]!.threadId, sentFirst.messages[0]!.threadId);
    const history = await api<{ history: { messagesAdded?: { message: { id: string; labelIds: string[] } }[] }[] }>(
      `hank@example.com/history?startHistoryId=${historyId}&historyTypes=messageAdded`,
    );
    assert.deepEqual(
      history.history.flatMap((record) => record.messagesAdded ?? []).map(({ message }) => [message.id, message.labelIds]),
      [[second.messages[0]!.id, ['INBOX', 'UNREAD']]],
    );
    const received = await api<{ payload: { headers: { name: string; value: string }[] } }>(
      `hank@example.com/messages/${second.messages[0]!.id}?format=metadata&metadataHeaders=From`,
    );
    assert.deepEqual(received.payload.headers, [{ name: 'From', value: '"Boss" <ann@example.com>' }]);
    assert.equal((await messages('ann-token', 'rfc822msgid:smtp-thread-2@example.com'))[0]?.labelIds[0], 'SENT');
    assert.deepEqual(await api<{ resultSizeEstimate: number }>('boss@elsewhere.example/messages'), { resultSizeEstimate: 0 });
  });

  test('a message that came by SMTP is in a snapshot, gone after a reset, and back when the snapshot is restored', async () => {
    const dialogue = await authenticated();
    await dialogue.send('MAIL FROM:<ann@example.com>');
    await dialogue.send('RCPT TO:<erin@example.com>');
    await dialogue.send('DATA');
    assert.match(await dialogue.send('Subject: kept\r\nMessage-ID: <smtp-kept@example.com>\r\n\r\nkept\r\n.'), /^250 /);
    dialogue.end();
    const snapshot = await server.snapshots.bytes();
    await server.control.reset();
    assert.deepEqual(await messages('ann-token', 'rfc822msgid:smtp-kept@example.com'), []);
    await server.snapshots.restore(snapshot);
    const [restored] = await messages('ann-token', 'rfc822msgid:smtp-kept@example.com');
    assert.deepEqual(restored?.labelIds, ['SENT']);
  });

  test('PIPELINING, 8BITMIME and SMTPUTF8: a pipelined transaction to an internationalised address, an 8-bit body kept byte for byte', async () => {
    const dialogue = await authenticated();
    dialogue.write('MAIL FROM:<ann@example.com> BODY=8BITMIME SMTPUTF8\r\nRCPT TO:<jörg@example.com>\r\nDATA\r\n');
    assert.match(await dialogue.reply(), /^250 2\.1\.0 OK /);
    assert.match(await dialogue.reply(), /^250 2\.1\.5 OK /);
    assert.match(await dialogue.reply(), /^354 Go ahead /);
    const body =
      'From: ann@example.com\r\nDate: Tue, 1 Dec 2026 10:00:00 +0000\r\nSubject: Grüße\r\nTo: jörg@example.com\r\nMessage-ID: <smtp-utf8@example.com>\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nÄpfel und Öl\r\n';
    assert.match(await dialogue.send(`${body}.`), /^250 2\.0\.0 OK {2}/);
    dialogue.end();
    const [sent] = await messages('ann-token', 'rfc822msgid:smtp-utf8@example.com');
    assert.equal(Buffer.from(sent!.raw, 'base64url').toString('utf8'), body);
    const inbox = (await (
      await fetch(`${server.url}/gmail/v1/users/${encodeURIComponent('jörg@example.com')}/messages`, {
        headers: { authorization: `Bearer ${server.adminToken}` },
      })
    ).json()) as { messages?: unknown[] };
    assert.equal(inbox.messages?.length, 1);
  });

  test('the recipient limit (--mail-max-recipients) refuses RCPT past it with 452 4.5.3', async () => {
    const dialogue = await authenticated();
    await dialogue.send('MAIL FROM:<ann@example.com>');
    for (const rcpt of ['a@example.com', 'b@example.com', 'c@example.com']) assert.match(await dialogue.send(`RCPT TO:<${rcpt}>`), /^250 2\.1\.5 OK/);
    assert.match(
      await dialogue.send('RCPT TO:<d@example.com>'),
      withSid(
        "452-4.5.3 Your message has too many recipients. For more information regarding Google's sending limits, visit\n452 4.5.3  https://support.google.com/mail/answer/6592 <sid>",
      ),
    );
    dialogue.end();
  });

  test('too large at MAIL FROM SIZE=, malformed addresses, unknown commands', async () => {
    const dialogue = await authenticated();
    assert.match(
      await dialogue.send('MAIL FROM:<ann@example.com> SIZE=257286400'),
      withSid(
        "552-5.3.4 Your message exceeded Google's message size limits. Please visit\n552-5.3.4  https://support.google.com/mail/?p=MaxSizeError to view our size\n552 5.3.4 guidelines. <sid>",
      ),
    );
    assert.match(
      await dialogue.send('MAIL FROM:<ann@localhost>'),
      withSid('553 5.1.7 The sender address <ann@localhost> is not a valid RFC 5321 address. <sid>'),
    );
    assert.match(await dialogue.send('MAIL FROM:Ann <ann@example.com>'), /^555-5\.5\.2 Syntax error, cannot decode response/);
    assert.match(await dialogue.send('MAIL FROM:<ann@example.com>'), /^250 2\.1\.0 OK/);
    assert.match(
      await dialogue.send('RCPT TO:<bob@f>'),
      withSid(
        '553-5.1.3 The recipient address <bob@f> is not a valid RFC 5321 address. For more information, go to\n553 5.1.3  https://support.google.com/mail/answer/6596 <sid>',
      ),
    );
    assert.match(await dialogue.send('DATA'), withSid('503 5.5.1 Bad sequence of commands <sid>'));
    assert.match(await dialogue.send('FROB'), withSid('502 5.5.1 Unrecognized command. <sid>'));
    dialogue.end();
  });
});

describe('implicit TLS and the catch-all', () => {
  test('--smtps-port greets over TLS from the first byte and offers AUTH at once', async () => {
    const tlsServer = await startFogbank({ ephemeral: true, tokens: TOKENS, smtpsPort: 0 });
    try {
      const address = tlsServer.listeners.find((listener) => listener.url.startsWith('smtps://'))!;
      const trust = (await tlsServer.tlsMaterial())!.trust;
      const { dialogue, greeting } = await SmtpDialogue.open(address.port, { ca: trust });
      assert.match(greeting, withSid('220 smtp.gmail.com ESMTP <sid>'));
      assert.match(await dialogue.send('EHLO client.example'), /\n250-AUTH LOGIN PLAIN XOAUTH2\n/);
      assert.equal(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`), '235 2.7.0 Accepted');
      dialogue.end();
    } finally {
      await tlsServer.close();
    }
  });

  test('--smtp-auth none takes mail from anyone on loopback and sends it from the envelope sender mailbox', async () => {
    const catcher = await startFogbank({ ephemeral: true, tokens: TOKENS, smtpPort: 0, smtpAuth: 'none', tls: false });
    try {
      const { dialogue } = await SmtpDialogue.open(catcher.listeners[0]!.port);
      const ehlo = await dialogue.send('EHLO client.example');
      assert.doesNotMatch(ehlo, /AUTH|STARTTLS/);
      assert.match(await dialogue.send('MAIL FROM:<app@example.com>'), /^250 2\.1\.0 OK/);
      assert.match(await dialogue.send('RCPT TO:<ann@example.com>'), /^250 2\.1\.5 OK/);
      await dialogue.send('DATA');
      assert.match(await dialogue.send('Subject: caught\r\n\r\nHi.\r\n.'), /^250 2\.0\.0 OK {2}\d+ /);
      dialogue.end();
      const list = (await (
        await fetch(`${catcher.url}/gmail/v1/users/ann@example.com/messages`, { headers: { authorization: `Bearer ${catcher.adminToken}` } })
      ).json()) as { messages: unknown[] };
      assert.equal(list.messages.length, 1);
      const sent = (await (
        await fetch(`${catcher.url}/gmail/v1/users/app@example.com/messages?labelIds=SENT`, { headers: { authorization: `Bearer ${catcher.adminToken}` } })
      ).json()) as { messages: unknown[] };
      assert.equal(sent.messages.length, 1);
    } finally {
      await catcher.close();
    }
  });

  test('--mail-relay applies to SMTP mail: relayed to another fogbank listening as a catch-all', async () => {
    const catcher = await startFogbank({ ephemeral: true, smtpPort: 0, smtpAuth: 'none', tls: false });
    const relaying = await startFogbank({ ephemeral: true, tokens: TOKENS, smtpPort: 0, tls: false, mailRelay: catcher.listeners[0]!.url });
    // The relay runs after the answer: the catcher's journal says when its listener took the message.
    const caught = new Promise<void>((resolve) => {
      const stop = catcher.control.requests.journal.subscribe((record) => {
        if (record.url === '/smtp/DATA') {
          stop();
          resolve();
        }
      });
    });
    try {
      const { dialogue } = await SmtpDialogue.open(relaying.listeners[0]!.port);
      await dialogue.send('EHLO client.example');
      assert.equal(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`), '235 2.7.0 Accepted');
      await dialogue.send('MAIL FROM:<ann@example.com>');
      await dialogue.send('RCPT TO:<bob@example.com>');
      await dialogue.send('DATA');
      assert.match(await dialogue.send('Subject: relayed\r\nMessage-ID: <relayed@example.com>\r\n\r\nonwards\r\n.'), /^250 /);
      dialogue.end();
      await caught;
      const inbox = (await (
        await fetch(`${catcher.url}/gmail/v1/users/bob@example.com/messages?q=rfc822msgid:relayed@example.com`, {
          headers: { authorization: `Bearer ${catcher.adminToken}` },
        })
      ).json()) as { messages?: unknown[] };
      assert.equal(inbox.messages?.length, 1);
    } finally {
      await relaying.close();
      await catcher.close();
    }
  });

  test('shutting down ends an idle connection at once with 421 and closes', async () => {
    const closing = await startFogbank({ ephemeral: true, tokens: TOKENS, smtpPort: 0, tls: false });
    const { dialogue } = await SmtpDialogue.open(closing.listeners[0]!.port);
    await dialogue.send('EHLO client.example');
    const closed = closing.close();
    assert.match(await dialogue.reply(), withSid('421 4.3.0 Service not available, closing transmission channel <sid>'));
    await dialogue.waitClosed();
    await closed;
  });

  test('--smtp-auth none refuses to start on an address other than loopback', async () => {
    await assert.rejects(startFogbank({ ephemeral: true, host: '0.0.0.0', smtpPort: 0, smtpAuth: 'none' }), /--smtp-auth none .* loopback only/);
  });
});
