import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { BufferBudget } from './buffer-budget.ts';
import { readIntake } from './data-intake.ts';

const MB = 1024 * 1024;
/** roomy is a share of a budget that never runs out, for the tests about the stream's content. */
const roomy = () => new BufferBudget(Number.MAX_SAFE_INTEGER).open();

test('a 1 GiB body is read to its end and refused, keeping nothing past the limit', async () => {
  let peak = 0;
  const chunks = function* (): Generator<Buffer> {
    for (let sent = 0; sent < 1024 * MB; sent += MB) {
      // A fresh buffer each time: kept ones would pile up in arrayBuffers.
      yield Buffer.alloc(MB, 0x61);
      if (sent % (64 * MB) === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
  };
  const intake = await readIntake(Readable.from(chunks()), 35 * MB, roomy());
  assert.deepEqual(intake, { kind: 'too-large' });
  assert.ok(peak < 256 * MB, `array buffers peaked at ${Math.round(peak / MB)} MiB while reading 1 GiB`);
});

test('bare LF (also across chunks) and NUL are found; CRLF text is kept whole', async () => {
  const read = (...parts: string[]) => readIntake(Readable.from(parts.map((part) => Buffer.from(part))), MB, roomy());
  assert.deepEqual(await read('a\r\nb\r\n'), { kind: 'message', bytes: Buffer.from('a\r\nb\r\n') });
  assert.deepEqual(await read('a\r', '\nb\r\n'), { kind: 'message', bytes: Buffer.from('a\r\nb\r\n') });
  assert.deepEqual(await read('a\r\n', '\nb'), { kind: 'bare-lf' });
  assert.deepEqual(await read('a\nb'), { kind: 'bare-lf' });
  assert.deepEqual(await read('a\r\n\u0000'), { kind: 'nul' });
});

test('a stream destroyed before its end is cut off', async () => {
  const stream = new Readable({ read() {} });
  const intake = readIntake(stream, MB, roomy());
  stream.push(Buffer.from('part'));
  stream.destroy(new Error('gone'));
  assert.deepEqual(await intake, { kind: 'cut-off' });
});

test('every message in flight draws on one budget: one that finds no room is dropped and refused for now, giving back what it held', async () => {
  const budget = new BufferBudget(10 * MB);
  const chunks = (count: number) => Readable.from(Array.from({ length: count }, () => Buffer.alloc(MB, 0x61)));
  const first = budget.open();
  const kept = await readIntake(chunks(6), 35 * MB, first);
  assert.equal(kept.kind, 'message');
  assert.equal(budget.inUse, 6 * MB, 'a read message holds its bytes until it is released');
  const second = budget.open();
  assert.deepEqual(await readIntake(chunks(5), 35 * MB, second), { kind: 'no-room' });
  assert.equal(budget.inUse, 6 * MB, 'the refused message gave back the 4 MiB it held before it ran out');
  // Past SIZE is too large whatever room there is, and holds nothing either.
  assert.deepEqual(await readIntake(chunks(12), 3 * MB, budget.open()), { kind: 'too-large' });
  assert.equal(budget.inUse, 6 * MB);
  first.release();
  first.release();
  assert.equal(budget.inUse, 0, 'released once, whatever the number of calls');
  const third = budget.open();
  assert.equal((await readIntake(chunks(10), 35 * MB, third)).kind, 'message', 'with the room back, a message of the whole budget fits');
  third.release();
  assert.equal(budget.free, 10 * MB);
});
