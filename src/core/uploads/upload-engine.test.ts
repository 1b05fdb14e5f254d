import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { ManualClock } from '../../lib/clock.ts';
import { seededIds } from '../../lib/ids.ts';
import { MemoryStore } from '../../store/memory-store.ts';
import { openFileArea } from './file-area.ts';
import { UploadError } from './errors.ts';
import { SESSION_LIFETIME_MS } from './resumable-sessions.ts';
import { UploadEngine } from './upload-engine.ts';
import type { UploadMethod } from './upload-method.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'fogbank-uploads-test-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** echo is a method that answers what it received: metadata, type, size, hash and the bytes as text. */
const echo: UploadMethod<{ who: string }> = {
  id: 'test.echo',
  limits: { accept: ['message/*'], maxSize: 1000 },
  begin: (request) => {
    if (request.headers['x-deny'] !== undefined) throw new UploadError(403, 'forbidden', 'PERMISSION_DENIED', 'denied');
    return { who: String(request.headers['x-who'] ?? 'nobody') };
  },
  complete: async (upload, context) => ({
    status: 200,
    body: {
      who: context.who,
      metadata: upload.metadata,
      mediaType: upload.media.mediaType,
      size: upload.media.size,
      sha256: upload.media.sha256,
      text: await readFile(upload.media.path, 'utf8'),
    },
  }),
};

async function serve(
  store: MemoryStore,
  clock = new ManualClock(),
  method: UploadMethod<{ who: string }> = echo,
  engineOut?: (engine: UploadEngine) => void,
  completionDeadlineMs?: number,
): Promise<FastifyInstance> {
  const app = Fastify();
  const engine = new UploadEngine({
    family: 'test',
    store,
    clock,
    ids: seededIds(String(Math.random())),
    area: openFileArea(dataDir, 'uploads'),
    ...(completionDeadlineMs === undefined ? {} : { completionDeadlineMs }),
  });
  engineOut?.(engine);
  await engine.open();
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof UploadError)
      return reply.code(error.httpStatus).send({ error: { code: error.httpStatus, message: error.message, status: error.status, reason: error.reason } });
    return reply.code(500).send({ error: String(error) });
  });
  await app.register(async (scope) => {
    engine.streamBodies(scope);
    engine.route(scope, 'POST', '/upload/things', method);
  });
  return app;
}

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('uploadType=media', () => {
  test('the body is the media; hash and size come with it', async () => {
    const app = await serve(new MemoryStore());
    const response = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=media',
      headers: { 'content-type': 'message/rfc822', 'x-who': 'ann' },
      payload: 'Subject: hi\r\n\r\nbody',
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      who: 'ann',
      metadata: {},
      mediaType: 'message/rfc822',
      size: 19,
      sha256: sha('Subject: hi\r\n\r\nbody'),
      text: 'Subject: hi\r\n\r\nbody',
    });
  });

  test('a type outside accept, a body over maxSize, an unknown uploadType and none at all are refused', async () => {
    const app = await serve(new MemoryStore());
    const wrongType = await app.inject({ method: 'POST', url: '/upload/things?uploadType=media', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    assert.equal(wrongType.statusCode, 400);
    assert.equal(wrongType.json().error.message, "Media type 'text/plain' is not supported. Valid media types: [message/*]");
    const tooBig = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=media',
      headers: { 'content-type': 'message/rfc822' },
      payload: Readable.from([Buffer.alloc(600), Buffer.alloc(600)]),
    });
    assert.equal(tooBig.statusCode, 413);
    assert.equal(tooBig.json().error.message, 'Media larger than the maximum size of 1000 bytes.');
    const unknown = await app.inject({ method: 'POST', url: '/upload/things?uploadType=chunky', headers: { 'content-type': 'message/rfc822' }, payload: 'x' });
    assert.equal(unknown.json().error.message, "Invalid value for uploadType: 'chunky'. Expected one of: media, multipart, resumable.");
    const none = await app.inject({ method: 'POST', url: '/upload/things', headers: { 'content-type': 'message/rfc822' }, payload: 'x' });
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().error.message, 'Upload requests must include an uploadType URL parameter and a URL path beginning with /upload/');
    assert.deepEqual(readdirSync(join(dataDir, 'uploads', 'spool')), [], 'no spool file is left behind');
  });

  test('begin runs before any byte is accepted', async () => {
    const app = await serve(new MemoryStore());
    const response = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=media',
      headers: { 'content-type': 'message/rfc822', 'x-deny': '1' },
      payload: 'x',
    });
    assert.equal(response.statusCode, 403);
  });
});

describe('uploadType=multipart', () => {
  const encode = (boundary: string, eol: string, json: string, mediaType: string, media: string): string =>
    `--${boundary}${eol}content-type: application/json${eol}${eol}${json}${eol}--${boundary}${eol}content-type: ${mediaType}${eol}${eol}${media}${eol}--${boundary}--`;

  test('the googleapis Node client encoding (unquoted UUID boundary, CRLF, no trailing CRLF)', async () => {
    const app = await serve(new MemoryStore());
    const boundary = '0d6a4f3e-8f5c-4b1e-9a55-3c7e2b1d9f00';
    const media = 'From: a@b.com\r\nSubject: x\r\n\r\nline one\r\nline two\r\n';
    const response = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=multipart',
      headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      payload: encode(boundary, '\r\n', '{"threadId":"t1"}', 'message/rfc822', media),
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json().metadata, { threadId: 't1' });
    assert.equal(response.json().text, media);
    assert.equal(response.json().sha256, sha(media));
  });

  test('quoted boundaries, bare LF line ends and a base64 media part', async () => {
    const app = await serve(new MemoryStore());
    const quoted = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=multipart',
      headers: { 'content-type': 'multipart/related; boundary="a b:c"' },
      payload: encode('a b:c', '\n', '{}', 'message/rfc822', 'Subject: lf\n\nbody'),
    });
    assert.equal(quoted.statusCode, 200);
    assert.equal(quoted.json().text, 'Subject: lf\n\nbody');
    const base64 = `--B\r\nContent-Type: application/json\r\n\r\n{}\r\n--B\r\nContent-Type: message/rfc822\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from('Subject: b64\r\n\r\nhi').toString('base64')}\r\n--B--\r\n`;
    const decoded = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=multipart',
      headers: { 'content-type': 'multipart/related; boundary=B' },
      payload: base64,
    });
    assert.equal(decoded.json().text, 'Subject: b64\r\n\r\nhi');
  });

  test('broken bodies: one part, three parts, bad JSON, wrong media type, no boundary', async () => {
    const app = await serve(new MemoryStore());
    const post = (contentType: string, payload: string) =>
      app.inject({ method: 'POST', url: '/upload/things?uploadType=multipart', headers: { 'content-type': contentType }, payload });
    assert.equal(
      (await post('multipart/related; boundary=B', '--B\r\ncontent-type: application/json\r\n\r\n{}\r\n--B--')).json().error.message,
      'Invalid multipart request with 1 mime parts.',
    );
    const three = `--B\r\ncontent-type: application/json\r\n\r\n{}\r\n--B\r\ncontent-type: message/rfc822\r\n\r\nx\r\n--B\r\ncontent-type: message/rfc822\r\n\r\ny\r\n--B--`;
    assert.equal((await post('multipart/related; boundary=B', three)).json().error.message, 'Invalid multipart request with 3 mime parts.');
    assert.equal(
      (await post('multipart/related; boundary=B', encode('B', '\r\n', '{nope', 'message/rfc822', 'x'))).json().error.message,
      'Invalid JSON payload received. Unexpected token.',
    );
    assert.equal(
      (await post('multipart/related; boundary=B', encode('B', '\r\n', '{}', 'image/png', 'x'))).json().error.message,
      "Media type 'image/png' is not supported. Valid media types: [message/*]",
    );
    assert.equal((await post('multipart/related', 'x')).json().error.message, 'Invalid multipart request: the Content-Type has no boundary parameter.');
    assert.equal((await post('multipart/related; boundary=B', encode('B', '\r\n', '{}', 'message/rfc822', 'y'.repeat(1001)))).statusCode, 413);
    assert.deepEqual(readdirSync(join(dataDir, 'uploads', 'spool')), [], 'no spool file is left behind');
  });
});

describe('uploadType=resumable', () => {
  async function initiate(app: FastifyInstance, headers: Record<string, string> = {}): Promise<string> {
    const response = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=resumable',
      headers: { 'content-type': 'application/json; charset=UTF-8', 'x-upload-content-type': 'message/rfc822', 'x-who': 'bo', ...headers },
      payload: '{"threadId":"t9"}',
    });
    assert.equal(response.statusCode, 200);
    const location = new URL(String(response.headers['location']));
    assert.equal(location.pathname, '/upload/things');
    assert.equal(location.searchParams.get('uploadType'), 'resumable');
    const id = location.searchParams.get('upload_id')!;
    assert.equal(response.headers['x-guploader-uploadid'], id);
    return `${location.pathname}${location.search}`;
  }

  test('chunks, 308 with Range, status queries, overlap, completion and the answer repeated', async () => {
    const app = await serve(new MemoryStore());
    const url = await initiate(app, { 'x-upload-content-length': '10' });
    const empty = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes */10' } });
    assert.equal(empty.statusCode, 308);
    assert.equal(empty.headers['range'], undefined);
    const first = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 0-3/10' }, payload: 'Subj' });
    assert.equal(first.statusCode, 308);
    assert.equal(first.headers['range'], 'bytes=0-3');
    const overlap = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 2-5/*' }, payload: 'bjec' });
    assert.equal(overlap.headers['range'], 'bytes=0-5');
    const gap = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 8-9/10' }, payload: 'xx' });
    assert.equal(gap.statusCode, 400);
    assert.equal(
      gap.json().error.message,
      'Invalid request. According to the Content-Range header, the upload offset is 8 byte(s), which exceeds already uploaded size of 6 byte(s).',
    );
    const badRange = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 9-3/10' }, payload: 'x' });
    assert.equal(badRange.json().error.message, 'Failed to parse Content-Range header.');
    const otherTotal = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 6-9/11' }, payload: 'ct: ' });
    assert.equal(
      otherTotal.json().error.message,
      'Invalid request. The total size 11 in the Content-Range header differs from the 10 byte(s) declared earlier.',
    );
    const status = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes */*' } });
    assert.equal(status.headers['range'], 'bytes=0-5');
    const last = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 6-9/10' }, payload: 't: x' });
    assert.equal(last.statusCode, 200);
    assert.deepEqual(last.json(), {
      who: 'bo',
      metadata: { threadId: 't9' },
      mediaType: 'message/rfc822',
      size: 10,
      sha256: sha('Subject: x'),
      text: 'Subject: x',
    });
    const again = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes */10' } });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), last.json());
  });

  test('a session and its bytes outlive the engine (a restart on the same data)', async () => {
    const store = new MemoryStore();
    const url = await initiate(await serve(store));
    const before = await serve(store);
    assert.equal((await before.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 0-4/*' }, payload: 'Hello' })).statusCode, 308);
    const restarted = await serve(store);
    const status = await restarted.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes */*' } });
    assert.equal(status.headers['range'], 'bytes=0-4');
    const done = await restarted.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 5-7/8' }, payload: ', x' });
    assert.equal(done.statusCode, 200);
    assert.equal(done.json().text, 'Hello, x');
  });

  test('a final chunk while another replica holds the completion lease: 503, then the status query completes', async () => {
    const store = new MemoryStore();
    const app = await serve(store);
    const url = await initiate(app, { 'x-upload-content-length': '5' });
    const id = new URL(url, 'http://x').searchParams.get('upload_id')!;
    assert.equal(await store.leases.acquire(`uploads.complete/test/${id}`, 'another replica', 60_000), true);
    const busy = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes 0-4/5' }, payload: 'Hello' });
    assert.equal(busy.statusCode, 503);
    assert.deepEqual(busy.json().error, {
      code: 503,
      message: 'The upload is being completed by another request. Query its status to get the result.',
      status: 'UNAVAILABLE',
      reason: 'backendError',
    });
    await store.leases.release(`uploads.complete/test/${id}`, 'another replica');
    const status = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes */5' } });
    assert.equal(status.statusCode, 200);
    assert.equal(status.json().text, 'Hello');
    const again = await app.inject({ method: 'PUT', url, headers: { 'content-range': 'bytes */5' } });
    assert.deepEqual(again.json(), status.json());
  });

  test('a whole body without Content-Range, too much data, unknown and expired sessions', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore();
    const app = await serve(store, clock);
    const whole = await app.inject({ method: 'PUT', url: await initiate(app), headers: {}, payload: 'all at once' });
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.json().text, 'all at once');
    const declaredTooBig = await app.inject({ method: 'POST', url: '/upload/things?uploadType=resumable', headers: { 'x-upload-content-length': '1001' } });
    assert.equal(declaredTooBig.statusCode, 413);
    const tooBig = await app.inject({
      method: 'PUT',
      url: await initiate(app),
      headers: { 'content-range': 'bytes 0-1000/1001' },
      payload: Buffer.alloc(1001),
    });
    assert.equal(tooBig.statusCode, 413);
    const unknown = await app.inject({ method: 'PUT', url: '/upload/things?uploadType=resumable&upload_id=nope', headers: { 'content-range': 'bytes */*' } });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.message, "No upload session with upload_id 'nope': it is unknown or has expired. Start a new upload.");
    const stale = await initiate(app);
    clock.advance(SESSION_LIFETIME_MS + 1);
    assert.equal((await app.inject({ method: 'PUT', url: stale, headers: { 'content-range': 'bytes */*' } })).statusCode, 404);
  });
});

describe('upload metadata', () => {
  test('nested deeper than JSON bodies may be is refused, on initiation and in a multipart part, and no session is kept', async () => {
    const store = new MemoryStore();
    const app = await serve(store);
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const message = "Invalid JSON payload received. Message too deep. Max recursion depth reached for key 'a'";
    const initiation = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=resumable',
      headers: { 'content-type': 'application/json', 'x-upload-content-type': 'message/rfc822' },
      payload: deep,
    });
    assert.equal(initiation.statusCode, 400);
    assert.equal(initiation.json().error.message, message);
    assert.equal(await store.count('uploads.sessions'), 0);
    const boundary = 'b0undary';
    const multipart = `--${boundary}\r\nContent-Type: application/json\r\n\r\n${deep}\r\n--${boundary}\r\nContent-Type: message/rfc822\r\n\r\nSubject: x\r\n--${boundary}--`;
    const part = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=multipart',
      headers: { 'content-type': `multipart/related; boundary=${boundary}` },
      payload: multipart,
    });
    assert.equal(part.statusCode, 400);
    assert.equal(part.json().error.message, message);
  });
});

describe('the processing deadline', () => {
  /** stalling is a method that never answers; it records the signal it was given. */
  function stalling(signals: AbortSignal[]): UploadMethod<{ who: string }> {
    return {
      ...echo,
      id: 'test.stall',
      complete: (upload) => {
        signals.push(upload.signal);
        return new Promise<never>(() => undefined);
      },
    };
  }
  // One store for the block: each MemoryStore registers a process exit hook.
  const store = new MemoryStore();
  const unavailable = { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE', reason: 'backendError' };

  for (const protocol of ['media', 'multipart', 'resumable'] as const) {
    test(`a method that never answers (${protocol}): 503 backendError once the deadline passes, its signal aborted, no spool file left`, async () => {
      const signals: AbortSignal[] = [];
      const app = await serve(store, new ManualClock(), stalling(signals), undefined, 50);
      let response: LightMyRequestResponse;
      if (protocol === 'media') {
        response = await app.inject({
          method: 'POST',
          url: '/upload/things?uploadType=media',
          headers: { 'content-type': 'message/rfc822' },
          payload: 'Subject: x\r\n\r\n',
        });
      } else if (protocol === 'multipart') {
        const body = '--B\r\ncontent-type: application/json\r\n\r\n{}\r\n--B\r\ncontent-type: message/rfc822\r\n\r\nSubject: x\r\n--B--';
        response = await app.inject({
          method: 'POST',
          url: '/upload/things?uploadType=multipart',
          headers: { 'content-type': 'multipart/related; boundary=B' },
          payload: body,
        });
      } else {
        const started = await app.inject({
          method: 'POST',
          url: '/upload/things?uploadType=resumable',
          headers: { 'x-upload-content-type': 'message/rfc822' },
        });
        const location = new URL(String(started.headers['location']));
        response = await app.inject({ method: 'PUT', url: `${location.pathname}${location.search}`, payload: 'Subject: x' });
        // The session was given up with the answer: the client starts again.
        assert.equal(
          (await app.inject({ method: 'PUT', url: `${location.pathname}${location.search}`, headers: { 'content-range': 'bytes */*' } })).statusCode,
          404,
        );
      }
      assert.equal(response.statusCode, 503);
      assert.deepEqual(response.json().error, unavailable);
      assert.equal(signals.length, 1);
      assert.equal(signals[0]!.aborted, true);
      assert.deepEqual(readdirSync(join(dataDir, 'uploads', 'spool')), [], 'no spool file is left behind');
    });
  }

  test('closing the engine answers the uploads it is processing at once, and any later one without running the method', async () => {
    const signals: AbortSignal[] = [];
    let engine: UploadEngine | undefined;
    // The default deadline (30 s) would outlast the test: only close can answer here.
    const app = await serve(store, new ManualClock(), stalling(signals), (made) => (engine = made));
    const pending = app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=media',
      headers: { 'content-type': 'message/rfc822' },
      payload: 'Subject: x',
    });
    for (let i = 0; i < 500 && signals.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.equal(signals.length, 1, 'the method never started');
    engine!.close();
    const response = await pending;
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json().error, unavailable);
    const later = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=media',
      headers: { 'content-type': 'message/rfc822' },
      payload: 'Subject: y',
    });
    assert.equal(later.statusCode, 503);
    assert.equal(signals.length, 1, 'the method ran after close');
  });

  test('a method that answers in time is not cut off, and a method failing late fails for nobody', async () => {
    let fail: (error: Error) => void = () => undefined;
    const late: UploadMethod<{ who: string }> = { ...echo, id: 'test.late', complete: () => new Promise<never>((_resolve, reject) => (fail = reject)) };
    const app = await serve(store, new ManualClock(), late, undefined, 20);
    const response = await app.inject({
      method: 'POST',
      url: '/upload/things?uploadType=media',
      headers: { 'content-type': 'message/rfc822' },
      payload: 'Subject: x',
    });
    assert.equal(response.statusCode, 503);
    // An unhandled rejection here would fail the test run.
    fail(new Error('too late'));
    await new Promise((resolve) => setImmediate(resolve));
    const quick = await serve(store, new ManualClock(), echo, undefined, 5_000);
    assert.equal(
      (await quick.inject({ method: 'POST', url: '/upload/things?uploadType=media', headers: { 'content-type': 'message/rfc822' }, payload: 'Subject: x' }))
        .statusCode,
      200,
    );
  });
});
