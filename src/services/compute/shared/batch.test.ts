import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFogbank, type RunningFogbank } from '../../../../test/harness/server.ts';

const BOUNDARY = '===============7330845974216740156==';

function part(id: number, method: string, path: string, body?: unknown): string {
  const head = [`--${BOUNDARY}`, 'Content-Type: application/http', 'MIME-Version: 1.0', 'Content-Transfer-Encoding: binary', `Content-ID: <b29c5de2-0db4-490b-b421-6a51b598bd22+${id}>`, ''];
  const request = [`${method} ${path} HTTP/1.1`, ...(body === undefined ? [] : ['Content-Type: application/json']), '', body === undefined ? '' : JSON.stringify(body)];
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
      const json = JSON.parse(text.slice(text.indexOf('\r\n\r\n', text.indexOf('HTTP/1.1')) + 4)) as Record<string, any>;
      return { id: /Content-ID: (\S+)/.exec(outer)![1], status, json };
    });
    assert.deepEqual(answers.map((a) => a.id), [1, 2, 3].map((n) => `<response-b29c5de2-0db4-490b-b421-6a51b598bd22+${n}>`));
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 404]);
    assert.equal(answers[0]!.json['status'], 'DONE');
    assert.equal(answers[1]!.json['name'], 'b1');
    assert.equal(answers[2]!.json['error'].message, "The resource 'projects/p/global/instanceTemplates/missing' was not found");
  });

  it('rejects a body that is not multipart/mixed, or has no parts, or a malformed part', async () => {
    const cases: [string, string, string][] = [
      ['{}', 'application/json', 'Batch requests must be multipart/mixed with a boundary.'],
      [`--${BOUNDARY}--`, `multipart/mixed; boundary="${BOUNDARY}"`, 'The batch request contains no parts.'],
      [`--${BOUNDARY}\nContent-Type: text/plain\n\nhello\n--${BOUNDARY}--`, `multipart/mixed; boundary="${BOUNDARY}"`, 'Each batch part must have Content-Type: application/http.'],
      [`--${BOUNDARY}\nContent-Type: application/http\n\nnot a request line\n--${BOUNDARY}--`, `multipart/mixed; boundary="${BOUNDARY}"`, "Malformed request line in batch part: 'not a request line'."],
    ];
    for (const [body, contentType, message] of cases) {
      const response = await batch(body, contentType);
      assert.equal(response.statusCode, 400, message);
      assert.equal(response.json().error.message, message);
    }
  });

  it('needs a credential like any compute call', async () => {
    const response = await server.app.inject({ method: 'POST', url: '/batch/compute/v1', headers: { 'content-type': `multipart/mixed; boundary=${BOUNDARY}` }, payload: `--${BOUNDARY}--` });
    assert.equal(response.statusCode, 401);
  });
});
