import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../testing/fogbank.ts';
import { attachmentIdOf, mailboxCounts, openMailboxReader } from './public.ts';

describe("mail's face reads the mailboxes the API wrote", () => {
  let server: RunningFogbank;
  let sentId = '';

  before(async () => {
    server = await startFogbank({
      operations: 'instant',
      tokens: [{ token: 'ann', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] }],
    });
    const raw = Buffer.from('To: bob@example.com, cy@example.com\r\nSubject: face\r\n\r\nhello face').toString('base64url');
    const sent = await server.app.inject({
      method: 'POST',
      url: '/gmail/v1/users/me/messages/send',
      headers: { authorization: 'Bearer ann' },
      payload: { raw },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    sentId = sent.json().id;
  });
  after(async () => {
    await server.close();
  });

  it('counts every mailbox holding messages, or one mailbox even when empty', async () => {
    assert.deepEqual(await mailboxCounts(server.store, 'every'), [
      { address: 'ann@example.com', total: 1, unread: 0 },
      { address: 'bob@example.com', total: 1, unread: 1 },
      { address: 'cy@example.com', total: 1, unread: 1 },
    ]);
    assert.deepEqual(await mailboxCounts(server.store, { only: 'dee@example.com' }), [{ address: 'dee@example.com', total: 0, unread: 0 }]);
  });

  it("reads messages, pages by q and parts through the family's own reading code", async () => {
    const reader = openMailboxReader(server.store, server.control.clock);
    const page = await reader.list('bob@example.com', { labelIds: [], maxResults: 10, includeSpamTrash: true, q: 'subject:face' });
    assert.equal(page.items.length, 1);
    const message = page.items[0];
    assert.ok(message);
    assert.equal(message.snippet, 'hello face');
    assert.deepEqual(await reader.message('ann@example.com', sentId).then((sent) => sent.labelIds), ['SENT']);
    const body = await reader.attachment('bob@example.com', message.id, attachmentIdOf(message.id, message.payload.partId));
    assert.equal(Buffer.from(String(body['data']), 'base64url').toString('utf8'), 'hello face');
  });
});
