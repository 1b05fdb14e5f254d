import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { readIntake } from './data-intake.ts';

const MB = 1024 * 1024;

test('a 1 GiB body is read to its end and refused, keeping nothing past the limit', async () => {
  let peak = 0;
  const chunks = function* (): Generator<Buffer> {
    for (let sent = 0; sent < 1024 * MB; sent += MB) {
      // A fresh buffer each time: kept ones would pile up in arrayBuffers.
      yield Buffer.alloc(MB, 0x61);
      if (sent % (64 * MB) === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
  };
  const intake = await readIntake(Readable.from(chunks()), 35 * MB);
  assert.deepEqual(intake, { kind: 'too-large' });
  assert.ok(peak < 256 * MB, `array buffers peaked at ${Math.round(peak / MB)} MiB while reading 1 GiB`);
});

test('bare LF (also across chunks) and NUL are found; CRLF text is kept whole', async () => {
  const read = (...parts: string[]) => readIntake(Readable.from(parts.map((part) => Buffer.from(part))), MB);
  assert.deepEqual(await read('a\r\nb\r\n'), { kind: 'message', bytes: Buffer.from('a\r\nb\r\n') });
  assert.deepEqual(await read('a\r', '\nb\r\n'), { kind: 'message', bytes: Buffer.from('a\r\nb\r\n') });
  assert.deepEqual(await read('a\r\n', '\nb'), { kind: 'bare-lf' });
  assert.deepEqual(await read('a\nb'), { kind: 'bare-lf' });
  assert.deepEqual(await read('a\r\n\u0000'), { kind: 'nul' });
});

test('a stream destroyed before its end is cut off', async () => {
  const stream = new Readable({ read() {} });
  const intake = readIntake(stream, MB);
  stream.push(Buffer.from('part'));
  stream.destroy(new Error('gone'));
  assert.deepEqual(await intake, { kind: 'cut-off' });
});
