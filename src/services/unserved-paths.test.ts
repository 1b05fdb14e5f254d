import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendRaw } from '../testing/raw-http.ts';
import { startFogbank, type RunningFogbank } from '../testing/fogbank.ts';

/**
 * Issue 24, item 14: a path under a version of an API fogbank does not serve is still that API's
 * to refuse, in its own dialect; a path no family owns gets core's one neutral answer
 * (docs/architecture.md, core/neutral-error.ts).
 */

const TOKEN = 'admin';

let server: RunningFogbank;

before(async () => {
  server = await startFogbank({ host: '127.0.0.1', port: 0, ephemeral: true, operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
});
after(async () => {
  await server.close();
});

const notFoundText = (path: string): string => `The requested URL ${path} was not found on this server.`;

/** googleNotFound is the Google envelope's 404 for a URL, with the canonical status word when the API carries one. */
const googleNotFound = (path: string, status?: string): unknown => ({
  error: {
    code: 404,
    message: notFoundText(path),
    errors: [{ message: notFoundText(path), domain: 'global', reason: 'notFound' }],
    ...(status === undefined ? {} : { status }),
  },
});

const KUBE_NOT_FOUND = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};

async function answer(method: string, path: string, authorized: boolean, body?: string): Promise<{ status: number; type: string | undefined; body: unknown }> {
  const headers: Record<string, string> = authorized ? { authorization: `Bearer ${TOKEN}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const reply = await server.app.inject({ method: method as 'GET', url: path, headers, ...(body === undefined ? {} : { payload: body }) });
  return { status: reply.statusCode, type: reply.headers['content-type'] as string | undefined, body: JSON.parse(reply.body) };
}

describe("a version fogbank does not serve gets that API's 404", () => {
  const mail = [
    '/gmail/v2/users/me/profile',
    '/gmail/v1beta/users/me/messages',
    '/mail/v2/users/me/messages/send',
    '/upload/gmail/v2/users/me/messages/send',
    '/resumable/upload/mail/v9/users/me/messages/send',
  ];
  for (const path of mail) {
    it(`mail: ${path}, with and without credentials, with the status word`, async () => {
      for (const authorized of [true, false]) {
        const reply = await answer('POST', `${path}?alt=json`, authorized, '{"raw":"eA"}');
        assert.deepEqual(reply, { status: 404, type: 'application/json; charset=UTF-8', body: googleNotFound(path, 'NOT_FOUND') });
      }
    });
  }

  const publisher = [
    '/androidpublisher/v9/applications/com.example/edits',
    '/publisher/v9/applications/com.example/edits',
    '/upload/androidpublisher/v2/applications/internalappsharing/com.example/artifacts/bundle',
    '/resumable/upload/publisher/v1/x',
  ];
  for (const path of publisher) {
    it(`publisher: ${path}, with and without credentials, with the status word`, async () => {
      for (const authorized of [true, false]) {
        const reply = await answer('GET', path, authorized);
        assert.deepEqual(reply, { status: 404, type: 'application/json; charset=UTF-8', body: googleNotFound(path, 'NOT_FOUND') });
      }
    });
  }

  for (const path of ['/compute/beta/projects/p/global/instanceTemplates', '/compute/v2/projects/p/zones', '/compute', '/batch/compute/beta']) {
    it(`compute: ${path}, in compute's envelope`, async () => {
      const reply = await answer('GET', path, true);
      assert.deepEqual(reply, { status: 404, type: 'application/json; charset=UTF-8', body: googleNotFound(path) });
    });
  }

  for (const path of [
    '/apis/rbac.authorization.k8s.io/v2/clusterroles',
    '/apis/rbac.authorization.k8s.io/v2',
    '/apis/events.k8s.io/v2/namespaces/default/events',
    '/api/v2/namespaces',
  ]) {
    it(`cluster: ${path}, the apiserver's Status for a path it serves nothing under`, async () => {
      const reply = await answer('GET', path, true);
      assert.deepEqual(reply, { status: 404, type: 'application/json', body: KUBE_NOT_FOUND });
    });
  }
});

describe('a path no family owns gets the one neutral answer', () => {
  for (const path of ['/', '/foo', '/gmailx/v1/users/me/profile', '/metrics', '/computex/v1', '/storage/v1/b']) {
    it(`404 for ${path}, with or without credentials`, async () => {
      for (const authorized of [true, false]) {
        const reply = await answer('GET', `${path}?x=1`, authorized);
        assert.deepEqual(reply, { status: 404, type: 'application/json; charset=UTF-8', body: googleNotFound(path) });
      }
    });
  }

  it('404 for any method on /healthz but GET and HEAD', async () => {
    assert.deepEqual(await answer('POST', '/healthz', false, '{}'), { status: 404, type: 'application/json; charset=UTF-8', body: googleNotFound('/healthz') });
  });

  const badRequest = {
    error: {
      code: 400,
      message: 'Your client has issued a malformed or illegal request.',
      errors: [{ message: 'Your client has issued a malformed or illegal request.', domain: 'global', reason: 'badRequest' }],
    },
  };
  it('400 for bytes that are no request at all', async () => {
    const reply = await sendRaw(server.port, '\u0000\u0001hello\r\n\r\n');
    assert.equal(reply.status, 400);
    assert.equal(reply.headers['content-type'], 'application/json; charset=UTF-8');
    assert.deepEqual(JSON.parse(reply.body), badRequest);
  });
  it('400 for CONNECT', async () => {
    const reply = await sendRaw(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n');
    assert.equal(reply.status, 400);
    assert.deepEqual(JSON.parse(reply.body), badRequest);
  });
  it('413 for an oversized head under no family', async () => {
    const reply = await sendRaw(server.port, `GET /nowhere HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`);
    assert.equal(reply.status, 413);
    const message = 'Your client issued a request that was too large.';
    assert.deepEqual(JSON.parse(reply.body), { error: { code: 413, message, errors: [{ message, domain: 'global', reason: 'badRequest' }] } });
  });
});

describe('served paths answer as before', () => {
  it("the spec's and the real spellings, and compute without its prefix", async () => {
    for (const path of [
      '/gmail/v1/users/me/profile',
      '/mail/v1/users/me/profile',
      '/compute/v1/projects/p/global/instanceTemplates',
      '/projects/p/global/instanceTemplates',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles?limit=1',
    ]) {
      assert.equal((await answer('GET', path, true)).status, 200, path);
    }
  });
});
