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
    ['(?<=a)b', 'Invalid regular expression: (?<=a)b, invalid named capture: (?<=a)b.'],
    ['(?:a)\\1', 'Invalid regular expression: (?:a)\\1, invalid escape sequence: \\1.'],
    ['a**', 'Invalid regular expression: a**, invalid nested repetition operator: **.'],
    ['(?:a', 'Invalid regular expression: (?:a, missing closing ): (?:a.'],
    // RE2 syntax JavaScript lacks, accepted...
    ['\\A/admin\\z', undefined],
    ['[[:alpha:]]+', undefined],
    ['\\pL+', undefined],
    ['(?U)a+', undefined],
    ['(?i:ADMIN)', undefined],
    ['\\Q.*\\E', undefined],
    // ...and JavaScript syntax RE2 lacks, refused in RE2's words.
    ['\\cA', 'Invalid regular expression: \\cA, invalid escape sequence: \\c.'],
    ['a{2,1}', 'Invalid regular expression: a{2,1}, invalid repeat count: {2,1}.'],
    ['a{1001}', 'Invalid regular expression: a{1001}, invalid repeat count: {1001}.'],
    ['[z-a]', 'Invalid regular expression: [z-a], invalid character class range: z-a.'],
    ['[a', 'Invalid regular expression: [a, missing closing ]: [a.'],
    ['a)', 'Invalid regular expression: a), unexpected ): a).'],
    ['x\\', 'Invalid regular expression: x\\, trailing backslash at end of expression.'],
    ['(.|.)*Q', 'Invalid regular expression: (.|.)*Q, Capture Groups are not allowed.'],
  ];
  for (const [pattern, expected] of rows) {
    it(pattern, () => assert.equal(checkRegex(pattern), expected));
  }
});
