import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../testing/fogbank.ts';

const BOUNDARY = '===============7330845974216740156==';

function part(id: number, method: string, path: string, body?: unknown): string {
  const head = [
    `--${BOUNDARY}`,
    'Content-Type: application/http',
    'MIME-Version: 1.0',
    'Content-Transfer-Encoding: binary',
    `Content-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22+${id}>`,
    '',
  ];
  const request = [
    `${method} ${path} HTTP/1.1`,
    ...(body === undefined ? [] : ['Content-Type: application/json']),
    '',
    body === undefined ? '' : JSON.stringify(body),
  ];
  return [...head, ...request].join('\n');
}

describe('compute batch requests', () => {
  let server: RunningFogbank;
  before(async () => {
    server = await startFogbank({ host: '127.0.0.1', port: 0, store: 'memory', operations: 'instant', adminToken: 'admin', logLevel: 'silent' });
  });
  after(() => server.close());

  const batch = (body: string, contentType = `multipart/mixed; boundary="${BOUNDARY}"`, token = 'admin') =>
    server.app.inject({ method: 'POST', url: '/batch/compute/v1', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload: body });

  it('runs each part through the API and answers part for part, matching Content-IDs', async () => {
    const body = [
      part(1, 'POST', '/compute/v1/projects/p/global/instanceTemplates?alt=json', { name: 'b1', properties: { machineType: 'e2-small' } }),
      part(2, 'GET', '/compute/v1/projects/p/global/instanceTemplates/b1?alt=json'),
      part(3, 'GET', '/compute/v1/projects/p/global/instanceTemplates/missing?alt=json'),
      `--${BOUNDARY}--`,
    ].join('\n');
    const response = await batch(body);
    assert.equal(response.statusCode, 200);
    const boundary = /boundary=(\S+)/.exec(String(response.headers['content-type']))![1]!;
    assert.match(String(response.headers['content-type']), /^multipart\/mixed; boundary=batch_[0-9a-f]{24}$/);
    const parts = response.body.split(`--${boundary}`).slice(1, -1);
    assert.equal(parts.length, 3);
    const answers = parts.map((text) => {
      const [outer, inner] = text.split('\r\n\r\n', 2) as [string, string];
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(inner)![1]);
      const json = JSON.parse(text.slice(text.indexOf('\r\n\r\n', text.indexOf('HTTP/1.1')) + 4)) as Record<string, unknown>;
      return { id: /Content-ID: (\S+)/.exec(outer)![1], status, json };
    });
    assert.deepEqual(
      answers.map((a) => a.id),
      [1, 2, 3].map((n) => `<response-b29c5de2-0db4-490b-b421-6a51b598bd22+${n}>`),
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 404],
    );
    assert.equal(answers[0]!.json['status'], 'DONE');
    assert.equal(answers[1]!.json['name'], 'b1');
    assert.equal((answers[2]!.json['error'] as { message: string }).message, "The resource 'projects/p/global/instanceTemplates/missing' was not found");
  });

  it('rejects a body that is not multipart/mixed, or has no parts', async () => {
    const cases: [string, string, string][] = [
      ['{}', 'application/json', 'Batch requests must be multipart/mixed with a boundary.'],
      [`--${BOUNDARY}--`, `multipart/mixed; boundary="${BOUNDARY}"`, 'The batch request contains no parts.'],
    ];
    for (const [body, contentType, message] of cases) {
      const response = await batch(body, contentType);
      assert.equal(response.statusCode, 400, message);
      assert.equal(response.json().error.message, message);
    }
  });

  /** answersOf splits a batch response into its parts' Content-IDs, statuses and JSON bodies. */
  const answersOf = (response: { headers: Record<string, unknown>; body: string }) => {
    const boundary = /boundary=(\S+)/.exec(String(response.headers['content-type']))![1]!;
    return response.body
      .split(`--${boundary}`)
      .slice(1, -1)
      .map((text) => {
        const [outer, inner] = text.split('\r\n\r\n', 2) as [string, string];
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(inner)![1]);
        const json = JSON.parse(text.slice(text.indexOf('\r\n\r\n', text.indexOf('HTTP/1.1')) + 4)) as Record<string, unknown>;
        return { id: /Content-ID: (\S+)/.exec(outer)?.[1], status, json };
      });
  };
  const envelope = (code: number, reason: string, message: string) => ({ error: { code, message, errors: [{ message, domain: 'global', reason }] } });
  const MALFORMED = envelope(400, 'badRequest', 'Your client has issued a malformed or illegal request.');
  const id = (n: number) => `<response-b29c5de2-0db4-490b-b421-6a51b598bd22+${n}>`;

  it('answers a part with an unknown method inside the batch, first or later, and runs the others', async () => {
    for (const order of [
      ['FOO', 'GET'],
      ['GET', 'FOO'],
    ]) {
      const body = [...order.map((method, index) => part(index + 1, method, '/compute/v1/projects/p/global/instanceTemplates')), `--${BOUNDARY}--`].join('\n');
      const response = await batch(body);
      assert.equal(response.statusCode, 200);
      const answers = answersOf(response);
      assert.deepEqual(
        answers.map((a) => a.id),
        [id(1), id(2)],
      );
      answers.forEach((answer, index) => {
        if (order[index] === 'FOO') assert.deepEqual({ status: answer.status, json: answer.json }, { status: 400, json: MALFORMED });
        else assert.deepEqual({ status: answer.status, kind: answer.json['kind'] }, { status: 200, kind: 'compute#instanceTemplateList' });
      });
    }
  });

  it('answers malformed parts and nested batches part by part', async () => {
    const body = [
      `--${BOUNDARY}\nContent-Type: text/plain\nContent-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22+1>\n\nhello`,
      `--${BOUNDARY}\nContent-Type: application/http\nContent-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22+2>\n\nnot a request line`,
      part(3, 'POST', '/batch/compute/v1'),
      part(4, 'GET', '/compute/v1/projects/p/global/instanceTemplates/%zz'),
      `--${BOUNDARY}--`,
    ].join('\n');
    const response = await batch(body);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(
      answersOf(response).map(({ id, status, json }) => ({ id, status, json })),
      [
        { id: id(1), status: 400, json: envelope(400, 'invalid', 'Each batch part must have Content-Type: application/http.') },
        { id: id(2), status: 400, json: MALFORMED },
        { id: id(3), status: 400, json: envelope(400, 'invalid', 'A batch request cannot contain another batch request.') },
        { id: id(4), status: 400, json: MALFORMED },
      ],
    );
  });

  it('needs a credential like any compute call', async () => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/batch/compute/v1',
      headers: { 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
      payload: `--${BOUNDARY}--`,
    });
    assert.equal(response.statusCode, 401);
  });
});
