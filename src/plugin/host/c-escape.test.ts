import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cEscape } from './c-escape.ts';

test('cEscape uses C escapes for the usual characters and octal for other bytes', () => {
  assert.equal(cEscape(new Uint8Array([0xff, 0x01])), '\\377\\001');
  assert.equal(cEscape(Buffer.from('a\n\r\t"\'\\\x7f~')), 'a\\n\\r\\t\\"\\\'\\\\\\177~');
});
