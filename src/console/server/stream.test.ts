import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../testing/fogbank.ts';
import { Principal } from '../../core/auth.ts';
import type { Change } from '../../store/store.ts';
import type { SignedIn } from './sessions.ts';
import { parseEventId, visibleChange } from './stream.ts';

const TOKEN = 'stream-admin';

/** SseReader reads a text/event-stream answer event by event. */
class SseReader {
  readonly events: { id: string | undefined; data: Record<string, unknown> }[] = [];
  lastId: string | undefined;
  #buffer = '';
  #waiters: (() => void)[] = [];

  constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let end = this.#buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        let id: string | undefined;
        let data: string | undefined;
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('data: ')) data = line.slice(6);
        }
        if (id !== undefined) this.lastId = id;
        if (data !== undefined) this.events.push({ id, data: JSON.parse(data) as Record<string, unknown> });
        end = this.#buffer.indexOf('\n\n');
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** until waits for the events to satisfy `done`. */
  async until(done: () => boolean): Promise<void> {
    while (!done()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  close(): void {
    this.response.destroy();
  }
}

describe('the console stream', () => {
  let server: RunningFogbank;
  let cookie: string;

  before(async () => {
    server = await startFogbank({ ephemeral: true, port: 0, adminToken: TOKEN });
    const signIn = await fetch(`${server.url}/_fogbank/console/api/session`, {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: TOKEN }),
    });
    assert.equal(signIn.status, 201);
    cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  });
  after(async () => server.close());

  const open = (lastEventId?: string): Promise<SseReader> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(`${server.url}/_fogbank/console/api/stream`, {
        headers: { cookie, accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) },
      });
      request.on('response', (response) => resolve(new SseReader(response)));
      request.on('error', reject);
      request.end();
    });

  const send = async (subject: string): Promise<void> => {
    const raw = Buffer.from(`From: admin@fogbank.local\r\nTo: bob@example.com\r\nSubject: ${subject}\r\n\r\nhi\r\n`).toString('base64url');
    const response = await fetch(`${server.url}/gmail/v1/users/me/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ raw }),
    });
    assert.equal(response.status, 200);
  };

  it("passes a non-admin its own mailbox's changes only while its token may read mail (a Gmail read scope)", () => {
    const change: Change = { type: 'created', kind: 'mail.messages', key: 'dana@example.com/m1', value: {}, revision: 2, createRevision: 2 };
    const as = (scopes: string[]): SignedIn => ({
      session: { id: 'x', token: 't', csrf: 'c' },
      principal: new Principal('dana@example.com', scopes, []),
      admin: false,
      bearer: false,
    });
    assert.equal(visibleChange(change, as(['gmail.readonly']), 'dana@example.com'), true);
    assert.equal(visibleChange(change, as(['androidpublisher']), 'dana@example.com'), false, 'the Gmail API would refuse the token');
    assert.equal(visibleChange({ ...change, key: 'erin@example.com/m2' }, as(['gmail.readonly']), 'dana@example.com'), false);
  });

  it('reads REVISION.SEQUENCE ids only', () => {
    assert.deepEqual(parseEventId('12.3'), { revision: 12, seq: 3 });
    for (const bad of [undefined, '', '12', '1.2.3', '-1.2', 'a.b', '1e3.1']) assert.equal(parseEventId(bad), undefined);
  });

  it('a client that reconnects with Last-Event-ID gets every change and request it missed, once', async () => {
    const start = await server.store.currentRevision();
    const first = await open();
    await first.until(() => first.lastId !== undefined);
    await send('one');
    await send('two');
    const revisionAfterTwo = await server.store.currentRevision();
    await first.until(() => first.events.some((event) => event.data['type'] === 'change' && event.data['revision'] === revisionAfterTwo));
    await first.until(() => first.events.filter((event) => event.data['type'] === 'request').length >= 2);
    const resumeFrom = first.lastId;
    first.close();
    // Missed while away: two more sends (their changes and their journal entries).
    await send('three');
    await send('four');
    const second = await open(resumeFrom);
    const end = await server.store.currentRevision();
    await second.until(() => second.events.some((event) => event.data['revision'] === end));
    await second.until(() => second.events.filter((event) => event.data['type'] === 'request').length >= 2);
    second.close();

    const revisions = [...first.events, ...second.events].filter((event) => event.data['type'] === 'change').map((event) => event.data['revision'] as number);
    const expected = (await server.store.changesSince(start)).map((change) => change.revision);
    assert.deepEqual(revisions, expected, 'every revision once, in order');
    const requests = [...first.events, ...second.events].filter((event) => event.data['type'] === 'request').map((event) => event.data['seq'] as number);
    assert.deepEqual(requests, [1, 2, 3, 4]);
    const methods = [...first.events, ...second.events]
      .filter((event) => event.data['type'] === 'request')
      .map((event) => (event.data['entry'] as { method: string }).method);
    assert.deepEqual(methods, ['gmail.users.messages.send', 'gmail.users.messages.send', 'gmail.users.messages.send', 'gmail.users.messages.send']);
  });

  it('a stream without a session is refused in the console’s dialect', async () => {
    const response = await fetch(`${server.url}/_fogbank/console/api/stream`);
    assert.equal(response.status, 401);
    assert.deepEqual(await response.json(), {
      error: { code: 401, status: 'UNAUTHENTICATED', message: 'Sign in to the console first: open the link the banner printed, or send a token.' },
    });
  });
});
