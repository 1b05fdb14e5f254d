import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { auth, gmail, type gmail_v1 } from '@googleapis/gmail';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { KINDS, type MessageRecord } from '../../src/services/mail/model.ts';

interface Caught {
  readonly from: string;
  readonly to: string[];
  readonly data: string;
}

const caught: Caught[] = [];
let waiters: (() => void)[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
      caught.push({ from, to: session.envelope.rcptTo.map((r) => r.address).sort(), data: Buffer.concat(chunks).toString() });
      for (const wake of waiters) wake();
      waiters = [];
      callback();
    });
  },
});
let server: RunningFogbank;
let ann: gmail_v1.Gmail;

before(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  server = await startFogbank({
    ephemeral: true,
    port: 0,
    adminToken: 'admin',
    mailRelay: `smtp://127.0.0.1:${port}`,
    tokens: [{ token: 'ann', email: 'ann@example.com', scopes: ['mail.send'], permissions: [] }],
  });
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: 'ann' });
  ann = gmail({ version: 'v1', rootUrl: `${server.url}/`, auth: oauth });
});
after(async () => {
  await server.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** waitFor waits (bounded) until `count` messages reached the SMTP server. */
async function waitFor(count: number): Promise<void> {
  for (let i = 0; i < 100 && caught.length < count; i++) {
    await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  assert.equal(caught.length, count);
}

test('--mail-relay forwards every delivered message over SMTP, without Bcc, to every recipient', async () => {
  const raw = (text: string): string => Buffer.from(text).toString('base64url');
  const first = (
    await ann.users.messages.send({
      userId: 'me',
      requestBody: { raw: raw('To: bob@example.com\r\nBcc: dave@example.com\r\nSubject: relayed one\r\n\r\nhello') },
    })
  ).data;
  await ann.users.messages.send({ userId: 'me', requestBody: { raw: raw('To: carol@example.com\r\nSubject: relayed two\r\n\r\nhi') } });
  await waitFor(2);
  const one = caught.find((message) => message.data.includes('relayed one'))!;
  assert.equal(one.from, 'ann@example.com');
  assert.deepEqual(one.to, ['bob@example.com', 'dave@example.com']);
  assert.ok(!/^Bcc:/im.test(one.data));
  assert.deepEqual(caught.find((message) => message.data.includes('relayed two'))!.to, ['carol@example.com']);
  // The outcome is recorded on the sender's message once the relay answered.
  let record: MessageRecord | undefined;
  for (let i = 0; i < 50 && record?.relay?.state !== 'relayed'; i++) {
    record = (await server.store.get<MessageRecord>(KINDS.messages, `ann@example.com/${first.id!}`))?.value;
    if (record?.relay?.state !== 'relayed') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(record?.relay?.state, 'relayed');
});

test('a relay that fails is recorded on the message, and the message is kept', async () => {
  const broken = await startFogbank({
    ephemeral: true,
    port: 0,
    adminToken: 'admin',
    mailRelay: `smtp://127.0.0.1:1`,
    tokens: [{ token: 'ann', email: 'ann@example.com', scopes: ['mail.send'], permissions: [] }],
  });
  try {
    const oauth = new auth.OAuth2();
    oauth.setCredentials({ access_token: 'ann' });
    const client = gmail({ version: 'v1', rootUrl: `${broken.url}/`, auth: oauth });
    const sent = (await client.users.messages.send({ userId: 'me', requestBody: { raw: Buffer.from('To: bob@example.com\r\n\r\nx').toString('base64url') } }))
      .data;
    let record: MessageRecord | undefined;
    for (let i = 0; i < 100 && record?.relay?.state !== 'failed'; i++) {
      record = (await broken.store.get<MessageRecord>(KINDS.messages, `ann@example.com/${sent.id!}`))?.value;
      if (record?.relay?.state !== 'failed') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(record?.relay?.state, 'failed');
    assert.match(record!.relay!.detail!, /ECONNREFUSED/);
    assert.equal((await broken.store.list(KINDS.messages, { prefix: 'bob@example.com/' })).length, 1);
  } finally {
    await broken.close();
  }
});
