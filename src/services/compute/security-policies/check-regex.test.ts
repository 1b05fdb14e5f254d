import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRegex } from './check-regex.ts';

describe('checkRegex', () => {
  const rows: [string, string | undefined][] = [
    ['^/api/.*$', undefined],
    ['(?:^/?$)|(?:^/privacy$)', undefined],
    ['(?i)^/admin', undefined],
    ['[(]literal[)]', undefined],
    ['\\(escaped\\)', undefined],
    ['[]a]', undefined],
    ['(?:^/v2/.+/(:?blobs|manifests)/.+$)', 'Invalid regular expression: (?:^/v2/.+/(:?blobs|manifests)/.+$), Capture Groups are not allowed.'],
    ['(?P<name>x)', 'Invalid regular expression: (?P<name>x), Capture Groups are not allowed.'],
    ['(?<name>x)', 'Invalid regular expression: (?<name>x), Capture Groups are not allowed.'],
    ['a(?!b)', 'Invalid regular expression: a(?!b), invalid or unsupported Perl syntax: (?!.'],
    ['(?<=a)b', 'Invalid regular expression: (?<=a)b, invalid or unsupported Perl syntax: (?<=.'],
    ['(?:a)\\1', 'Invalid regular expression: (?:a)\\1, invalid escape sequence: \\1.'],
    ['a**', 'Invalid regular expression: a**, nothing to repeat.'],
    ['(?:a', 'Invalid regular expression: (?:a, unterminated group.'],
  ];
  for (const [pattern, expected] of rows) {
    it(pattern, () => assert.equal(checkRegex(pattern), expected));
  }
});
