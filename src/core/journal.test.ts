import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Authenticator } from './auth.ts';
import { RequestJournal, type JournalRecord } from './journal.ts';
import { discoveryRoutes, JournalReader, routePattern } from './journal-view.ts';
import type { ServiceDefinition } from './service.ts';

function record(i: number, extra: Partial<JournalRecord> = {}): JournalRecord {
  return {
    time: i * 1000,
    family: 'compute',
    httpMethod: 'GET',
    url: `/compute/v1/projects/p/global/instanceTemplates/t${i}?access_token=secret`,
    routedUrl: `/compute/v1/projects/p/global/instanceTemplates/t${i}?access_token=secret`,
    authorization: undefined,
    status: 200,
    latencyMs: 1,
    fault: null,
    ...extra,
  };
}

const compute = {
  name: 'compute',
  discovery: async () => [
    {
      servicePath: 'compute/v1/',
      methods: [{ id: 'compute.instanceTemplates.get', httpMethod: 'GET', path: 'projects/{project}/global/instanceTemplates/{instanceTemplate}' }],
    },
  ],
} as unknown as ServiceDefinition;
const cluster = { name: 'cluster', requestMethodId: (method: string, url: string) => `${method.toLowerCase()} ${url}` } as unknown as ServiceDefinition;

describe('RequestJournal', () => {
  it('keeps the newest records up to its capacity, newest first', () => {
    const journal = new RequestJournal(3);
    for (let i = 1; i <= 5; i++) journal.record(record(i));
    assert.equal(journal.size, 3);
    assert.deepEqual(
      [...journal.newestFirst()].map((entry) => entry.time),
      [5000, 4000, 3000],
    );
    journal.clear();
    assert.deepEqual([...journal.newestFirst()], []);
  });

  it('keeps nothing at capacity 0 but still tells followers, and refuses a size that is not a whole number', () => {
    const journal = new RequestJournal(0);
    const heard: number[] = [];
    const stop = journal.subscribe((entry) => heard.push(entry.time));
    journal.record(record(1));
    stop();
    journal.record(record(2));
    assert.deepEqual([journal.size, heard], [0, [1000]]);
    assert.throws(() => new RequestJournal(-1), { message: 'the journal size must be a whole number, not -1' });
  });

  it('shares one copy of a string its records repeat, equal to what was given', () => {
    const journal = new RequestJournal(10);
    // Two equal strings built apart, as the HTTP parser gives each request its own.
    const first = ['/api/v1/namespaces', 'default'].join('/');
    const second = ['/api/v1/namespaces', 'default'].join('/');
    assert.equal(journal.shared(first), first);
    assert.equal(journal.shared(second), second);
    assert.equal(journal.shared(undefined), undefined);
    assert.equal(journal.shared('/other'), '/other');
  });
});

describe('JournalReader', () => {
  const auth = new Authenticator('admin', [{ token: 'alice', email: 'alice@example.com', scopes: ['*'], permissions: ['*'] }]);

  it("names each request by its Discovery id or the family's own name, its principal (Bearer or Basic password) and its path without the query", async () => {
    const journal = new RequestJournal(10);
    journal.record(record(1, { authorization: 'Bearer alice' }));
    journal.record(
      record(2, {
        family: 'cluster',
        httpMethod: 'POST',
        url: '/apis/x',
        routedUrl: '/apis/x',
        authorization: `Basic ${Buffer.from('fogbank:admin').toString('base64')}`,
      }),
    );
    journal.record(record(3, { routedUrl: '/compute/v1/nowhere', url: '/compute/v1/nowhere', authorization: 'Bearer unknown' }));
    const reader = new JournalReader(journal, [compute, cluster], auth);
    const entries = await reader.read();
    assert.deepEqual(
      entries.map((entry) => [entry.method, entry.principal, entry.path]),
      [
        ['GET /compute/v1/nowhere', null, '/compute/v1/nowhere'],
        ['post /apis/x', 'admin@fogbank.local', '/apis/x'],
        ['compute.instanceTemplates.get', 'alice@example.com', '/compute/v1/projects/p/global/instanceTemplates/t1'],
      ],
    );
    assert.equal(entries[2]!.time, '1970-01-01T00:00:01.000Z');
  });

  it('filters by family, method, status, since and limit', async () => {
    const journal = new RequestJournal(10);
    for (let i = 1; i <= 6; i++) journal.record(record(i, { status: i % 2 === 0 ? 404 : 200, family: i === 6 ? 'cluster' : 'compute' }));
    const reader = new JournalReader(journal, [compute, cluster], auth);
    const times = async (filter: Parameters<JournalReader['read']>[0]) => (await reader.read(filter)).map((entry) => Date.parse(entry.time) / 1000);
    assert.deepEqual(await times({ family: 'compute' }), [5, 4, 3, 2, 1]);
    assert.deepEqual(await times({ status: 404 }), [6, 4, 2]);
    assert.deepEqual(await times({ status: '2xx', limit: 2 }), [5, 3]);
    assert.deepEqual(await times({ since: 4000 }), [6, 5, 4]);
    assert.deepEqual(await times({ method: 'compute.instanceTemplates.*', limit: 1 }), [5]);
    assert.deepEqual(await times({ method: 'compute.instanceTemplates.insert' }), []);
  });

  it('matches concrete paths to Discovery paths, the most literal first, with upload forms', () => {
    const routes = discoveryRoutes([
      {
        servicePath: '',
        methods: [
          { id: 'gmail.users.messages.get', httpMethod: 'POST', path: 'gmail/v1/users/{userId}/messages/{id}' },
          { id: 'gmail.users.messages.send', httpMethod: 'POST', path: 'gmail/v1/users/{userId}/messages/send', mediaUpload: { accept: [], maxSize: 1 } },
        ],
      },
    ] as never);
    const idOf = (path: string) => routes.find((route) => route.pattern.test(path))?.id;
    assert.equal(idOf('/gmail/v1/users/me/messages/send'), 'gmail.users.messages.send');
    assert.equal(idOf('/gmail/v1/users/me/messages/abc'), 'gmail.users.messages.get');
    assert.equal(idOf('/resumable/upload/gmail/v1/users/me/messages/send'), 'gmail.users.messages.send');
    assert.equal(idOf('/upload/gmail/v1/users/me/messages/send/'), 'gmail.users.messages.send');
    assert.equal(idOf('/gmail/v1/users/me/messages/a/b'), undefined);
    assert.equal(routePattern('v1/{+name}').test('v1/a/b'), true);
  });
});
