// The generated fetch client for google.api.http rules: AIP-127 templates, nested path fields,
// `**`, custom verbs and methods, body "*" and body fields, dotted query parameters, additional
// bindings, response_body and typed errors. Generated with the in-memory host API.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, test } from 'node:test';
import { fogbankPlugin } from '../../src/plugin/generators/index.ts';
import { runInMemory } from '../../src/plugin/host/index.ts';
import { descriptorSet, googleapisProtos, FIXTURE_PROTOS, tempDir } from '../harness/protos.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}
type Reply = { status: number; body: string };
type Rpc = (request: object, options?: { headers?: Record<string, string> }) => Promise<unknown>;
type LibraryClient = Record<'getBook' | 'createBook' | 'updateBook' | 'moveBook' | 'listBooks' | 'getFile' | 'deleteBook' | 'purge', Rpc>;
interface Generated {
  LibraryClient: new (options: object) => LibraryClient;
}
interface Runtime {
  ApiError: new (...args: never[]) => Error & { status: number; error?: { message?: string; status?: string } };
  RequestError: new (...args: never[]) => Error;
}

let generated: Generated;
let runtime: Runtime;
const calls: Call[] = [];
let reply: Reply = { status: 200, body: '{}' };

function client(): LibraryClient {
  return new generated.LibraryClient({
    baseUrl: 'http://library.test/',
    headers: async () => ({ authorization: 'Bearer t' }),
    fetch: async (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => {
      calls.push({ url, ...init });
      return { ok: reply.status < 300, status: reply.status, statusText: 'Status', text: async () => reply.body };
    },
  });
}

async function call(rpc: keyof LibraryClient, request: object, r: Reply = { status: 200, body: '{}' }) {
  reply = r;
  calls.length = 0;
  const result = await client()[rpc](request);
  assert.equal(calls.length, 1);
  return { result, sent: calls[0] as Call };
}

before(async () => {
  const dir = tempDir('rest-client');
  const schema = readFileSync(descriptorSet(['corpus/library.proto'], dir, [FIXTURE_PROTOS, googleapisProtos()]));
  const result = await runInMemory({ schema, filesToGenerate: ['corpus/library.proto'], generators: [{ plugin: fogbankPlugin }] });
  assert.equal(result.stderr, '');
  assert.equal(result.exitCode, 0);
  for (const [name, text] of result.files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  generated = (await import(pathToFileURL(join(dir, 'corpus/library.fogbank.ts')).href)) as Generated;
  runtime = (await import(pathToFileURL(join(dir, 'corpus/fogbank-rest.ts')).href)) as Runtime;
});

test('resource-name variables keep their slashes and the first matching binding wins', async () => {
  const { sent } = await call('getBook', { name: 'shelves/s1/books/b1' });
  assert.equal(sent.method, 'GET');
  assert.equal(sent.url, 'http://library.test/v1/shelves/s1/books/b1');
  assert.equal(sent.body, undefined);
  assert.deepEqual(sent.headers, { accept: 'application/json', authorization: 'Bearer t' });
  const other = await call('getBook', { name: 'authors/a1/books/b1' });
  assert.equal(other.sent.url, 'http://library.test/v1/authors/a1/books/b1');
});

test('a request no binding matches is a RequestError naming the field', async () => {
  await assert.rejects(client().getBook({ name: 'bad' }), (err: unknown) => {
    assert.ok(err instanceof runtime.RequestError);
    assert.equal(err.message, 'cannot call fixtures.library.v1.Library/GetBook: path field "name" = "bad" does not match ^authors/[^/]+/books/[^/]+$');
    return true;
  });
  await assert.rejects(client().getBook({}), { message: 'cannot call fixtures.library.v1.Library/GetBook: path field "name" is not set' });
});

test('a body field is sent as JSON and the remaining fields become the query', async () => {
  const { sent } = await call('createBook', { parent: 'shelves/s 1', book: { title: 'T', pages: '12' }, requestId: 'r 1' });
  assert.equal(sent.method, 'POST');
  assert.equal(sent.url, 'http://library.test/v1/shelves/s%201/books?requestId=r%201');
  assert.equal(sent.body, '{"title":"T","pages":"12"}');
  assert.equal(sent.headers['content-type'], 'application/json');
});

test('a nested path field is taken out of the body', async () => {
  const { sent } = await call('updateBook', { book: { name: 'shelves/1/books/2', title: 'x' }, updateMask: 'title' });
  assert.equal(sent.method, 'PATCH');
  assert.equal(sent.url, 'http://library.test/v1/shelves/1/books/2?updateMask=title');
  assert.equal(sent.body, '{"title":"x"}');
});

test('body "*" sends every field not bound by the path, with a custom verb', async () => {
  const { sent } = await call('moveBook', { name: 'shelves/1/books/2', otherShelfName: 'shelves/9' });
  assert.equal(sent.url, 'http://library.test/v1/shelves/1/books/2:move');
  assert.equal(sent.body, '{"otherShelfName":"shelves/9"}');
});

test('nested query fields are dotted and repeated ones repeat the key', async () => {
  const { sent } = await call('listBooks', {
    parent: 'shelves/1',
    pageSize: 10,
    filter: { author: 'Ann & Bo', priority: 'PRIORITY_HIGH' },
    fields: ['a', 'b'],
  });
  assert.equal(sent.url, 'http://library.test/v1/shelves/1/books?pageSize=10&filter.author=Ann%20%26%20Bo&filter.priority=PRIORITY_HIGH&fields=a&fields=b');
});

test('** keeps slashes, response_body returns the field, single segments escape "/"', async () => {
  const file = await call('getFile', { path: 'a/b c/d.txt' }, { status: 200, body: '{"data":"aGk="}' });
  assert.equal(file.sent.url, 'http://library.test/files/a/b%20c/d.txt');
  assert.equal(file.result, 'aGk=');
  const purge = await call('purge', { shelf: 's/1', force: true });
  assert.equal(purge.sent.method, 'PURGE');
  assert.equal(purge.sent.url, 'http://library.test/v1/s%2F1:purge?force=true');
  const del = await call('deleteBook', { name: 'shelves/1/books/2' }, { status: 200, body: '' });
  assert.equal(del.sent.method, 'DELETE');
  assert.deepEqual(del.result, {});
});

test('a JSON error response is thrown as ApiError with the parsed error', async () => {
  reply = { status: 404, body: '{"error":{"code":404,"message":"Book not found.","status":"NOT_FOUND"}}' };
  await assert.rejects(client().getBook({ name: 'shelves/1/books/9' }), (err: unknown) => {
    assert.ok(err instanceof runtime.ApiError);
    assert.equal(err.status, 404);
    assert.equal(err.message, 'Book not found.');
    assert.equal(err.error?.status, 'NOT_FOUND');
    return true;
  });
  reply = { status: 502, body: 'upstream down' };
  await assert.rejects(client().getBook({ name: 'shelves/1/books/9' }), { name: 'ApiError', message: 'HTTP 502 Status' });
});

test('rest_clients=false generates the types only, without the support module', async () => {
  const dir = tempDir('rest-off');
  const schema = readFileSync(descriptorSet(['corpus/library.proto'], dir, [FIXTURE_PROTOS, googleapisProtos()]));
  const result = await runInMemory({
    schema,
    filesToGenerate: ['corpus/library.proto'],
    generators: [{ plugin: fogbankPlugin, parameter: 'rest_clients=false' }],
  });
  assert.deepEqual([...result.files.keys()], ['corpus/library.fogbank.ts']);
  const text = result.files.get('corpus/library.fogbank.ts') ?? '';
  assert.ok(text.includes('export interface Book {'));
  assert.ok(!text.includes('class LibraryClient'));
  assert.ok(!text.includes('fogbank-rest'));
});
