import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { httpCall } from '../harness/http-call.ts';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'resumable-faults-admin';

/** call sends one request as the admin. */
const call = (url: string, method: string, headers: Record<string, string>, body?: Buffer) => httpCall(TOKEN, url, method, headers, body);

/** message is a mail of about 600 KB with a subject of its own. */
function message(subject: string): Buffer {
  const head = [
    'From: admin@fogbank.local',
    'To: bob@example.com',
    `Subject: ${subject}`,
    `Message-ID: <${subject}@example.com>`,
    'Date: Tue, 3 Jun 2025 09:00:00 +0000',
    'Content-Type: text/plain',
    '',
    '',
  ].join('\r\n');
  const lines = Array.from({ length: 8000 }, (_, i) => `line ${String(i).padStart(6, '0')} of a long message body, enough to span chunks\r\n`).join('');
  return Buffer.from(head + lines);
}

describe('a raw resumable Gmail upload through injected faults', () => {
  let server: RunningFogbank;

  before(async () => {
    server = await startFogbank({ ephemeral: true, adminToken: TOKEN });
  });
  after(async () => server.close());

  /** upload sends `bytes` as one resumable upload, in one chunk, then after a failed chunk asks for the status and sends the rest, until done. */
  async function upload(bytes: Buffer): Promise<{ sent: { id: string; labelIds: string[] }; failures: string[] }> {
    const total = bytes.length;
    const initiated = await call(
      `${server.url}/upload/gmail/v1/users/me/messages/send?uploadType=resumable`,
      'POST',
      {
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-type': 'message/rfc822',
        'x-upload-content-length': String(total),
      },
      Buffer.from('{}'),
    );
    assert.equal(initiated.status, 200, initiated.body);
    const location = new URL(String(initiated.headers['location']));
    const url = `${server.url}${location.pathname}${location.search}`;
    const failures: string[] = [];
    let next = 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      const answer = await call(
        url,
        'PUT',
        { 'content-range': `bytes ${next}-${total - 1}/${total}`, 'content-type': 'message/rfc822' },
        bytes.subarray(next),
      ).catch((error: NodeJS.ErrnoException) => {
        failures.push(`connection: ${error.code ?? error.message}`);
        return undefined;
      });
      if (answer?.status === 200) return { sent: JSON.parse(answer.body) as { id: string; labelIds: string[] }, failures };
      if (answer !== undefined) failures.push(`${answer.status}: ${(JSON.parse(answer.body) as { error: { status: string } }).error.status}`);
      // What the Google clients do after a 5xx or a dropped connection: ask how much arrived.
      const status = await call(url, 'PUT', { 'content-range': `bytes */${total}`, 'content-length': '0' });
      assert.equal(status.status, 308, status.body);
      const range = /^bytes=0-(\d+)$/.exec(String(status.headers['range'] ?? ''));
      next = range === null ? 0 : Number(range[1]) + 1;
    }
    throw new Error(`the upload did not finish: ${failures.join(', ')}`);
  }

  async function copiesOf(subject: string): Promise<number> {
    const list = JSON.parse((await call(`${server.url}/gmail/v1/users/bob@example.com/messages?q=subject:${subject}`, 'GET', {})).body) as {
      messages?: unknown[];
    };
    return list.messages?.length ?? 0;
  }

  it('resumes after an injected 503 on a chunk, and the message arrives once', async () => {
    const bytes = message('chunk503');
    // The session's start is the rule's first match; the first chunk its second.
    await server.faults.add({ method: 'gmail.users.messages.send', status: 503, after: 1, times: 1 });
    const { sent, failures } = await upload(bytes);
    assert.deepEqual(failures, ['503: UNAVAILABLE']);
    assert.deepEqual(sent.labelIds, ['SENT']);
    const raw = JSON.parse((await call(`${server.url}/gmail/v1/users/me/messages/${sent.id}?format=raw`, 'GET', {})).body) as { raw: string };
    assert.equal(createHash('sha256').update(Buffer.from(raw.raw, 'base64url')).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
    assert.equal(await copiesOf('chunk503'), 1);
  });

  it('resumes after the connection is dropped 100 kB into a chunk, and the message arrives once', async () => {
    const bytes = message('dropped');
    await server.faults.add({ method: 'gmail.users.messages.send', dropAfterBytes: 100_000, after: 1, times: 1 });
    const { sent, failures } = await upload(bytes);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!, /^connection: /);
    const raw = JSON.parse((await call(`${server.url}/gmail/v1/users/me/messages/${sent.id}?format=raw`, 'GET', {})).body) as { raw: string };
    assert.equal(createHash('sha256').update(Buffer.from(raw.raw, 'base64url')).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
    assert.equal(await copiesOf('dropped'), 1);
  });
});
