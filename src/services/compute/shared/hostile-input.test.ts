import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendRaw } from '../../../testing/raw-http.ts';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

/**
 * Regression cases of issue 13 for compute, each with its exact answer and the store shown
 * unchanged: prototype-named members, nesting beyond the parser's limit, invalid UTF-8, and
 * everything answered before a handler runs (bad URLs, unreadable requests, oversized heads,
 * unknown paths, unframed bodies), which must still be compute's envelope.
 */

const TOKEN = 'admin';
const AUTH = `Authorization: Bearer ${TOKEN}\r\n`;
const P = '/compute/v1/projects/p';
const MALFORMED = 'Your client has issued a malformed or illegal request.';

let server: RunningFogbank;

before(async () => {
  server = await startFogbank({ host: '127.0.0.1', port: 0, ephemeral: true, operations: 'instant', adminToken: TOKEN, logLevel: 'silent' });
  for (const [path, body] of [
    [`${P}/global/instanceTemplates`, { name: 'kept', properties: { machineType: 'e2-small' } }],
    [`${P}/global/securityPolicies`, { name: 'pol' }],
  ] as const) {
    const response = await server.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${TOKEN}` }, payload: body });
    assert.equal(response.statusCode, 200, response.body);
  }
});
after(async () => {
  await server.close();
});

/** envelope is compute's error body; `status` is the canonical word Google adds to front-end errors. */
function envelope(code: number, reason: string, message: string, status?: string): unknown {
  return { error: { code, message, errors: [{ message, domain: 'global', reason }], ...(status === undefined ? {} : { status }) } };
}

/** refuses sends raw bytes and checks the exact answer and that the store did not move. */
async function refuses(bytes: string | Buffer, status: number, body: unknown): Promise<void> {
  const before = await server.store.currentRevision();
  const reply = await sendRaw(server.port, bytes, 150);
  assert.equal(reply.status, status, reply.body);
  assert.equal(reply.headers['content-type'], 'application/json; charset=UTF-8');
  assert.deepEqual(JSON.parse(reply.body), body);
  assert.equal(await server.store.currentRevision(), before);
}

function post(path: string, body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([
    Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`),
    bytes,
  ]);
}

const unknownName = (name: string, at = ''): unknown =>
  envelope(400, 'invalid', `Invalid JSON payload received. Unknown name ${JSON.stringify(name)}${at}: Cannot find field.`, 'INVALID_ARGUMENT');

describe('prototype-named members are unknown names (issue 13, case 3)', () => {
  const routes = [
    `${P}/global/instanceTemplates`,
    `${P}/global/securityPolicies`,
    `${P}/global/securityPolicies/pol/addRule`,
    `${P}/global/securityPolicies/pol/patchRule?priority=2147483647`,
    `${P}/global/securityPolicies/pol/setLabels`,
  ];
  for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) {
    it(`"${key}" at the top of every body`, async () => {
      for (const route of routes) await refuses(post(route, `{${JSON.stringify(key)}:1}`), 400, unknownName(key));
    });
  }

  it('inside a nested message, named with its path', async () => {
    await refuses(
      post(`${P}/global/instanceTemplates`, '{"name":"t","properties":{"machineType":"e2-small","constructor":{}}}'),
      400,
      unknownName('constructor', " at 'resource.properties'"),
    );
  });

  it('as a map key it is an ordinary key, judged like any other', async () => {
    const message =
      "Invalid value for field 'resource.properties.labels.key': '__proto__'. Label key '__proto__' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed.";
    await refuses(
      post(`${P}/global/instanceTemplates`, '{"name":"t","properties":{"machineType":"e2-small","labels":{"__proto__":"x"}}}'),
      400,
      envelope(400, 'invalid', message),
    );
  });
});

describe('prototype-named path segments are unknown locations', () => {
  const get = (target: string): string => `GET ${target} HTTP/1.1\r\nHost: x\r\n${AUTH}Connection: close\r\n\r\n`;
  for (const region of ['constructor', '__proto__', 'toString']) {
    it(`region ${region}`, async () => {
      await refuses(
        get(`${P}/regions/${region}/instanceTemplates`),
        400,
        envelope(400, 'invalid', `Invalid value for field 'region': '${region}'. Unknown region.`),
      );
    });
    it(`zone ${region}-a`, async () => {
      await refuses(get(`${P}/zones/${region}-a/operations`), 400, envelope(400, 'invalid', `Invalid value for field 'zone': '${region}-a'. Unknown zone.`));
    });
  }
});

describe('nesting beyond 100 levels is refused while parsing (issue 13, case 4)', () => {
  const tooDeep = (key: string): unknown =>
    envelope(400, 'invalid', `Invalid JSON payload received. Message too deep. Max recursion depth reached for key '${key}'`, 'INVALID_ARGUMENT');

  it('200k `[` in a field that would be rejected anyway', async () => {
    await refuses(post(`${P}/global/instanceTemplates`, `{"name":"t","description":${'['.repeat(200_000)}`), 400, tooDeep(''));
  });
  it('a 10k-deep priority names the member', async () => {
    await refuses(post(`${P}/global/securityPolicies/pol/addRule`, `${'{"priority":'.repeat(10_000)}1${'}'.repeat(10_000)}`), 400, tooDeep('priority'));
  });
  it('a 100k-deep top-level array', async () => {
    await refuses(post(`${P}/global/securityPolicies/pol/addRule`, `${'['.repeat(100_000)}${']'.repeat(100_000)}`), 400, tooDeep(''));
  });
  it('100 levels are still read (and judged on their content)', async () => {
    const body = `{"name":"t","description":${'['.repeat(99)}${']'.repeat(99)}}`;
    await refuses(
      post(`${P}/global/instanceTemplates`, body),
      400,
      envelope(400, 'invalid', `Invalid value at 'resource.description' (TYPE_STRING), ${'['.repeat(99)}${']'.repeat(99)}`, 'INVALID_ARGUMENT'),
    );
  });
});

describe('invalid UTF-8 is refused, not replaced (issue 13, case 6)', () => {
  it('points at the first bad byte', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"t","description":"caf'), Buffer.from([0xc3]), Buffer.from('"}')]);
    const message = `Invalid JSON payload received. Encountered non UTF-8 code points.\n{"name":"t","description":"caf\uFFFD"}\n${' '.repeat(30)}^`;
    await refuses(post(`${P}/global/instanceTemplates`, body), 400, envelope(400, 'invalid', message, 'INVALID_ARGUMENT'));
  });
});

describe("answers given before any handler are compute's (issue 13, case 5)", () => {
  const get = (target: string, extra = ''): string => `GET ${target} HTTP/1.1\r\nHost: x\r\n${AUTH}${extra}Connection: close\r\n\r\n`;

  it('a malformed percent-escape, without echoing the URL', async () => {
    await refuses(get(`${P}/global/instanceTemplates/%zz`), 400, envelope(400, 'badRequest', MALFORMED));
  });
  it('a request line Node cannot parse', async () => {
    await refuses(`FOO ${P}/global/instanceTemplates HTTP/1.1\r\nHost: x\r\n\r\n`, 400, envelope(400, 'badRequest', MALFORMED));
  });
  it('oversized headers', async () => {
    await refuses(
      get(`${P}/global/instanceTemplates`, `X-Big: ${'a'.repeat(20_000)}\r\n`),
      413,
      envelope(413, 'badRequest', 'Your client issued a request that was too large.'),
    );
  });
  it('an oversized URL', async () => {
    await refuses(get(`${P}/global/instanceTemplates/${'a'.repeat(20_000)}`), 414, envelope(414, 'badRequest', 'The requested URL is too large to process.'));
  });
  it('a path segment over 100 characters reaches the handler', async () => {
    const name = 'a'.repeat(300);
    await refuses(
      get(`${P}/global/instanceTemplates/${name}`),
      404,
      envelope(404, 'notFound', `The resource 'projects/p/global/instanceTemplates/${name}' was not found`),
    );
  });
  it('an unknown path without the /compute/v1 prefix', async () => {
    await refuses(get('/no/such/path?x=1'), 404, envelope(404, 'notFound', 'The requested URL /no/such/path was not found on this server.'));
  });
});

describe('a body left unframed (issue 13, case 6)', () => {
  for (const method of ['DELETE', 'GET']) {
    it(`${method}: the request does not run; the client gets one 400`, async () => {
      const bytes = `${method} ${P}/global/instanceTemplates/kept HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\n\r\n{"requestId":"x"}`;
      const before = await server.store.currentRevision();
      const reply = await sendRaw(server.port, bytes, 200);
      assert.equal(reply.status, 400);
      assert.deepEqual(JSON.parse(reply.body), envelope(400, 'badRequest', MALFORMED));
      assert.equal(reply.raw.match(/^HTTP\/1\.1 /gm)?.length, 1, reply.raw);
      assert.equal(await server.store.currentRevision(), before);
      const kept = await server.app.inject({ method: 'GET', url: `${P}/global/instanceTemplates/kept`, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(kept.statusCode, 200);
    });
  }
});
