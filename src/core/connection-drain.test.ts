import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { ConnectionDrain } from './connection-drain.ts';

test('drain ends a connection that never sent a request at once, and a busy one right after its answer', async () => {
  let pending: ServerResponse | undefined;
  const server = createServer((_request, response) => {
    pending = response;
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('streaming');
  });
  const drain = new ConnectionDrain(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const open = async (): Promise<Socket> => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return socket;
  };
  const spare = await open();
  const busy = await open();
  busy.write('GET /watch HTTP/1.1\r\nHost: x\r\n\r\n');
  await once(busy, 'data');
  const events: string[] = [];
  spare.on('close', () => events.push('spare closed'));
  busy.on('close', () => events.push('busy closed'));

  drain.drain();
  await once(spare, 'close');
  assert.deepEqual(events, ['spare closed'], 'the connection with an answer in progress stays open');
  pending!.end();
  await once(busy, 'close');
  assert.deepEqual(events, ['spare closed', 'busy closed']);
  server.close();
  await once(server, 'close');
});

test('an answer given before the body ended keeps its connection until the client has sent the rest', async () => {
  let bodyEnded = false;
  const server = createServer((request, response) => {
    request.on('end', () => (bodyEnded = true));
    request.resume();
    response.writeHead(413, { 'content-type': 'text/plain', connection: 'keep-alive' });
    response.end('too large');
  });
  const closes: boolean[] = [];
  server.on('connection', (socket: Socket) => socket.once('close', () => closes.push(bodyEnded)));
  const drain = new ConnectionDrain(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n');
  socket.write(Buffer.alloc(100_000, 0x61));
  await once(socket, 'data');
  drain.drain();
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.write(Buffer.alloc(100_000, 0x61));
  await once(socket, 'close');
  assert.deepEqual(closes, [true], 'the server closed the connection only once the whole body had arrived');
  server.close();
  await once(server, 'close');
});
