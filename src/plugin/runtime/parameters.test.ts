import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PluginParameterError } from './errors.ts';
import { parseParameters } from './parameters.ts';

const SPECS = {
  mode: { values: ['a', 'b'], default: 'a' },
  flag: { values: ['true', 'false'], default: 'false', bare: 'true' },
} as const;

test('defaults fill keys that were not given, bare flags take their bare value', () => {
  assert.deepEqual(parseParameters('', SPECS), { mode: 'a', flag: 'false' });
  assert.deepEqual(parseParameters('flag,,mode=b', SPECS), { mode: 'b', flag: 'true' });
});

test('unknown keys, repeated keys, bad values and bare non-flags are errors with exact texts', () => {
  const cases: [string, string][] = [
    ['nope=1', 'invalid parameter "nope=1": unknown parameter; known parameters are flag, mode'],
    ['mode=a,mode=b', 'invalid parameter "mode=b": "mode" is given more than once'],
    ['mode=c', 'invalid parameter "mode=c": expected one of a, b'],
    ['mode', 'invalid parameter "mode": expected mode=<value>, one of a, b'],
    ['toString', 'invalid parameter "toString": unknown parameter; known parameters are flag, mode'],
  ];
  for (const [raw, message] of cases) {
    assert.throws(
      () => parseParameters(raw, SPECS),
      (err: unknown) => {
        assert.ok(err instanceof PluginParameterError);
        assert.equal(err.message, message);
        return true;
      },
    );
  }
});
