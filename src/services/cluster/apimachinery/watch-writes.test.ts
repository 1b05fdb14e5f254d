import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WatchOutput, WatchWrites } from './watch-writes.ts';

/** A stream under test: the response, its output, and every Buffer written straight to its socket. */
interface Stream {
  readonly raw: ServerResponse;
  readonly output: WatchOutput;
  readonly socketWrites: Buffer[];
}

describe('coalesced watch writes', () => {
  let server: Server;
  let base: string;
  const writes = new WatchWrites();
  const waiting: ((stream: Stream) => void)[] = [];
  before(async () => {
    server = createServer((_request, raw) => {
      raw.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      raw.flushHeaders();
      const socketWrites: Buffer[] = [];
      const socket = raw.socket!;
      const write = socket.write.bind(socket) as (chunk: Buffer) => boolean;
      socket.write = ((chunk: Buffer) => {
        socketWrites.push(chunk);
        return write(chunk);
      }) as typeof socket.write;
      waiting.shift()!({ raw, output: new WatchOutput(raw, writes), socketWrites });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const open = async (): Promise<{ stream: Stream; body: Promise<string> }> => {
    const arrived = new Promise<Stream>((resolve) => waiting.push(resolve));
    const response = await fetch(base);
    const body = response.text();
    // Marked handled at once: a test that drops the connection awaits the rejection later.
    body.catch(() => undefined);
    return { stream: await arrived, body };
  };
  const line = (text: string): Buffer => Buffer.from(`${text}\n`);
  const nextFlush = async (): Promise<void> => {
    // A flush runs in the check phase after the turn that queued; paced ones wait a little longer.
    await new Promise((resolve) => setTimeout(resolve, 50));
  };

  it('sends the lines queued in one turn as one chunk per stream, the same Buffer for streams given the same lines', async () => {
    const first = await open();
    const second = await open();
    const third = await open();
    const a = line('{"n":1}');
    const b = line('{"n":2}');
    for (const { stream } of [first, second]) {
      stream.output.push(a);
      stream.output.push(b);
    }
    third.stream.output.push(b);
    await nextFlush();
    assert.equal(first.stream.socketWrites.length, 1);
    assert.equal(second.stream.socketWrites.length, 1);
    assert.equal(first.stream.socketWrites[0], second.stream.socketWrites[0], 'one Buffer for both');
    assert.equal(first.stream.socketWrites[0]!.toString(), `10\r\n{"n":1}\n{"n":2}\n\r\n`);
    assert.equal(third.stream.socketWrites[0]!.toString(), `8\r\n{"n":2}\n\r\n`);

    first.stream.output.push(line('{"n":3}'));
    first.stream.output.flush();
    for (const { stream } of [first, second, third]) stream.raw.end();
    assert.equal(await first.body, '{"n":1}\n{"n":2}\n{"n":3}\n');
    assert.equal(await second.body, '{"n":1}\n{"n":2}\n');
    assert.equal(await third.body, '{"n":2}\n');
  });

  it('drops what is queued for a stream whose client left', async () => {
    const gone = await open();
    gone.stream.raw.destroy();
    gone.stream.output.push(line('{"n":1}'));
    await nextFlush();
    assert.deepEqual(gone.stream.socketWrites, []);
    await assert.rejects(gone.body);
  });
});
