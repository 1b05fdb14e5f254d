import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../testing/fogbank.ts';

const MESSAGE = ['From: me@example.com', 'To: you@example.com', 'Subject: kept', '', 'Hello, journal.', ''].join('\r\n');

describe('journal bodies, kept when asked', () => {
  let fb: RunningFogbank;
  let admin: Record<string, string>;

  before(async () => {
    fb = await startFogbank({ journalBodies: 64 });
    admin = { authorization: `Bearer ${fb.adminToken}` };
  });
  after(() => fb.close());

  // biome-ignore lint/suspicious/noExplicitAny: the tests read the journal's documented JSON shape.
  async function journal(query: string): Promise<any[]> {
    const response = await fetch(`${fb.url}/_fogbank/requests?${query}`, { headers: admin });
    assert.equal(response.status, 200);
    return ((await response.json()) as { requests: unknown[] }).requests;
  }

  it('keeps a JSON request and its answer as text, and shows them only with bodies=true', async () => {
    const raw = Buffer.from(MESSAGE).toString('base64url');
    const sent = await fetch(`${fb.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ raw }),
    });
    assert.equal(sent.status, 200);
    const answer = await sent.text();
    const [entry] = await journal('method=gmail.users.messages.send&limit=1&bodies=true');
    assert.equal(entry.requestBody.contentType, 'application/json');
    assert.equal(entry.requestBody.size, JSON.stringify({ raw }).length);
    assert.equal(entry.requestBody.truncated, true);
    assert.equal(entry.requestBody.text, JSON.stringify({ raw }).slice(0, 64));
    assert.equal(entry.responseBody.contentType, 'application/json; charset=utf-8');
    assert.equal(entry.responseBody.size, Buffer.byteLength(answer));
    assert.equal(entry.responseBody.text, answer.slice(0, 64));
    const [plain] = await journal('method=gmail.users.messages.send&limit=1');
    assert.equal('requestBody' in plain, false);
    assert.equal('responseBody' in plain, false);
  });

  it('taps a streamed upload without changing what the family reads, and keeps bytes that are not text as base64', async () => {
    const bytes = Buffer.concat([Buffer.from('To: you@example.com\r\n\r\n'), Buffer.from([0xff, 0xfe, 0x80, 0x81]), Buffer.alloc(100, 0xc0)]);
    const upload = await fetch(`${fb.url}/upload/gmail/v1/users/me/messages/send?uploadType=media`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'message/rfc822' },
      body: bytes,
    });
    assert.equal(upload.status, 200);
    const { id } = (await upload.json()) as { id: string };
    const stored = await fetch(`${fb.url}/gmail/v1/users/me/messages/${id}?format=raw`, { headers: admin });
    // The sent copy gains the headers Gmail adds (From, Date, Message-Id); the body is the client's, byte for byte.
    const kept = Buffer.from(((await stored.json()) as { raw: string }).raw, 'base64url');
    assert.deepEqual(kept.subarray(kept.length - 104), bytes.subarray(bytes.length - 104));
    const [entry] = await journal('method=gmail.users.messages.send&limit=1&bodies=true');
    assert.equal(entry.requestBody.size, bytes.length);
    assert.equal(entry.requestBody.base64, bytes.subarray(0, 64).toString('base64'));
    assert.equal(entry.requestBody.text, undefined);
  });

  it('keeps what arrived of a body the family refused', async () => {
    const refused = await fetch(`${fb.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: '{"raw": ',
    });
    assert.equal(refused.status, 400);
    const [entry] = await journal('family=mail&status=400&limit=1&bodies=true');
    assert.deepEqual(entry.requestBody, { contentType: 'application/json', size: 8, truncated: false, text: '{"raw": ' });
  });

  it('refuses a bodies value that is not true or false', async () => {
    const response = await fetch(`${fb.url}/_fogbank/requests?bodies=yes`, { headers: admin });
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), { error: { code: 400, status: 'INVALID_ARGUMENT', message: '"bodies": "yes" is not true or false.' } });
  });
});

describe('journal bodies, not kept by default', () => {
  it('records no body even when a reader asks for them', async () => {
    const fb = await startFogbank();
    try {
      const admin = { authorization: `Bearer ${fb.adminToken}` };
      await fetch(`${fb.url}/gmail/v1/users/me/labels`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"name":"x"}' });
      const response = await fetch(`${fb.url}/_fogbank/requests?bodies=true&limit=1`, { headers: admin });
      const [entry] = ((await response.json()) as { requests: Record<string, unknown>[] }).requests;
      assert.equal(entry?.['method'], 'gmail.users.labels.create');
      assert.equal('requestBody' in (entry ?? {}), false);
    } finally {
      await fb.close();
    }
  });
});
