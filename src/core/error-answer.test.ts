import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryStore } from '../store/memory-store.ts';
import { Authenticator } from './auth.ts';
import { ManualClock, realTimers } from '../lib/clock.ts';
import { transportProblemOf } from './errors.ts';
import { seededIds } from '../lib/ids.ts';
import { buildServer, type FogbankServer } from './server.ts';
import type { ErrorResponse, ServiceDefinition } from './service.ts';

/**
 * Core's one error answer (error-answer.ts) with a stand-in family whose serializer names what it
 * was told: the answer goes out exactly as the family phrased it, whichever handler failed.
 */

const family: ServiceDefinition = {
  name: 'fake',
  pathPrefixes: ['/fake'],
  fallback: true,
  renderError(error: unknown, site): ErrorResponse {
    if (error instanceof Error && error.message === 'unrenderable') throw new Error('the serializer broke');
    const problem = transportProblemOf(error) ?? { httpStatus: 500, kind: 'bad-request', detail: 'internal' };
    return {
      status: problem.httpStatus,
      headers: { 'content-type': 'application/json', 'x-dialect': 'fake' },
      body: { fake: { kind: problem.kind, limit: site.bodyLimit, path: site.path } },
    };
  },
  async register(app) {
    app.post('/fake/small', { bodyLimit: 10 }, async () => ({}));
    app.post('/fake/default', async () => ({}));
    app.get('/fake/unrenderable', async () => {
      throw new Error('unrenderable');
    });
  },
};

let server: FogbankServer;

before(async () => {
  const context = {
    store: new MemoryStore(),
    clock: new ManualClock(),
    timers: realTimers,
    ids: seededIds('answer'),
    auth: new Authenticator('admin', []),
    operations: 'instant' as const,
  };
  server = await buildServer(context, [family], { logLevel: 'silent', bodyLimit: 100 });
});
after(async () => {
  await server.close();
});

describe('the one error answer', () => {
  it("sends the family's media type as given (no charset added) and tells it the path without query or authority", async () => {
    for (const url of ['/fake/nothing?x=1', 'http://example.com/fake/nothing']) {
      const answer = await server.inject({ method: 'GET', url });
      assert.equal(answer.statusCode, 404);
      assert.equal(answer.headers['content-type'], 'application/json');
      assert.equal(answer.headers['x-dialect'], 'fake');
      assert.deepEqual(JSON.parse(answer.body), { fake: { kind: 'not-found', limit: 100, path: '/fake/nothing' } });
    }
  });

  it("names the route's own body limit in a 413, and the server's where the route has none", async () => {
    const payload = JSON.stringify({ text: 'x'.repeat(200) });
    const small = await server.inject({ method: 'POST', url: '/fake/small', headers: { 'content-type': 'application/json' }, payload });
    assert.equal(small.statusCode, 413);
    assert.equal(small.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(small.body), { fake: { kind: 'body-too-large', limit: 10, path: '/fake/small' } });
    const fallback = await server.inject({ method: 'POST', url: '/fake/default', headers: { 'content-type': 'application/json' }, payload });
    assert.equal(fallback.statusCode, 413);
    assert.deepEqual(JSON.parse(fallback.body), { fake: { kind: 'body-too-large', limit: 100, path: '/fake/default' } });
  });

  it("answers core's neutral 500 when the family's serializer itself fails", async () => {
    const answer = await server.inject({ method: 'GET', url: '/fake/unrenderable' });
    assert.equal(answer.statusCode, 500);
    assert.deepEqual(JSON.parse(answer.body), {
      error: { code: 500, message: 'Internal error.', errors: [{ message: 'Internal error.', domain: 'global', reason: 'backendError' }] },
    });
  });
});
