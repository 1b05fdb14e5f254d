import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { plain, SmtpDialogue } from '../../src/services/mail/smtp/smtp-client.fixture.ts';
import { startPostgres, type PostgresServer } from '../../src/testing/postgres-server.ts';
import { tempDir } from '../../src/testing/temp.ts';
import { startFogbankProcess, type FogbankProcess } from '../harness/process.ts';

// `fogbank start --smtp-port 0` replicas on one PostgreSQL database (issue 40): whichever
// replica's listener takes a message, every replica's API reads it, as with the API's own writes.

const TOKEN = 'e2e-smtp-replicas';

describe('SMTP submission across replicas sharing PostgreSQL', () => {
  let postgres: PostgresServer;
  const processes: FogbankProcess[] = [];

  before(async () => {
    postgres = await startPostgres();
  });
  after(async () => {
    for (const proc of processes) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    await postgres?.stop();
  });

  const replica = async (store: string): Promise<{ proc: FogbankProcess; smtpPort: number }> => {
    const proc = await startFogbankProcess([
      ...['--port', '0', '--store', store, '--data-dir', tempDir('smtp-replica'), '--admin-token', TOKEN],
      ...['--no-tls', '--smtp-port', '0', '--log-level', 'error'],
    ]);
    processes.push(proc);
    // The banner lists the listener, which accepted before the ready line.
    const [, port] = await proc.waitForLine(/^ {2}SMTP submission\s+smtp:\/\/127\.0\.0\.1:(\d+)$/);
    return { proc, smtpPort: Number(port) };
  };

  const submit = async (port: number, subject: string): Promise<void> => {
    const { dialogue } = await SmtpDialogue.open(port);
    assert.doesNotMatch(await dialogue.send('EHLO replica.example'), /STARTTLS/);
    assert.equal(await dialogue.send(`AUTH PLAIN ${plain('ann@example.com', TOKEN)}`), '235 2.7.0 Accepted');
    await dialogue.send('MAIL FROM:<ann@example.com>');
    assert.match(await dialogue.send('RCPT TO:<bob@example.com>'), /^250 2\.1\.5 OK/);
    await dialogue.send('DATA');
    assert.match(await dialogue.send(`Subject: ${subject}\r\nTo: bob@example.com\r\n\r\nacross replicas\r\n.`), /^250 2\.0\.0 OK {2}\d+ /);
    await dialogue.send('QUIT');
    dialogue.end();
  };

  const subjects = async (base: string, mailbox: string, label: string): Promise<string[]> => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const list = (await (await fetch(`${base}/gmail/v1/users/${mailbox}/messages?labelIds=${label}`, { headers })).json()) as { messages?: { id: string }[] };
    const found: string[] = [];
    for (const { id } of list.messages ?? []) {
      const message = (await (await fetch(`${base}/gmail/v1/users/${mailbox}/messages/${id}?format=metadata&metadataHeaders=Subject`, { headers })).json()) as {
        payload: { headers: { name: string; value: string }[] };
      };
      found.push(message.payload.headers.find((header) => header.name === 'Subject')?.value ?? '');
    }
    return found.sort();
  };

  it("a message submitted to A's listener is read through B, and B's through A", async () => {
    const store = await postgres.createDatabase('smtp_replicas');
    const a = await replica(store);
    const b = await replica(store);
    await submit(a.smtpPort, 'through A');
    await submit(b.smtpPort, 'through B');
    for (const { proc } of [a, b]) {
      assert.deepEqual(await subjects(proc.url, 'bob@example.com', 'INBOX'), ['through A', 'through B']);
      assert.deepEqual(await subjects(proc.url, 'ann@example.com', 'SENT'), ['through A', 'through B']);
    }
    // Each replica journals what its own listener took.
    const journal = (await (await fetch(`${a.proc.url}/_fogbank/requests?method=smtp.DATA`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      requests: { family: string; status: number; principal: string }[];
    };
    assert.deepEqual(
      journal.requests.map(({ family, status, principal }) => ({ family, status, principal })),
      [{ family: 'mail', status: 250, principal: 'admin@fogbank.local' }],
    );
  });
});
