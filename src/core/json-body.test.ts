import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { locateJsonError, MalformedJsonError, pointAtJsonError } from './json-body.ts';

describe('locateJsonError', () => {
  const cases: [string, number | undefined][] = [
    ['{"a": 1} x', 9],
    ["{'a': 1}", 1],
    ['{"a": tt}', 7],
    ['[1, 2,, 3]', 6],
    ['{"a": ', undefined],
    ['"unterminated', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`finds the first bad character of ${JSON.stringify(text)}`, () => {
      assert.equal(locateJsonError(text), expected);
    });
  }
});

describe('pointAtJsonError', () => {
  it('shows the offending line and a caret under the spot', () => {
    const body = '{\n  "a": tt\n}';
    assert.equal(pointAtJsonError(new MalformedJsonError('bad', body, 10)), '  "a": tt\n        ^');
  });
  it('keeps long lines to a window around the spot', () => {
    const body = `{"a": "${'x'.repeat(200)}" y}`;
    const shown = pointAtJsonError(new MalformedJsonError('bad', body, body.length - 2));
    const [line, caret] = shown.split('\n');
    assert.ok(line!.length <= 80);
    assert.equal(line![caret!.length - 1], 'y');
  });
});
