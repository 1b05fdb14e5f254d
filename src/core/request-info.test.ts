import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { faultOf, markFault } from './faults/applied.ts';
import { firedFaultOf, requestInfoOf, useRequestInfo } from './request-info.ts';

describe('RequestInfo (one record per request)', () => {
  it('is made by its first reader and then shared by every later one, and holds the fault that fired', async () => {
    const app = Fastify();
    useRequestInfo(app);
    const seen: unknown[] = [];
    app.addHook('onRequest', (request, _reply, done) => {
      seen.push(request.requestInfo);
      if (request.url === '/fired') markFault(request, { id: 'f1', status: 429 });
      done();
    });
    app.get('/*', async (request) => {
      const info = requestInfoOf(request);
      const again = requestInfoOf(request);
      return { same: info === again, fault: faultOf(request) ?? null, fired: firedFaultOf(request) === info.fault };
    });
    const fired = await app.inject({ method: 'GET', url: '/fired' });
    assert.deepEqual(fired.json(), { same: true, fault: { id: 'f1', status: 429 }, fired: true });
    const plain = await app.inject({ method: 'GET', url: '/plain' });
    assert.deepEqual(plain.json(), { same: true, fault: null, fired: true });
    // No reader before the first hook: the slot is empty, not a shared object.
    assert.deepEqual(seen, [null, null]);
    await app.close();
  });

  it('keeps one request’s record from another’s', async () => {
    const app = Fastify();
    useRequestInfo(app);
    app.get('/', async (request) => {
      requestInfoOf(request).family = request.headers['x-mark'];
      return { mark: requestInfoOf(request).family };
    });
    const [a, b] = await Promise.all([app.inject({ url: '/', headers: { 'x-mark': 'a' } }), app.inject({ url: '/', headers: { 'x-mark': 'b' } })]);
    assert.deepEqual([a.json(), b.json()], [{ mark: 'a' }, { mark: 'b' }]);
    await app.close();
  });
});
