/**
 * The SMTP listener's memory under many large messages at once (issue 40): sixteen connections
 * each send a 30 MB body together to `fogbank start --smtp-buffer-limit 64M`. Without the bound
 * every connection buffers its whole body (measured: about 1.5 GiB more resident memory); with it,
 * the messages that fit the buffer are delivered and each other one is refused for now with
 * 452 4.3.1, and the process's peak resident memory grows by at most four times the limit (the
 * bytes held, their joined copy and the delivery's work on them) plus 128 MiB of slack
 * (measured: about 255 MiB).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { plain, SmtpDialogue } from '../../src/services/mail/smtp/smtp-client.fixture.ts';
import { startFogbankProcess, type FogbankProcess } from '../harness/process.ts';

const TOKEN = 'e2e-smtp-memory';
const MIB = 1024 * 1024;
const LIMIT = 64 * MIB;
const CONNECTIONS = 16;

/** residentMiB reads a process's VmRSS or VmHWM (its peak) from /proc, in MiB. */
function residentMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)![1]) / 1024;
}

describe('SMTP submission holds a bounded amount of message data in memory', () => {
  let proc: FogbankProcess;
  let port: number;

  before(async () => {
    proc = await startFogbankProcess([
      ...['--port', '0', '--ephemeral', '--admin-token', TOKEN, '--no-tls', '--no-warm-up', '--log-level', 'error'],
      ...['--smtp-port', '0', '--smtp-buffer-limit', '64M'],
    ]);
    const [, found] = await proc.waitForLine(/^ {2}SMTP submission\s+smtp:\/\/127\.0\.0\.1:(\d+)$/);
    port = Number(found);
  });
  after(async () => {
    proc?.child.kill('SIGKILL');
    await proc?.exited;
  });

  it(`${CONNECTIONS} connections sending 30 MB each at once: those that fit are delivered, the rest get 452 4.3.1, and resident memory stays bounded`, async () => {
    const line = Buffer.from(`${'z'.repeat(998)}\r\n`);
    const body = Buffer.concat([Buffer.from('Subject: large\r\nTo: bob@example.com\r\n\r\n'), ...Array.from({ length: 30_000 }, () => line)]);
    const pid = proc.child.pid!;
    const before = residentMiB(pid, 'VmRSS');
    const dialogues = await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        const { dialogue } = await SmtpDialogue.open(port);
        await dialogue.send('EHLO memory.example');
        assert.equal(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', TOKEN)}`), '235 2.7.0 Accepted');
        assert.match(await dialogue.send('MAIL FROM:<ann@example.com>'), /^250 /);
        assert.match(await dialogue.send('RCPT TO:<bob@example.com>'), /^250 /);
        assert.match(await dialogue.send('DATA'), /^354 /);
        return dialogue;
      }),
    );
    const replies = await Promise.all(
      dialogues.map((dialogue) => {
        dialogue.write(body);
        return dialogue.send('.');
      }),
    );
    for (const dialogue of dialogues) dialogue.end();
    const delivered = replies.filter((reply) => /^250 2\.0\.0 OK {2}\d+ /.test(reply)).length;
    const refused = replies.filter((reply) => /^452 4\.3\.1 Insufficient system storage .* - gsmtp$/.test(reply)).length;
    assert.equal(delivered + refused, CONNECTIONS, `every reply is one of the two: ${JSON.stringify([...new Set(replies.map((r) => r.slice(0, 9)))])}`);
    assert.ok(delivered >= 1 && delivered <= Math.floor(LIMIT / body.length), `${delivered} delivered: at least one, at most what the limit holds at once`);
    const growth = residentMiB(pid, 'VmHWM') - before;
    assert.ok(growth < (4 * LIMIT) / MIB + 128, `peak resident memory grew by ${Math.round(growth)} MiB`);
    // Exactly the delivered ones are in bob's INBOX: a refused message left nothing.
    const list = (await (
      await fetch(`${proc.url}/gmail/v1/users/bob@example.com/messages?labelIds=INBOX`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { messages?: unknown[] };
    assert.equal(list.messages?.length ?? 0, delivered);
  });
});
