import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isMultiSegment, parsePathTemplate, TemplateError, variablePattern } from './path-template.ts';

test('templates split into literals and variables, nested field paths and verbs included', () => {
  assert.deepEqual(parsePathTemplate('/v1/{book.name=shelves/*/books/*}:move').parts, [
    '/v1/',
    { fieldPath: ['book', 'name'], segments: ['shelves', '*', 'books', '*'] },
    ':move',
  ]);
  assert.deepEqual(parsePathTemplate('/compute/v1/projects/{project}/global/instanceTemplates').parts, [
    '/compute/v1/projects/',
    { fieldPath: ['project'], segments: ['*'] },
    '/global/instanceTemplates',
  ]);
  assert.deepEqual(parsePathTemplate('/files/{path=**}').parts, ['/files/', { fieldPath: ['path'], segments: ['**'] }]);
});

test('patterns: a lone * takes any value (it is escaped whole), resource patterns are anchored', () => {
  assert.equal(variablePattern(['*']), '^.+$');
  assert.equal(variablePattern(['projects', '*', 'regions', '*']), '^projects/[^/]+/regions/[^/]+$');
  assert.equal(variablePattern(['a.b', '**']), '^a\\.b/.*$');
  assert.equal(isMultiSegment(['*']), false);
  assert.equal(isMultiSegment(['**']), true);
  assert.equal(isMultiSegment(['shelves', '*']), true);
});

test('malformed templates are TemplateErrors with the reason', () => {
  const cases: [string, string][] = [
    ['v1/x', 'path template "v1/x" must start with "/"'],
    ['/v1/{name', 'path template "/v1/{name": unclosed "{"'],
    ['/v1/{na-me}', 'path template "/v1/{na-me}": invalid field path "na-me"'],
    ['/v1/{name=a*b}', 'path template "/v1/{name=a*b}": invalid segment "a*b" in "{name=a*b}"'],
    ['/v1/*/x', 'path template "/v1/*/x": a wildcard outside a variable cannot be expanded by a client'],
    ['/v1/x}', 'path template "/v1/x}": unexpected "}"'],
  ];
  for (const [template, message] of cases) assert.throws(() => parsePathTemplate(template), new TemplateError(message));
});
