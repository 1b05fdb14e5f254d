/**
 * The bad-input fuzzer's SMTP lane (issue 40): hostile SMTP sessions against fogbank's
 * submission listener — junk and binary command lines, overlong lines, malformed and
 * display-named addresses, bad SASL, commands out of order, pipelined batches, bodies with bare
 * LFs, NULs, dot lines, broken MIME, and connections dropped in the middle of DATA. Required: every
 * reply well formed and in Gmail's dialect (a code, an enhanced status code on every line of an
 * error, ` - gsmtp` ending it, none of the library's own words), an answer to every command within
 * 5 s, and no half-delivered message: the mailboxes hold exactly the copies of the messages the
 * listener answered 250 to (the sender's plus one per other envelope recipient), nothing of the rest.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { plain, SmtpDialogue } from '../../src/services/mail/smtp/smtp-client.fixture.ts';
import { mailboxCounts } from '../../src/services/mail/public.ts';
import { startFogbank } from '../../src/testing/fogbank.ts';
import { withTimeout } from '../harness/process.ts';
import { Random } from './random.ts';

const TOKEN = 'fuzz-smtp';
const TOKENS = [{ token: TOKEN, email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] }];
/** LANES are the sessions run at once. */
const LANES = 8;
/** COMMANDS_PER_SESSION is about how many exchanges one session has (the request count is divided by it). */
const COMMANDS_PER_SESSION = 12;
const ANSWER_TIMEOUT_MS = 5000;

const ADDRESSES = [
  'bob@example.com',
  'carol@example.com',
  'ann@example.com',
  'BOB@EXAMPLE.COM',
  '',
  'no-at-sign',
  'x@f',
  '"quoted local"@example.com',
  'üñí@example.com',
  `${'l'.repeat(300)}@example.com`,
  'a@[127.0.0.1]',
  '@relay.example:bob@example.com',
  'bob@example.com>',
  '<bob@example.com',
];

/** Session is what one session did: the messages answered 250 and their envelopes. */
interface Delivered {
  readonly sender: string;
  readonly recipients: readonly string[];
}

function address(random: Random): string {
  return random.chance(0.1) ? random.text(random.int(40), 'abc@.<>"\\ ,:;()[]\u0000\u00ff') : random.pick(ADDRESSES);
}

function junkLine(random: Random): string {
  switch (random.int(6)) {
    case 0:
      return random.text(random.int(80), '\u0001\u0002\u007f\u00ff\u0000 abcXYZ:<>@');
    case 1:
      return `${random.pick(['EHLO', 'HELO', 'MAIL', 'RCPT', 'DATA', 'AUTH', 'VRFY', 'EXPN', 'BDAT', 'STARTTLS', 'XCLIENT'])} ${random.text(random.int(30), 'a b:<>=@.')}`;
    case 2:
      return 'A'.repeat(random.pick([600, 2_000, 20_000]));
    case 3:
      return `AUTH ${random.pick(['PLAIN', 'LOGIN', 'XOAUTH2', 'CRAM-MD5', 'OAUTHBEARER'])} ${random.chance(0.5) ? random.text(random.int(60), 'ABCabc012+/=') : '='}`;
    case 4:
      return `MAIL FROM:${random.chance(0.5) ? `Name <${address(random)}>` : `<${address(random)}>`} ${random.pick(['SIZE=abc', 'SIZE=99999999999999999999999', 'BODY=8BITMIME', 'SMTPUTF8', 'RET=FULL', 'X=Y', ''])}`;
    default:
      return `RCPT TO:<${address(random)}> ${random.pick(['NOTIFY=NEVER', 'ORCPT=rfc822;x', 'X', ''])}`;
  }
}

function body(random: Random): string {
  const parts = ['Subject: fuzz', 'To: bob@example.com', ''];
  for (let i = random.int(8); i > 0; i--) {
    parts.push(
      random.pick([
        'plain text',
        '..dot stuffed',
        `${'x'.repeat(random.pick([10, 998, 5000]))}`,
        'Content-Type: multipart/mixed; boundary="q"',
        '--q',
        '--q--',
        'Content-Transfer-Encoding: base64',
        '!!!=',
        'bare\nlf',
        'nul\u0000byte',
        '\u00e9t\u00e9 UTF-8',
      ]),
    );
  }
  return `${parts.join('\r\n')}\r\n`;
}

/** problemOf says what makes a reply not one of Gmail's, or undefined. */
function problemOf(reply: string): string | undefined {
  const lines = reply.split('\n');
  const code = lines[0]!.slice(0, 3);
  for (const [index, line] of lines.entries()) {
    const last = index === lines.length - 1;
    if (!line.startsWith(`${code}${last ? ' ' : '-'}`) && !(last && line === code)) return `line ${index} does not carry the code ${code}`;
    if (/Error:/.test(line)) return 'the library’s own words';
  }
  if (!/^[2345]\d\d$/.test(code)) return `code ${code}`;
  if (code >= '400') {
    if (!lines.every((line) => /^\d{3}[- ][45]\.\d{1,3}\.\d{1,3} /.test(line))) return 'an error line without its enhanced status code';
    if (!lines.at(-1)!.endsWith(' - gsmtp')) return 'an error not ending with the session id';
  }
  return undefined;
}

/** session runs one hostile session; it resolves with what was delivered, or throws a failure. */
async function session(port: number, random: Random, problems: string[]): Promise<Delivered[]> {
  const delivered: Delivered[] = [];
  const { dialogue } = await SmtpDialogue.open(port);
  const ask = async (line: string): Promise<string | undefined> => {
    if (dialogue.closed) return undefined;
    let reply: string;
    try {
      reply = await withTimeout(dialogue.send(line), ANSWER_TIMEOUT_MS, `an answer to ${JSON.stringify(line.slice(0, 60))}`);
    } catch (error) {
      if (dialogue.closed) return undefined;
      throw error;
    }
    const problem = problemOf(reply);
    if (problem !== undefined) problems.push(`${problem}: ${JSON.stringify(line.slice(0, 80))} → ${JSON.stringify(reply)}`);
    return reply;
  };
  try {
    if (random.chance(0.9)) await ask(random.chance(0.9) ? 'EHLO fuzz.example' : junkLine(random));
    if (random.chance(0.8)) await ask(`AUTH PLAIN ${plain('ann@example.com', random.chance(0.9) ? TOKEN : 'wrong')}`);
    let envelope: string[] = [];
    for (let step = 0; step < COMMANDS_PER_SESSION && !dialogue.closed; step++) {
      const choice = random.int(10);
      if (choice < 2) {
        const line = junkLine(random);
        const reply = await ask(line);
        // What the listener took of it counts as of any command: EHLO, HELO and MAIL start the transaction over, RCPT adds to it.
        const rcpt = /^RCPT TO:<([^>]*)>/i.exec(line)?.[1]?.toLowerCase();
        if (/^(EHLO|HELO|MAIL) /i.test(line) && reply?.startsWith('250')) envelope = [];
        if (rcpt !== undefined && reply?.startsWith('250') && !envelope.includes(rcpt)) envelope.push(rcpt);
      } else if (choice < 4) {
        const sender = random.chance(0.8) ? 'ann@example.com' : address(random);
        const reply = await ask(`MAIL FROM:<${sender}>`);
        if (reply?.startsWith('250')) envelope = [];
      } else if (choice < 6) {
        const rcpt = random.chance(0.7) ? random.pick(['bob@example.com', 'carol@example.com', 'ann@example.com']) : address(random);
        const reply = await ask(`RCPT TO:<${rcpt}>`);
        if (reply?.startsWith('250') && !envelope.includes(rcpt.toLowerCase())) envelope.push(rcpt.toLowerCase());
      } else if (choice < 8) {
        const go = await ask('DATA');
        if (go?.startsWith('354')) {
          if (random.chance(0.1)) {
            // Gone in the middle of the message.
            dialogue.write(body(random));
            dialogue.end();
            break;
          }
          const reply = await ask(`${body(random)}.`);
          // The session's sender is ann (authenticated) whatever MAIL FROM said.
          if (reply?.startsWith('250')) delivered.push({ sender: 'ann@example.com', recipients: envelope });
          envelope = [];
        }
      } else if (choice < 9) {
        await ask(random.pick(['RSET', 'NOOP', 'VRFY bob', 'HELP', 'STARTTLS', 'QUIT']));
      } else {
        // Pipelined: several commands in one write; every reply must still come.
        const batch = [`MAIL FROM:<ann@example.com>`, `RCPT TO:<${address(random)}>`, 'RSET'];
        dialogue.write(batch.map((line) => `${line}\r\n`).join(''));
        for (let i = 0; i < batch.length && !dialogue.closed; i++) {
          const reply = await withTimeout(dialogue.reply(), ANSWER_TIMEOUT_MS, 'a pipelined answer').catch(() => undefined);
          if (reply === undefined) break;
          const problem = problemOf(reply);
          if (problem !== undefined) problems.push(`${problem}: pipelined → ${JSON.stringify(reply)}`);
        }
        envelope = [];
      }
    }
  } finally {
    dialogue.end();
  }
  return delivered;
}

/** smtpLaneTest registers the SMTP lane's test: about `requests` hostile commands from `seed`. */
export function smtpLaneTest(seed: number, requests: number, maxFailures: number): void {
  it(`SMTP lane: about ${requests} hostile SMTP commands, every reply Gmail's, none unanswered, nothing half-delivered (seed ${seed})`, {
    timeout: 600_000,
  }, async () => {
    const server = await startFogbank({ ephemeral: true, tokens: TOKENS, smtpPort: 0, tls: false, journalSize: 0 });
    try {
      const port = server.listeners[0]!.port;
      const sessions = Math.ceil(requests / COMMANDS_PER_SESSION);
      const problems: string[] = [];
      const delivered: Delivered[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: LANES }, async (_, lane) => {
          const random = new Random(seed + lane * 7919);
          while (next < sessions && problems.length < maxFailures) {
            next++;
            delivered.push(...(await session(port, random, problems)));
          }
        }),
      );
      assert.deepEqual(problems.slice(0, maxFailures), [], `replay with FOGBANK_FUZZ_SEED=${seed}`);
      // Still answering; and by now it has seen every dropped connection go.
      const { dialogue } = await SmtpDialogue.open(port);
      assert.match(await dialogue.send('NOOP'), /^250 2\.0\.0 OK /);
      dialogue.end();
      const expected = delivered.reduce((sum, { sender, recipients }) => sum + 1 + recipients.filter((rcpt) => rcpt !== sender).length, 0);
      const held = (await mailboxCounts(server.store, 'every')).reduce((sum, { total }) => sum + total, 0);
      assert.equal(held, expected, `the mailboxes hold the copies of the ${delivered.length} accepted messages and nothing else`);
    } finally {
      await server.close();
    }
  });
}
