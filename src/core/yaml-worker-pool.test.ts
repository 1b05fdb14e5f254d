import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadYamlBodyParser } from './yaml-body.ts';
import { YamlAliasingError, YamlBusyError, YamlDecodeLimitError, YamlTooDeepError } from './yaml-errors.ts';
import { YamlWorkerPool } from './yaml-worker-pool.ts';

/** bigMapping is a block mapping of `keys` plain scalars: YAML that is not JSON, about 22 bytes a key. */
const bigMapping = (keys: number): string => Array.from({ length: keys }, (_, i) => `key${i}: value-${i}`).join('\n') + '\n';

/** laughs is a billion-laughs body: nine levels of nine aliases each. */
function laughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(',')}]`,
    );
  return lines.join('\n');
}

/** outcome is what parsing gave: the value, or the error's type (core's refusals are typed; the library's errors are their name and message), message and line. */
async function outcome(parse: () => unknown): Promise<unknown> {
  try {
    return { value: await parse() };
  } catch (error) {
    const { name, message } = error as Error;
    const typed = error instanceof YamlTooDeepError ? 'too deep' : error instanceof YamlAliasingError ? 'aliasing' : undefined;
    return { typed, name, message, line: error instanceof YamlTooDeepError ? error.line : undefined };
  }
}

describe('YAML worker pool: the same answers as the inline parser', () => {
  let inline: (text: string) => unknown;
  const pool = new YamlWorkerPool({ workers: 1 });
  before(async () => {
    inline = await loadYamlBodyParser();
  });
  after(() => pool.close());

  const bodies: Record<string, string> = {
    'an unclosed run of 20000 [': '['.repeat(20000),
    'a flow mapping bomb': `${'{a: '.repeat(5000)}1${'}'.repeat(5000)}`,
    'a block sequence bomb after a long comment': `# ${'x'.repeat(10_000)}\n${'- '.repeat(5000)}x`,
    'indentation 150 deep': `${Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')} 1`,
    'an alias nesting itself': 'a: &a [*a]',
    'a billion laughs': laughs(),
    'text that is not YAML': 'a: [1\nb: }',
    'a mapping of 2000 keys': bigMapping(2000),
    'shared aliases, .inf, .nan, -0 and a __proto__ key': 'a: &x {k: [1, 2]}\nb: *x\nc: .inf\nd: .nan\ne: -0\n__proto__: {polluted: true}\n',
    'JSON text too deep': `{"a":${'['.repeat(150)}`,
  };
  for (const [what, text] of Object.entries(bodies)) {
    it(`answers ${what} exactly as inline`, async () => {
      const expected = await outcome(() => inline(text));
      assert.deepEqual(await outcome(() => pool.parse(text)), expected);
    });
  }

  it('keeps aliases shared, and a __proto__ key an own property, as inline', async () => {
    const value = (await pool.parse('a: &x {k: 1}\nb: *x\n__proto__: {polluted: true}\n')) as Record<string, unknown>;
    assert.equal(value['a'], value['b']);
    assert.deepEqual(Object.keys(value), ['a', 'b', '__proto__']);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('refuses the depth bomb with its line and the alias bomb with its type', async () => {
    await assert.rejects(
      pool.parse(`# ${'x'.repeat(10_000)}\n${'['.repeat(20000)}`),
      (error: unknown) => error instanceof YamlTooDeepError && error.line === 2,
    );
    await assert.rejects(pool.parse(laughs()), YamlAliasingError);
  });
});

describe('YAML worker pool: bounded', () => {
  it('ends a thread past the deadline with YamlDecodeLimitError, and decodes the next body on a fresh one', async () => {
    const pool = new YamlWorkerPool({ workers: 1 });
    try {
      await assert.rejects(pool.parse(bigMapping(40_000), 1), (error: unknown) => {
        assert.ok(error instanceof YamlDecodeLimitError);
        assert.equal(error.message, "decoding took longer than 1ms, fogbank's limit for a YAML body (JSON bodies have none)");
        return true;
      });
      assert.equal(pool.threadCount, 0, 'the thread past its deadline is gone');
      assert.deepEqual(await pool.parse('a: 1\nb: [x]\n'), { a: 1, b: ['x'] });
      assert.equal(pool.threadCount, 1);
    } finally {
      await pool.close();
    }
  });

  it('queues bodies up to the limit behind a busy thread and refuses the rest with YamlBusyError', async () => {
    const pool = new YamlWorkerPool({ workers: 1, queueLimit: 1 });
    try {
      const first = pool.parse(bigMapping(3000));
      const second = pool.parse('queued: true');
      await assert.rejects(pool.parse('refused: true'), (error: unknown) => error instanceof YamlBusyError && error.why === 'queue-full');
      assert.equal(Object.keys((await first) as object).length, 3000);
      assert.deepEqual(await second, { queued: true });
      assert.equal(pool.threadCount, 1, 'one thread served them all');
    } finally {
      await pool.close();
    }
  });

  it('runs two bodies at once on two threads', async () => {
    const pool = new YamlWorkerPool({ workers: 2, queueLimit: 0 });
    try {
      const both = [pool.parse(bigMapping(3000)), pool.parse(bigMapping(3001))];
      assert.equal(pool.threadCount, 2);
      assert.deepEqual(
        (await Promise.all(both)).map((value) => Object.keys(value as object).length),
        [3000, 3001],
      );
    } finally {
      await pool.close();
    }
  });

  it('on close answers what was in flight or queued with YamlBusyError, ends every thread, and refuses later bodies', async () => {
    const pool = new YamlWorkerPool({ workers: 1 });
    const answers = Promise.allSettled([pool.parse(bigMapping(40_000)), pool.parse('a: 1')]);
    await pool.close();
    const refusals = [...(await answers), ...(await Promise.allSettled([pool.parse('a: 1')]))];
    for (const refused of refusals) assert.ok(refused.status === 'rejected' && refused.reason instanceof YamlBusyError && refused.reason.why === 'closing');
    assert.equal(pool.threadCount, 0);
  });

  it('ends a thread that stays idle, and starts one again when a body comes', async () => {
    const pool = new YamlWorkerPool({ workers: 1, idleMs: 1 });
    try {
      assert.deepEqual(await pool.parse('a: 1'), { a: 1 });
      while (pool.threadCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(await pool.parse('b: 2'), { b: 2 });
    } finally {
      await pool.close();
    }
  });
});
