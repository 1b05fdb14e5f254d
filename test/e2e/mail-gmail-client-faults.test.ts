import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auth, gmail, type gmail_v1 } from '@googleapis/gmail';
import { startFogbank, type RunningFogbank } from '../../src/testing/fogbank.ts';

const TOKEN = 'gmail-faults-admin';

describe('@googleapis/gmail through injected faults', () => {
  let server: RunningFogbank;
  let client: gmail_v1.Gmail;

  before(async () => {
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN });
    const oauth = new auth.OAuth2();
    oauth.setCredentials({ access_token: TOKEN });
    // The client's default retry (gaxios): GETs are retried on 5xx and 429.
    client = gmail({ version: 'v1', rootUrl: `${server.url}/`, auth: oauth });
  });
  after(async () => server.close());

  it('lists labels after one injected 503 (the client retries a GET)', async () => {
    await server.faults.add({ method: 'gmail.users.labels.list', status: 503, times: 1 });
    const { data } = await client.users.labels.list({ userId: 'me' });
    assert.ok(data.labels?.some((label) => label.id === 'INBOX'));
    assert.deepEqual(server.faults.list(), [], 'the 503 was answered once');
  });

  it('a send meets an injected 429 with the real envelope, is not retried, and sends nothing', async () => {
    await server.faults.add({ method: 'gmail.users.messages.send', status: 429, times: 1 });
    const raw = Buffer.from('From: admin@fogbank.local\r\nTo: bob@example.com\r\nSubject: limited\r\n\r\nhello\r\n').toString('base64url');
    const failure = await client.users.messages.send({ userId: 'me', requestBody: { raw } }).then(
      () => assert.fail('the send succeeded'),
      (error: { status?: number; response?: { data: unknown } }) => error,
    );
    assert.equal(failure.status, 429);
    const text = 'Resource has been exhausted (e.g. check quota).';
    assert.deepEqual(failure.response?.data, {
      error: { code: 429, message: text, errors: [{ message: text, domain: 'global', reason: 'rateLimitExceeded' }], status: 'RESOURCE_EXHAUSTED' },
    });
    const sent = await client.users.messages.list({ userId: 'me', q: 'subject:limited' });
    assert.equal(sent.data.messages, undefined);
  });
});
