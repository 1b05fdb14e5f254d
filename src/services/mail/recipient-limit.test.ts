import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Authenticator } from '../../core/auth.ts';
import { ManualClock, realTimers } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { buildServer, type FogbankServer } from '../../core/server.ts';
import { MemoryStore } from '../../store/memory-store.ts';
import type { Transaction } from '../../store/store.ts';
import { mailService } from './index.ts';
import { KINDS } from './model.ts';

/**
 * Gmail's per-message recipient limit (100 through the API, To, Cc and Bcc together; configurable)
 * refused with 400 invalidArgument before anything is stored, and a send to many recipients
 * delivered in one transaction: one read of the mailboxes' counters, one batch of writes.
 */

const ann = { authorization: 'Bearer ann' };
const b64 = (text: string): string => Buffer.from(text).toString('base64url');
const addresses = (count: number, domain = 'example.com'): string[] => Array.from({ length: count }, (_, i) => `user${i}@${domain}`);
const tooMany = (count: number, limit = 100): object => {
  const message = `You exceeded the maximum recipients. A message sent through the Gmail API may have at most ${limit} recipients (To, Cc and Bcc together); this one has ${count}.`;
  return { error: { code: 400, message, errors: [{ message, domain: 'global', reason: 'invalidArgument' }], status: 'INVALID_ARGUMENT' } };
};

/** Counts of what the store was asked to do: transactions, and calls of each transaction method. */
interface StoreUse {
  transactions: number;
  calls: Record<string, number>;
}

async function serve(store: MemoryStore, maxRecipients?: number): Promise<FogbankServer> {
  const auth = new Authenticator('admin', [{ token: 'ann', email: 'ann@example.com', scopes: ['https://mail.google.com/'], permissions: [] }]);
  return buildServer(
    {
      store,
      clock: new ManualClock(Date.UTC(2025, 5, 1)),
      timers: realTimers,
      ids: seededIds('recipients'),
      auth,
      operations: 'instant',
      ...(maxRecipients === undefined ? {} : { options: { mailMaxRecipients: maxRecipients } }),
    },
    [mailService],
    {
      logLevel: 'silent',
      bodyLimit: 1024 * 1024,
    },
  );
}

/** watch counts the store's transactions and the reads made inside them. */
function watch(store: MemoryStore): StoreUse {
  const use: StoreUse = { transactions: 0, calls: {} };
  const transact = store.transact.bind(store);
  store.transact = (fn) => {
    use.transactions++;
    return transact((tx: Transaction) => {
      // A proxy keeps the transaction's type: each method it hands out counts its calls first.
      const counted = new Proxy(tx, {
        get(target, name, receiver) {
          const value: unknown = Reflect.get(target, name, receiver);
          if (typeof value !== 'function' || typeof name !== 'string') return value;
          return (...args: unknown[]) => {
            use.calls[name] = (use.calls[name] ?? 0) + 1;
            return Reflect.apply(value, target, args);
          };
        },
      });
      return fn(counted);
    });
  };
  return use;
}

describe('the recipient limit (Gmail API: 100 per message)', () => {
  let store: MemoryStore;
  let app: FogbankServer;
  before(async () => {
    store = new MemoryStore();
    app = await serve(store);
  });
  after(() => app.close());

  const post = (url: string, payload: object) => app.inject({ method: 'POST', url, headers: ann, payload });

  test('101 recipients across To, Cc and Bcc are refused with 400 invalidArgument, and nothing is stored', async () => {
    const before = await store.count(KINDS.messages);
    const [to, cc, bcc] = [addresses(50), addresses(30, 'cc.example.com'), addresses(21, 'bcc.example.com')];
    const raw = `To: ${to.join(', ')}\r\nCc: ${cc.join(', ')}\r\nBcc: ${bcc.join(', ')}\r\nSubject: many\r\n\r\nhi`;
    const response = await post('/gmail/v1/users/me/messages/send', { raw: b64(raw) });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), tooMany(101));
    assert.equal(await store.count(KINDS.messages), before);
    assert.equal(await store.count(KINDS.files), 0, 'a raw file was recorded');
  });

  test('3,000 recipients are refused at once, through the upload path too', async () => {
    const raw = `To: ${addresses(3000).join(', ')}\r\nSubject: thousands\r\n\r\nhi`;
    assert.deepEqual((await post('/gmail/v1/users/me/messages/send', { raw: b64(raw) })).json(), tooMany(3000));
    const upload = await app.inject({
      method: 'POST',
      url: '/upload/gmail/v1/users/me/messages/send?uploadType=media',
      headers: { ...ann, 'content-type': 'message/rfc822' },
      payload: raw,
    });
    assert.equal(upload.statusCode, 400);
    assert.deepEqual(upload.json(), tooMany(3000));
  });

  test('an address repeated across To and Cc counts once: exactly 100 distinct recipients are delivered', async () => {
    const to = addresses(100, 'ok.example.com');
    const raw = `To: ${to.join(', ')}\r\nCc: ${to.slice(0, 10).join(', ')}\r\nSubject: hundred\r\n\r\nhi`;
    const response = await post('/gmail/v1/users/me/messages/send', { raw: b64(raw) });
    assert.equal(response.statusCode, 200, response.body);
    const copies = (await store.list(KINDS.messages)).filter((record) => record.key.startsWith('user') && record.key.includes('@ok.example.com/'));
    assert.equal(copies.length, 100);
  });

  test('a draft may name more recipients; sending it is refused and keeps the draft', async () => {
    const raw = `To: ${addresses(150, 'draft.example.com').join(', ')}\r\nSubject: later\r\n\r\nhi`;
    const draft = await post('/gmail/v1/users/me/drafts', { message: { raw: b64(raw) } });
    assert.equal(draft.statusCode, 200, draft.body);
    const sent = await post('/gmail/v1/users/me/drafts/send', { id: draft.json().id });
    assert.equal(sent.statusCode, 400);
    assert.deepEqual(sent.json(), tooMany(150));
    assert.equal((await app.inject({ method: 'GET', url: `/gmail/v1/users/me/drafts/${draft.json().id}`, headers: ann })).statusCode, 200);
  });
});

describe('delivery to many recipients', () => {
  test('one transaction: one read of every mailbox counter, one batch of every write', async () => {
    const store = new MemoryStore();
    const app = await serve(store);
    try {
      const use = watch(store);
      const raw = `To: ${addresses(100, 'batch.example.com').join(', ')}\r\nSubject: batch\r\n\r\nhi`;
      const response = await app.inject({ method: 'POST', url: '/gmail/v1/users/me/messages/send', headers: ann, payload: { raw: b64(raw) } });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(use.transactions, 1);
      // The counters, then the shared raw's record (new, so nothing to read) and the copies in one batch.
      assert.deepEqual(use.calls, { getMany: 1, putMany: 1 });
    } finally {
      await app.close();
    }
  });

  test('--mail-max-recipients changes the limit', async () => {
    const app = await serve(new MemoryStore(), 3);
    try {
      const four = await app.inject({
        method: 'POST',
        url: '/gmail/v1/users/me/messages/send',
        headers: ann,
        payload: { raw: b64(`To: ${addresses(4).join(', ')}\r\n\r\nx`) },
      });
      assert.deepEqual(four.json(), tooMany(4, 3));
      const three = await app.inject({
        method: 'POST',
        url: '/gmail/v1/users/me/messages/send',
        headers: ann,
        payload: { raw: b64(`To: ${addresses(3).join(', ')}\r\n\r\nx`) },
      });
      assert.equal(three.statusCode, 200);
    } finally {
      await app.close();
    }
  });
});

describe('an upload answered without the method (deadline, shutdown)', () => {
  test('a send, a draft and a draft update whose signal is aborted store nothing and leave no file', async () => {
    const { ComposeService } = await import('./compose-service.ts');
    const { MessageFiles } = await import('./message-files.ts');
    const store = new MemoryStore();
    const files = new MessageFiles(store);
    const compose = new ComposeService(store, new ManualClock(), seededIds('aborted'), files, undefined);
    // Over the inline limit, so each attempt writes a store file first.
    const source = {
      kind: 'bytes' as const,
      bytes: Buffer.from(`To: bob@example.com\r\nBcc: carol@example.com\r\nSubject: late\r\n\r\n${'x'.repeat(70_000)}`),
    };
    const aborted = AbortSignal.abort(new Error('answered already'));
    await assert.rejects(compose.send('ann@example.com', source, undefined, aborted), { message: 'answered already' });
    await assert.rejects(compose.createDraft('ann@example.com', source, undefined, aborted), { message: 'answered already' });
    assert.equal(await store.count(KINDS.messages), 0);
    assert.equal(await store.count(KINDS.drafts), 0);
    const kept: string[] = [];
    await store.files.sweep('mail/raw/', async (ids) => {
      kept.push(...ids);
      return new Set();
    });
    assert.deepEqual(kept, [], 'a raw file was left behind');
  });
});
