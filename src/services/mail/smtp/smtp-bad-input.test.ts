import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Authenticator } from '../../../core/auth.ts';
import type { FamilyListener } from '../../../core/family-listeners.ts';
import { realTimers } from '../../../lib/clock.ts';
import { cryptoIds } from '../../../lib/ids.ts';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';
import { mailboxCounts } from '../public.ts';
import { BufferBudget } from './buffer-budget.ts';
import { plain, SmtpDialogue } from './smtp-client.fixture.ts';
import { openSmtpListeners } from './smtp-listener.ts';

// Bad input on the SMTP listener (issue 40, item 5): every case gets the protocol's reply (and
// is closed where the protocol closes), and no mailbox holds any part of a refused message. The
// listener runs with short limits so the timeouts and the caps are reached at once.

const TOKENS = [{ token: 'ann-token', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] }];
const LIMITS = { maxConnections: 20, idleMs: 1_000, dataMs: 1_500, maxBytes: 1_000_000 };

let server: RunningFogbank;
let listener: FamilyListener;
let port: number;

/** open opens a listener of its own on `server`'s store, with `limits` (and the buffer `budget`, when given). */
async function open(limits: typeof LIMITS, budget?: BufferBudget): Promise<FamilyListener> {
  const opened = await openSmtpListeners(
    {
      store: server.store,
      clock: server.control.clock,
      timers: realTimers,
      ids: cryptoIds,
      auth: new Authenticator(server.adminToken, TOKENS),
      operations: 'realistic',
      options: { smtpPort: 0 },
      control: server.control,
      host: '127.0.0.1',
      tls: undefined,
    },
    limits,
    budget === undefined ? {} : { budget },
  );
  assert.ok(opened !== undefined);
  return opened;
}

before(async () => {
  server = await startFogbank({ ephemeral: true, tokens: TOKENS });
  listener = await open(LIMITS);
  port = listener.addresses[0]!.port;
});
after(async () => {
  await listener.close();
  await server.close();
});

/** ready is a signed-in connection with MAIL and RCPT given, at DATA's 354. */
async function ready(at = port): Promise<SmtpDialogue> {
  const { dialogue } = await SmtpDialogue.open(at);
  await dialogue.send('EHLO client.example');
  assert.equal(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`), '235 2.7.0 Accepted');
  assert.match(await dialogue.send('MAIL FROM:<ann@example.com>'), /^250 /);
  assert.match(await dialogue.send('RCPT TO:<bob@example.com>'), /^250 /);
  assert.match(await dialogue.send('DATA'), /^354 Go ahead /);
  return dialogue;
}

/** nothingKept is true when no mailbox holds a message (every case below is refused). */
async function nothingKept(): Promise<void> {
  assert.deepEqual(await mailboxCounts(server.store, 'every'), []);
}

describe('bad input on SMTP submission', () => {
  test('garbage commands get 502 5.5.1, and the tenth closes the connection with 421', async () => {
    const { dialogue } = await SmtpDialogue.open(port);
    for (let i = 0; i < 9; i++) assert.match(await dialogue.send(`\u0001\u00ff garbage ${i} \u0007`), /^502 5\.5\.1 Unrecognized command\. /);
    assert.match(await dialogue.send('GARBAGE'), /^421 4\.7\.0 Too many invalid commands, closing connection\. /);
    await dialogue.waitClosed();
  });

  test('an HTTP request is answered 421 and closed', async () => {
    const { dialogue } = await SmtpDialogue.open(port);
    assert.match(await dialogue.send('GET / HTTP/1.1'), /^421 /);
    await dialogue.waitClosed();
  });

  test('a silent connection is closed after the idle timeout with 421 4.4.2', async () => {
    const { dialogue } = await SmtpDialogue.open(port);
    assert.match(await dialogue.reply(), /^421 4\.4\.2 Timeout - closing connection\. /);
    await dialogue.waitClosed();
  });

  test('a DATA that never ends (bytes trickling in under the idle timeout) is cut off at the data timeout; nothing is kept', async () => {
    const dialogue = await ready();
    dialogue.write('Subject: never ends\r\n\r\n');
    const trickle = setInterval(() => dialogue.write('more\r\n'), 50);
    try {
      assert.match(await dialogue.reply(), /^421 4\.4\.2 Timeout - closing connection\. /);
      await dialogue.waitClosed();
    } finally {
      clearInterval(trickle);
    }
    await nothingKept();
  });

  test('a body past SIZE is read to its end, refused with 552-5.3.4, and the session goes on', async () => {
    const dialogue = await ready();
    const line = `${'x'.repeat(998)}\r\n`;
    dialogue.write('Subject: too big\r\n\r\n');
    for (let i = 0; i < 2_000; i++) dialogue.write(line);
    const refused = await dialogue.send('.');
    assert.match(
      refused,
      /^552-5\.3\.4 Your message exceeded Google's message size limits\. Please visit\n552-5\.3\.4 {2}https:\/\/support\.google\.com\/mail\/\?p=MaxSizeError to view our size\n552 5\.3\.4 guidelines\. /,
    );
    assert.match(await dialogue.send('RSET'), /^250 2\.1\.5 Flushed /);
    dialogue.end();
    await nothingKept();
  });

  test('a bare LF line and a NUL are refused with 554 5.6.0; nothing is kept', async () => {
    const bareLf = await ready();
    assert.match(await bareLf.send('Subject: bare\nTo: bob@example.com\r\n\r\nbody\r\n.'), /^554 5\.6\.0 Message rejected: a line ends in a bare LF/);
    bareLf.end();
    const nul = await ready();
    assert.match(await nul.send('Subject: nul\r\n\r\nbo\u0000dy\r\n.'), /^554 5\.6\.0 Message rejected: the message contains a NUL byte/);
    nul.end();
    await nothingKept();
  });

  test('a client that goes away in the middle of DATA leaves nothing', async () => {
    const dialogue = await ready();
    dialogue.write('Subject: half\r\n\r\nhalf a message\r\n');
    dialogue.end();
    // The next connection's whole exchange happens after the server saw the close.
    const { dialogue: next } = await SmtpDialogue.open(port);
    await next.send('QUIT');
    next.end();
    await nothingKept();
  });

  test('a malformed MIME tree (undecodable base64, an empty boundary, 300 levels of nesting) is kept whole, as the API keeps it', async () => {
    const dialogue = await ready();
    const nested = Array.from({ length: 300 }, (_, i) => `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n`).join('');
    const answer = await dialogue.send(
      `Subject: broken mime\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64\r\n--b\r\nContent-Type: multipart/alternative; boundary=\r\n\r\n--\r\n--b\r\n${nested}deep\r\n.`,
    );
    dialogue.end();
    assert.match(answer, /^250 2\.0\.0 OK {2}\d+ /);
    const counts = await mailboxCounts(server.store, 'every');
    assert.deepEqual(
      counts.map(({ address, total }) => [address, total]),
      [
        ['ann@example.com', 1],
        ['bob@example.com', 1],
      ],
    );
    await server.control.reset();
  });

  test('1,000 connections at once: past the cap each is answered 421-4.7.0 and closed; those within it are served', async () => {
    // The served ones stay open (no idle timeout meanwhile), so the cap holds for the whole burst.
    const capped = await open({ ...LIMITS, idleMs: 60_000 });
    const cappedPort = capped.addresses[0]!.port;
    const sockets = await Promise.all(
      Array.from(
        { length: 1_000 },
        () =>
          new Promise<{ text: string }>((resolve) => {
            const socket = connect({ host: '127.0.0.1', port: cappedPort });
            const seen = { text: '' };
            socket.setEncoding('utf8');
            socket.on('data', (text: string) => {
              seen.text += text;
              if (seen.text.includes('\r\n')) resolve(seen);
            });
            socket.on('error', () => resolve(seen));
            socket.on('close', () => resolve(seen));
            setTimeout(() => socket.destroy(), 20_000).unref();
          }),
      ),
    );
    const refused = sockets.filter(({ text }) => text.startsWith('421-4.7.0 Try again later, closing connection.'));
    const greeted = sockets.filter(({ text }) => text.startsWith('220 smtp.gmail.com ESMTP '));
    assert.equal(refused.length, 1_000 - LIMITS.maxConnections);
    assert.equal(greeted.length, LIMITS.maxConnections);
    await capped.close();
  });

  test('the bytes held in memory are bounded across connections: a message past --smtp-buffer-limit gets 452 4.3.1 and may try again', async () => {
    // Room for three bodies in flight; each connection holds its body, the final dot not yet sent.
    const body = `Subject: held\r\n\r\n${`${'y'.repeat(998)}\r\n`.repeat(300)}`;
    const budget = new BufferBudget(3 * body.length + 1_000);
    const roomy = await open({ ...LIMITS, idleMs: 60_000, dataMs: 60_000 }, budget);
    const at = roomy.addresses[0]!.port;
    const insufficient = /^452 4\.3\.1 Insufficient system storage [0-9a-f]{13}-[0-9a-f]{11}sm\d{8}a91\.\d - gsmtp$/;
    try {
      const held = await Promise.all([ready(at), ready(at), ready(at)]);
      for (const dialogue of held) dialogue.write(body);
      // smtp-server keeps back at most the last few bytes of a chunk while it looks for the final dot.
      const deadline = Date.now() + 30_000;
      while (budget.inUse < 3 * (body.length - 8) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(budget.inUse >= 3 * (body.length - 8), `the three bodies are held (${budget.inUse} bytes)`);
      const fourth = await ready(at);
      assert.match(await fourth.send(`${body}.`), insufficient);
      assert.ok(budget.inUse <= budget.capacity, 'the refused message gave back what it held');
      // A client that declares its size is refused before it sends the bytes.
      const { dialogue: declaring } = await SmtpDialogue.open(at);
      await declaring.send('EHLO client.example');
      await declaring.send(`AUTH PLAIN ${plain('ann@example.com', 'ann-token')}`);
      assert.match(await declaring.send(`MAIL FROM:<ann@example.com> SIZE=${body.length}`), insufficient);
      assert.match(await declaring.send('MAIL FROM:<ann@example.com> SIZE=100'), /^250 2\.1\.0 OK /, 'a small one still fits');
      declaring.end();
      for (const dialogue of held) assert.match(await dialogue.send('.'), /^250 2\.0\.0 OK {2}\d+ /);
      assert.equal(budget.inUse, 0, 'delivered messages give their bytes back');
      // The refused session goes on: its retry is taken now that there is room.
      assert.match(await fourth.send('MAIL FROM:<ann@example.com>'), /^250 /);
      assert.match(await fourth.send('RCPT TO:<bob@example.com>'), /^250 /);
      assert.match(await fourth.send('DATA'), /^354 /);
      assert.match(await fourth.send(`${body}.`), /^250 2\.0\.0 OK {2}\d+ /);
      for (const dialogue of [...held, fourth]) dialogue.end();
      const counts = await mailboxCounts(server.store, 'every');
      assert.deepEqual(
        counts.map(({ address, total }) => [address, total]),
        [
          ['ann@example.com', 4],
          ['bob@example.com', 4],
        ],
        'the refused attempt left nothing; its retry and the three held messages are each delivered once',
      );
    } finally {
      await roomy.close();
      await server.control.reset();
    }
  });
});
