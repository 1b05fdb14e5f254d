import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH } from './json-body.ts';
import { loadYamlBodyParser, nestsDeeperThan, yamlBodies } from './yaml-body.ts';
import { YamlAliasingError, YamlBusyError, YamlTooDeepError } from './yaml-errors.ts';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** seqOfMaps nests a mapping in an indentless sequence in a mapping…, `levels` collections deep. */
function seqOfMaps(levels: number): string {
  const lines: string[] = [];
  let indent = '';
  for (let level = 0; level < levels; level += 2) {
    lines.push(`${indent}k${level}:`, `${indent}- `);
    indent += '  ';
  }
  return `${lines.join('\n')}x`;
}

describe('YAML body parser: nesting bounded before parsing', () => {
  let parse: (text: string) => unknown;
  before(async () => {
    parse = await loadYamlBodyParser();
  });

  const refused = (text: string): YamlTooDeepError => {
    try {
      parse(text);
    } catch (error) {
      assert.ok(error instanceof YamlTooDeepError, `expected YamlTooDeepError, got ${String(error)}`);
      return error;
    }
    assert.fail('the body was accepted');
  };

  it('accepts flow and block nesting up to the limit, as JSON bodies are', () => {
    assert.equal(MAX_JSON_DEPTH, 100);
    assert.equal(JSON.stringify(parse(nested(100))), nested(100));
    assert.equal(JSON.stringify(parse(`${'- '.repeat(100)}x`)), `${'['.repeat(100)}"x"${']'.repeat(100)}`);
  });

  it('refuses an unclosed run of 20000 [ at its 101st, again and again, without touching the stack', () => {
    for (let round = 0; round < 5; round++) assert.equal(refused('['.repeat(20000)).line, 1);
  });

  it('refuses flow mappings, block sequences, explicit keys and indentation nested past the limit', () => {
    assert.equal(refused(nested(101)).line, 1);
    assert.equal(refused(`${'{a: '.repeat(101)}1${'}'.repeat(101)}`).line, 1);
    assert.equal(refused(`${'- '.repeat(101)}x`).line, 1);
    assert.equal(refused(`${'? '.repeat(101)}x`).line, 1);
    const indented = Array.from({ length: 101 }, (_, i) => `${' '.repeat(i)}a:`).join('\n');
    assert.equal(refused(`${indented} 1`).line, 101);
  });

  it('measures the parsed value too: mappings and indentless sequences sharing indentation', () => {
    assert.equal(refused(seqOfMaps(120)).line, undefined);
    assert.doesNotThrow(() => parse(seqOfMaps(100)));
  });

  it('does not count brackets inside quoted scalars, block scalars, plain scalars or comments', () => {
    const many = '['.repeat(500);
    assert.deepEqual(parse(`a: "${many}"\nb: '${'{'.repeat(500)}'`), { a: many, b: '{'.repeat(500) });
    assert.deepEqual(parse(`a: |\n  ${many}\n  "x\nb: [1]`), { a: `${many}\n"x\n`, b: [1] });
    assert.deepEqual(parse(`# ${many}\na: x${many}`), { a: `x${many}` });
  });

  it('is not fooled by a quote inside a continued plain scalar hiding real nesting', () => {
    assert.equal(refused(`a: b\n  "c\nd: ${nested(150)}\ne: "`).line, 3);
  });

  it('caps alias expansion (billion laughs) and refuses aliases that nest a value past the limit', () => {
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++)
      laughs.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    assert.throws(() => parse(laughs.join('\n')), YamlAliasingError);
    assert.equal(refused('a: &a [*a]').line, undefined, 'an alias inside its own anchor is a cycle');
  });

  it('leaves ordinary documents alone', () => {
    assert.deepEqual(parse('apiVersion: v1\nkind: ClusterRole\nmetadata:\n  name: x\nrules:\n- verbs: ["get"]\n  resources: [pods]\n'), {
      apiVersion: 'v1',
      kind: 'ClusterRole',
      metadata: { name: 'x' },
      rules: [{ verbs: ['get'], resources: ['pods'] }],
    });
  });
});

describe('nestsDeeperThan', () => {
  it('walks shared subtrees once per depth and sees cycles as too deep', () => {
    let shared: unknown = [];
    for (let i = 0; i < 50; i++) shared = [shared, shared];
    assert.equal(nestsDeeperThan(shared, 51), false);
    assert.equal(nestsDeeperThan(shared, 50), true);
    const cycle: unknown[] = [];
    cycle.push(cycle);
    assert.equal(nestsDeeperThan(cycle, 100), true);
  });
});

describe('YAML body parser: JSON text', () => {
  it('reads a YAML body that is JSON text (what kubectl sends to apply) to the same value the YAML parser gives', async () => {
    const parse = await loadYamlBodyParser();
    const items = Array.from({ length: 30000 }, (_, i) => ({ name: `x${i}`, v: [1, 2.5, null, true, 'é\u2028'] }));
    const text = JSON.stringify({ apiVersion: 'v1', items });
    assert.deepEqual(parse(text), { apiVersion: 'v1', items });
    assert.deepEqual(parse(' [1, {"a": "b"}]\n'), [1, { a: 'b' }]);
    assert.deepEqual(parse('{a: b}'), { a: 'b' }, 'flow YAML that is not JSON still parses as YAML');
    assert.throws(() => parse(`{"a":${'['.repeat(150)}`), YamlTooDeepError);
  });
});

describe('YAML body parser: repeated keys', () => {
  it('keeps the last value of a repeated mapping key, as go-yaml v2 decodes it', async () => {
    const parse = await loadYamlBodyParser();
    assert.deepEqual(parse('a: 1\nb: 2\na: 3\n'), { a: 3, b: 2 });
  });
});

describe('yamlBodies: long YAML off the event loop', () => {
  it('parses short bodies, long YAML and long JSON text to the values the inline parser gives, and refuses bodies after close', async () => {
    const inline = await loadYamlBodyParser();
    const bodies = yamlBodies({ inlineLimit: 64 });
    const long = `${Array.from({ length: 500 }, (_, i) => `k${i}: [v${i}, {n: ${i}}]`).join('\n')}\n`;
    const json = JSON.stringify({ items: Array.from({ length: 500 }, (_, i) => ({ n: i })) });
    try {
      for (const text of ['a: 1', long, json]) assert.deepEqual(await bodies.parse(text), inline(text));
      await assert.rejects(bodies.parse(`${'- '.repeat(101)}x`), YamlTooDeepError);
    } finally {
      await bodies.close();
    }
    await assert.rejects(bodies.parse(long), YamlBusyError);
    assert.deepEqual(await bodies.parse('still: short'), { still: 'short' }, 'short bodies need no thread');
  });
});
