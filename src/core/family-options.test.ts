import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FamilyOption, OptionError, optionValue, pickOptionValues } from './family-options.ts';

const LIMIT: FamilyOption<number> = {
  key: 'limit',
  flag: 'limit',
  value: 'N',
  default: '10',
  help: 'how many',
  parse(text) {
    if (!/^\d+$/.test(text)) throw new OptionError(`--limit must be a number, not '${text}'`);
    return Number(text);
  },
  accepts: (value): value is number => Number.isSafeInteger(value),
};

describe('family options', () => {
  it('pick the declared options out of start() options and ignore the rest', () => {
    assert.deepEqual(pickOptionValues([LIMIT], { limit: 3, host: '127.0.0.1' }), { limit: 3 });
    assert.deepEqual(pickOptionValues([LIMIT], { limit: undefined }), {});
  });

  it('refuse a value of the wrong type with the key and the flag', () => {
    assert.throws(() => pickOptionValues([LIMIT], { limit: '3' }), { name: 'OptionError', message: 'limit (--limit) must be N, not "3"' });
  });

  it('read a value only when one of the right type was given', () => {
    assert.equal(optionValue(LIMIT, { limit: 7 }), 7);
    assert.equal(optionValue(LIMIT, {}), undefined);
    assert.equal(optionValue(LIMIT, undefined), undefined);
    assert.equal(optionValue(LIMIT, Object.create({ limit: 9 }) as Record<string, unknown>), undefined);
  });
});
