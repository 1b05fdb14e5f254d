/**
 * SMTP submission end to end (issue 40) with the clients applications use: nodemailer (XOAUTH2
 * with a fogbank token and PLAIN, STARTTLS trusting fogbank's CA, To/Cc/Bcc, an attachment) and
 * Python's smtplib from Debian's python3 (starttls() and login(), a bad password refused with
 * Gmail's 535-5.7.8), read back with @googleapis/gmail, and seen live in the console in headless
 * Chromium.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { auth, gmail, type gmail_v1 } from '@googleapis/gmail';
import nodemailer from 'nodemailer';
import type { Browser, Page } from 'playwright-core';
import { signInTicket } from '../../src/console/server/ticket.ts';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';
import { tempDir } from '../../src/testing/temp.ts';
import { launchBrowser } from '../harness/browser.ts';
import { ensureConsoleBuilt } from '../harness/console-build.ts';

const ADMIN = 'smtp-admin';
const ANN = { token: 'ann-token', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] };
/** ATTACHMENT is every byte value, so a re-encoded attachment shows. */
const ATTACHMENT = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7 + 3) % 256));
const SID = /[0-9a-f]{13}-[0-9a-f]{11}sm\d{8}a91\.\d - gsmtp$/;

let server: RunningFogbank;
let port: number;
let ca: string;

const client = (token: string): gmail_v1.Gmail => {
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token });
  return gmail({ version: 'v1', rootUrl: `${server.url}/`, auth: oauth, retry: false });
};
const header = (message: gmail_v1.Schema$Message, name: string): string | undefined =>
  message.payload?.headers?.find((h) => h.name?.toLowerCase() === name.toLowerCase())?.value ?? undefined;

/** only finds the one message of `mailbox` with this Message-ID, in full. */
async function only(mailbox: string, messageId: string): Promise<gmail_v1.Schema$Message> {
  const admin = client(ADMIN);
  const { data } = await admin.users.messages.list({ userId: mailbox, q: `rfc822msgid:${messageId}` });
  assert.equal(data.messages?.length, 1, `${mailbox} holds one copy of ${messageId}`);
  return (await admin.users.messages.get({ userId: mailbox, id: data.messages[0]!.id ?? '' })).data;
}

const transport = (authentication: { type: 'OAuth2'; user: string; accessToken: string } | { user: string; pass: string }) =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    tls: { ca: [ca], servername: 'localhost' },
    auth: authentication,
  });

before(async () => {
  server = await startFogbank({ ephemeral: true, adminToken: ADMIN, tokens: [ANN], smtpPort: 0 });
  port = server.listeners[0]!.port;
  ca = (await server.tlsMaterial())!.trust;
});
after(() => server.close());

describe('nodemailer over STARTTLS into the mailboxes, read back with @googleapis/gmail', () => {
  it('XOAUTH2 with a fogbank token: To, Cc and Bcc each get an INBOX copy, the sender SENT with the Bcc, the attachment byte-identical', async () => {
    const mailer = transport({ type: 'OAuth2', user: 'ann@example.com', accessToken: 'ann-token' });
    const info = await mailer.sendMail({
      from: 'Ann <ann@example.com>',
      to: 'bob@example.com',
      cc: 'carol@example.com',
      bcc: 'dave@example.com',
      subject: 'Quarterly numbers',
      messageId: '<nodemailer-1@example.com>',
      text: 'Numbers attached.',
      attachments: [{ filename: 'numbers.bin', content: ATTACHMENT }],
    });
    mailer.close();
    assert.match(info.response, /^250 2\.0\.0 OK {2}\d{10} /);
    assert.match(info.response, SID);
    assert.deepEqual(info.envelope.to, ['bob@example.com', 'carol@example.com', 'dave@example.com']);
    const sent = await only('ann@example.com', 'nodemailer-1@example.com');
    assert.deepEqual(sent.labelIds, ['SENT']);
    assert.equal(header(sent, 'Bcc'), 'dave@example.com');
    for (const recipient of ['bob@example.com', 'carol@example.com', 'dave@example.com']) {
      const copy = await only(recipient, 'nodemailer-1@example.com');
      assert.deepEqual(copy.labelIds, ['INBOX', 'UNREAD']);
      assert.equal(header(copy, 'Bcc'), undefined, `${recipient}'s copy shows no Bcc`);
      assert.equal(header(copy, 'Subject'), 'Quarterly numbers');
      const part = copy.payload?.parts?.find((p) => p.filename === 'numbers.bin');
      const { data } = await client(ADMIN).users.messages.attachments.get({ userId: recipient, messageId: copy.id ?? '', id: part?.body?.attachmentId ?? '' });
      assert.deepEqual(Buffer.from(data.data ?? '', 'base64url'), ATTACHMENT);
    }
    // Read as ann herself, with her own token.
    const own = await client('ann-token').users.messages.list({ userId: 'me', labelIds: ['SENT'] });
    assert.equal(own.data.messages?.[0]?.id, sent.id);
  });

  it('PLAIN with the token as the password; a wrong one is refused with 535-5.7.8 (nodemailer EAUTH)', async () => {
    const mailer = transport({ user: 'ann@example.com', pass: 'ann-token' });
    await mailer.sendMail({ from: 'ann@example.com', to: 'erin@example.com', subject: 'plain', messageId: '<nodemailer-2@example.com>', text: 'hi' });
    mailer.close();
    assert.deepEqual((await only('erin@example.com', 'nodemailer-2@example.com')).labelIds, ['INBOX', 'UNREAD']);
    const [entry] = await server.control.requests.read({ method: 'smtp.DATA', limit: 1 });
    assert.equal(entry?.principal, 'ann@example.com');
    const wrong = transport({ user: 'ann@example.com', pass: 'not-the-token' });
    await assert.rejects(
      wrong.sendMail({ from: 'ann@example.com', to: 'erin@example.com', subject: 'x', text: 'x' }),
      (error: { code?: string; response?: string }) => {
        assert.equal(error.code, 'EAUTH');
        assert.match(
          error.response ?? '',
          /^535-5\.7\.8 Username and Password not accepted\. For more information, go to\r?\n535 5\.7\.8 {2}https:\/\/support\.google\.com\/mail\/\?p=BadCredentials /,
        );
        return true;
      },
    );
    wrong.close();
  });
});

describe("Python's smtplib (Debian's python3)", () => {
  it('starttls() and login() deliver; a bad password is refused with 535 5.7.8', async () => {
    const dir = tempDir('smtplib');
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, ca);
    const script = `
import json, smtplib, ssl, sys
port, cafile = int(sys.argv[1]), sys.argv[2]
context = ssl.create_default_context(cafile=cafile)
out = {}
with smtplib.SMTP('localhost', port) as s:
    s.ehlo()
    out['before'] = s.has_extn('auth')
    s.starttls(context=context)
    s.ehlo()
    out['mechanisms'] = s.esmtp_features.get('auth', '').strip()
    code, text = s.login('ann@example.com', 'ann-token')
    out['login'] = [code, text.decode()]
    out['refused'] = s.sendmail('ann@example.com', ['frank@example.com'], 'Subject: from smtplib\\r\\nMessage-ID: <smtplib-1@example.com>\\r\\n\\r\\nhello\\r\\n')
with smtplib.SMTP('localhost', port) as s:
    s.starttls(context=context)
    try:
        s.login('ann@example.com', 'wrong password')
    except smtplib.SMTPAuthenticationError as error:
        out['bad'] = [error.smtp_code, error.smtp_error.decode()]
print(json.dumps(out))
`;
    // Not spawnSync: the server answering it runs in this process.
    const run = await promisify(execFile)('/usr/bin/python3', ['-c', script, String(port), caFile], { encoding: 'utf8', timeout: 30_000 });
    const out = JSON.parse(run.stdout) as { before: boolean; mechanisms: string; login: [number, string]; refused: object; bad: [number, string] };
    assert.equal(out.before, false, 'no AUTH before STARTTLS');
    assert.equal(out.mechanisms, 'LOGIN PLAIN XOAUTH2');
    assert.deepEqual(out.login, [235, '2.7.0 Accepted']);
    assert.deepEqual(out.refused, {});
    assert.equal(out.bad[0], 535);
    assert.match(
      out.bad[1],
      /^5\.7\.8 Username and Password not accepted\. For more information, go to\n5\.7\.8 {2}https:\/\/support\.google\.com\/mail\/\?p=BadCredentials /,
    );
  });

  it('the message smtplib sent is in the recipient INBOX', async () => {
    assert.deepEqual((await only('frank@example.com', 'smtplib-1@example.com')).labelIds, ['INBOX', 'UNREAD']);
  });
});

describe('the console sees an SMTP message live', () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    await ensureConsoleBuilt();
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
  });
  after(() => browser?.close());

  it('a message nodemailer submits appears in the open mailbox without reload', async () => {
    const consoleUrl = `${server.url}/_fogbank/console/`;
    await page.goto(`${consoleUrl}sign-in?ticket=${signInTicket(ADMIN)}`);
    await page.goto(`${consoleUrl}#/mail/grace@example.com`);
    await page.locator('[data-live="on"]').waitFor();
    const mailer = transport({ type: 'OAuth2', user: 'ann@example.com', accessToken: 'ann-token' });
    await mailer.sendMail({ from: 'Ann <ann@example.com>', to: 'grace@example.com', subject: 'Seen live over SMTP', text: 'live' });
    mailer.close();
    const row = page.locator('[data-message-id]', { hasText: 'Seen live over SMTP' });
    await row.waitFor();
    assert.match((await row.locator('.from').textContent()) ?? '', /ann@example\.com/);
    assert.equal(await page.locator('[data-mailbox="grace@example.com"] .badge').textContent(), '1 unread');
  });
});
