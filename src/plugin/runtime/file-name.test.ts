import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileNameProblem } from './file-name.ts';

test('relative slash-separated names without dot components are accepted', () => {
  for (const name of ['a.ts', 'a/b/c.ts', 'a..b.ts', '.hidden', 'a/.b']) assert.equal(fileNameProblem(name), undefined, name);
});

test('absolute, dotted, backslashed and empty names are refused with a reason', () => {
  const cases: [string, string][] = [
    ['', 'the name is empty'],
    ['/abs.ts', 'the name must be relative, not absolute'],
    ['../x', 'the name must not have ".." components'],
    ['a/./b', 'the name must not have "." components'],
    ['a//b', 'the name has an empty path component'],
    ['d\\e.ts', 'the name must use "/" as separator, not "\\"'],
    ['C:/x', 'the name must be relative, not a drive path'],
  ];
  for (const [name, reason] of cases) assert.equal(fileNameProblem(name), reason, name);
});
