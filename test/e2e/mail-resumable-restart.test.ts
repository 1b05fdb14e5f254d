import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startFogbankProcess, type FogbankProcess } from '../harness/process.ts';
import { type HttpAnswer, httpCall } from '../harness/http-call.ts';

const MIB = 1024 * 1024;
const TOKEN = 'resume-admin';
const dataDir = mkdtempSync(join(tmpdir(), 'fogbank-mail-resume-'));
let running: FogbankProcess | undefined;
after(async () => {
  if (running !== undefined && running.child.exitCode === null) {
    running.child.kill('SIGTERM');
    await running.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** A 30 MiB message: complete headers (so fogbank keeps its bytes unchanged) and a base64 attachment. */
function bigMessage(): Buffer {
  const head = [
    'From: admin@fogbank.local',
    'To: bob@example.com',
    'Subject: thirty mebibytes',
    'Message-ID: <big-1@example.com>',
    'Date: Tue, 3 Jun 2025 09:00:00 +0000',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="BIG"',
    '',
    '--BIG',
    'Content-Type: text/plain',
    '',
    'See the attachment.',
    '--BIG',
    'Content-Type: application/octet-stream; name="blob.bin"',
    'Content-Disposition: attachment; filename="blob.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    '',
  ].join('\r\n');
  const tail = '\r\n--BIG--\r\n';
  const line = Buffer.alloc(57);
  const lines: string[] = [];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let i = 0; size < 30 * MIB; i++) {
    line.writeUInt32BE(i, 0);
    const encoded = `${line.toString('base64')}\r\n`;
    lines.push(encoded);
    size += encoded.length;
  }
  return Buffer.concat([Buffer.from(head), Buffer.from(lines.join('')), Buffer.from(tail)]);
}

/** call sends one request as the admin. */
const call = (url: string, method: string, headers: Record<string, string>, body?: Buffer) => httpCall(TOKEN, url, method, headers, body);

/** sendHalfThenDrop starts a chunk PUT, writes part of it, and drops the connection, as a dying client does. */
function sendHalfThenDrop(url: string, headers: Record<string, string>, part: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
    req.on('error', () => resolve());
    req.write(part, () => setTimeout(() => req.destroy(), 200));
    req.on('close', () => resolve());
  });
}

const start = (): Promise<FogbankProcess> => startFogbankProcess(['--port', '0', '--data-dir', dataDir, '--admin-token', TOKEN, '--log-level', 'silent']);

test('a 30 MiB resumable upload: interrupted, fogbank restarted, status queried, resumed, completed', { timeout: 240_000 }, async () => {
  const message = bigMessage();
  const total = message.length;
  running = await start();
  const initiated = await call(
    `${running.url}/upload/gmail/v1/users/me/messages/send?uploadType=resumable`,
    'POST',
    {
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-type': 'message/rfc822',
      'x-upload-content-length': String(total),
    },
    Buffer.from('{}'),
  );
  assert.equal(initiated.status, 200);
  const location = new URL(String(initiated.headers['location']));
  assert.match(location.searchParams.get('upload_id')!, /^[A-Za-z0-9_-]+$/);
  const path = `${location.pathname}${location.search}`;

  const first = 8 * MIB;
  const chunk = await call(
    `${running.url}${path}`,
    'PUT',
    { 'content-range': `bytes 0-${first - 1}/${total}`, 'content-type': 'message/rfc822' },
    message.subarray(0, first),
  );
  assert.equal(chunk.status, 308);
  assert.equal(chunk.headers['range'], `bytes=0-${first - 1}`);

  // The next chunk is cut off half way, then fogbank dies.
  await sendHalfThenDrop(
    `${running.url}${path}`,
    { 'content-range': `bytes ${first}-${2 * first - 1}/${total}`, 'content-length': String(first) },
    message.subarray(first, first + 3 * MIB),
  );
  running.child.kill('SIGKILL');
  await running.exited;

  running = await start();
  const status = await call(`${running.url}${path}`, 'PUT', { 'content-range': `bytes */${total}`, 'content-length': '0' });
  assert.equal(status.status, 308);
  const match = /^bytes=0-(\d+)$/.exec(String(status.headers['range']));
  assert.ok(match !== null, `a Range header after the restart, got ${String(status.headers['range'])}`);
  let next = Number(match[1]) + 1;
  assert.ok(next >= first && next <= first + 3 * MIB, `kept what arrived: ${next}`);

  let last: HttpAnswer | undefined;
  while (next < total) {
    const end = Math.min(next + 8 * MIB, total);
    last = await call(`${running.url}${path}`, 'PUT', { 'content-range': `bytes ${next}-${end - 1}/${total}` }, message.subarray(next, end));
    assert.equal(last.status, end === total ? 200 : 308, last.body);
    next = end;
  }
  const sent = JSON.parse(last!.body) as { id: string; labelIds: string[] };
  assert.deepEqual(sent.labelIds, ['SENT']);

  const again = await call(`${running.url}${path}`, 'PUT', { 'content-range': `bytes */${total}`, 'content-length': '0' });
  assert.equal(again.status, 200);
  assert.deepEqual(JSON.parse(again.body), sent);

  const raw = await call(`${running.url}/gmail/v1/users/me/messages/${sent.id}?format=raw`, 'GET', {});
  const bytes = Buffer.from((JSON.parse(raw.body) as { raw: string }).raw, 'base64url');
  assert.equal(createHash('sha256').update(bytes).digest('hex'), createHash('sha256').update(message).digest('hex'));
  const inbox = JSON.parse((await call(`${running.url}/gmail/v1/users/bob@example.com/messages?q=subject:thirty`, 'GET', {})).body) as {
    messages: { id: string }[];
  };
  const copy = JSON.parse((await call(`${running.url}/gmail/v1/users/bob@example.com/messages/${inbox.messages[0]!.id}`, 'GET', {})).body) as {
    sizeEstimate: number;
    payload: { parts: { filename: string; body: { size: number; attachmentId?: string } }[] };
  };
  assert.equal(copy.sizeEstimate, total);
  assert.equal(copy.payload.parts[1]!.filename, 'blob.bin');
  assert.ok(copy.payload.parts[1]!.body.attachmentId !== undefined);
});
