import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningFogbank, startFogbank } from '../../testing/fogbank.ts';

const RAW = Buffer.from(['To: you@example.com', 'Subject: dropped?', '', 'Hello.', ''].join('\r\n')).toString('base64url');

describe('fault dropAfterBytes on a body read in full', () => {
  let fb: RunningFogbank;
  let admin: Record<string, string>;

  before(async () => {
    fb = await startFogbank();
    admin = { authorization: `Bearer ${fb.adminToken}` };
  });
  after(() => fb.close());

  const send = () =>
    fetch(`${fb.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ raw: RAW }),
    });

  async function sentCount(): Promise<number> {
    const listed = (await (await fetch(`${fb.url}/gmail/v1/users/me/messages?labelIds=SENT`, { headers: admin })).json()) as { resultSizeEstimate: number };
    return listed.resultSizeEstimate;
  }

  it('drops the connection before the handler when the body reached the limit, and applies nothing of it', async () => {
    await fb.faults.add({ method: 'gmail.users.messages.send', dropAfterBytes: 10, times: 1 });
    await assert.rejects(send(), (error: Error) => error.message === 'fetch failed');
    assert.equal(await sentCount(), 0);
    assert.equal((await send()).status, 200);
    assert.equal(await sentCount(), 1);
  });

  it('serves a body shorter than the limit', async () => {
    await fb.faults.add({ method: 'gmail.users.messages.send', dropAfterBytes: 100_000, times: 1 });
    assert.equal((await send()).status, 200);
    assert.deepEqual(fb.faults.list(), []);
  });
});
