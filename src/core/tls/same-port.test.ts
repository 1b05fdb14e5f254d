import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type CertificateAndKey, issueCa, issueClient, issueServing } from './certificates.ts';
import { clientCertificateOf } from './client-certificate.ts';
import { serveTlsOnSamePort } from './same-port.ts';

const settings = (serial: number) => ({ now: Date.now(), serial: new Uint8Array(16).fill(serial) });

/** exchange writes `chunks` on a raw connection (a pause between them) and returns everything read until the server closes it. */
async function exchange(port: number, chunks: readonly string[]): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (data: Buffer) => (text += data.toString()));
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  for (const chunk of chunks) {
    socket.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  await closed;
  return text;
}

/** get sends one HTTPS GET trusting `ca`, with the client certificate given, and returns status and body. */
function get(port: number, ca: string, client?: CertificateAndKey): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpsRequest(
      { host: '127.0.0.1', port, path: '/who', ca, ...(client === undefined ? {} : { cert: client.certificate, key: client.key }), agent: false },
      (response) => {
        let body = '';
        response.on('data', (data: Buffer) => (body += data.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      },
    )
      .on('error', reject)
      .end();
  });
}

describe('same-port: HTTPS and plain HTTP on one listening port', () => {
  let ca: CertificateAndKey;
  let foreignCa: CertificateAndKey;
  let serving: CertificateAndKey;
  let server: Server;
  let port: number;
  let optionsAsked = 0;

  before(async () => {
    ca = await issueCa(settings(1));
    foreignCa = await issueCa(settings(2), { commonName: 'someone-else' });
    serving = await issueServing(ca, ['127.0.0.1', 'localhost'], settings(3));
    server = createServer((request, response) => {
      let body = 0;
      request.on('data', (data: Buffer) => (body += data.length));
      request.on('end', () => {
        const tls = (request.socket as { encrypted?: boolean }).encrypted === true;
        response.end(`${request.method} ${request.url} ${body} ${tls ? 'https' : 'http'} ${JSON.stringify(clientCertificateOf(request.socket))}\n`);
      });
    });
    serveTlsOnSamePort(server, async () => {
      optionsAsked++;
      return { cert: serving.certificate, key: serving.key, ca: ca.certificate };
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
  });

  it('answers plain HTTP as Node would: a body split across packets, pipelined requests', async () => {
    const text = await exchange(port, [
      'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234',
      '56789GET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]);
    const bodies = text.split('\r\n').filter((line) => /^(GET|POST) /.test(line));
    assert.deepEqual(bodies, [
      'POST /a 10 http {"kind":"none"}\nHTTP/1.1 200 OK',
      'GET /b 0 http {"kind":"none"}\nHTTP/1.1 200 OK',
      'GET /c 0 http {"kind":"none"}\n',
    ]);
  });

  it('makes no TLS server until a client speaks TLS', async () => {
    await exchange(port, ['GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    assert.equal(optionsAsked, 0);
  });

  it('answers HTTPS on the same port with the serving certificate, to the same handler', async () => {
    assert.deepEqual(await get(port, ca.certificate), { status: 200, body: 'GET /who 0 https {"kind":"none"}\n' });
    assert.equal(optionsAsked, 1);
    // And plain HTTP still, after.
    assert.match(await exchange(port, ['GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']), /GET \/after 0 http /);
  });

  it('reads a client certificate signed by the CA as CN = user, O = groups', async () => {
    const alice = await issueClient(ca, { commonName: 'alice', organizations: ['devs', 'qa'] }, settings(4));
    const { body } = await get(port, ca.certificate, alice);
    const read = JSON.parse(body.split(' ').slice(4).join(' ')) as { kind: string; name: string; groups: string[]; credentialId: string };
    assert.equal(read.kind, 'user');
    assert.equal(read.name, 'alice');
    assert.deepEqual(read.groups, ['devs', 'qa']);
    assert.match(read.credentialId, /^X509SHA256=[0-9a-f]{64}$/);
  });

  it('takes a foreign client certificate without refusing the connection, and says it is invalid', async () => {
    const mallory = await issueClient(foreignCa, { commonName: 'mallory', organizations: ['system:masters'] }, settings(5));
    const { status, body } = await get(port, ca.certificate, mallory);
    assert.equal(status, 200);
    assert.match(body, /^GET \/who 0 https \{"kind":"invalid","reason":"UNABLE_TO_VERIFY_LEAF_SIGNATURE"\}\n$/);
  });

  it('refuses a serving certificate used as a client certificate (not for client authentication)', async () => {
    const { body } = await get(port, ca.certificate, serving);
    assert.match(body, /"kind":"invalid","reason":"INVALID_PURPOSE"/);
  });

  it('survives connections that close before or within their first bytes', async () => {
    for (const first of ['', '\x16', 'G']) {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      if (first !== '') socket.write(first);
      socket.destroy();
    }
    assert.match(await exchange(port, ['GET /still HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']), /GET \/still 0 http /);
  });
});
