import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bufInsert, protocInsert } from './insert-content.ts';

const b = (s: string) => Buffer.from(s);
const protoc = (target: string, point: string, content: string) => protocInsert(b(target), point, b(content))?.file.toString();

test('protoc: content goes above the marker line with its indent on every line, blank ones included', () => {
  assert.equal(protoc('a\n  // @@protoc_insertion_point(p)\n', 'p', 'x\n\ny'), 'a\n  x\n  \n  y\n  // @@protoc_insertion_point(p)\n');
  assert.equal(protoc('\t# @@protoc_insertion_point(p)', 'p', 'x\r\ny\r\n'), '\tx\r\n\ty\r\n\t# @@protoc_insertion_point(p)');
});

test('protoc: the inline /* */ form inserts mid-line; /*@@ does not', () => {
  assert.equal(protoc('  foo(/* @@protoc_insertion_point(p) */);\n', 'p', 'INS'), '  foo(INS\n/* @@protoc_insertion_point(p) */);\n');
  assert.equal(protoc('  foo(/*@@protoc_insertion_point(p)*/);\n', 'p', 'INS'), '  INS\n  foo(/*@@protoc_insertion_point(p)*/);\n');
});

test('protoc: the first marker wins, pp is not p, and a missing marker is reported', () => {
  assert.equal(
    protoc('@@protoc_insertion_point(pp)\n@@protoc_insertion_point(p)\n@@protoc_insertion_point(p)\n', 'p', 'X'),
    '@@protoc_insertion_point(pp)\nX\n@@protoc_insertion_point(p)\n@@protoc_insertion_point(p)\n',
  );
  assert.equal(protocInsert(b('nothing here\n'), 'p', b('x')), undefined);
  assert.deepEqual(protocInsert(b('  @@protoc_insertion_point(p)'), 'p', b('')), {
    file: b('  @@protoc_insertion_point(p)'),
    offset: 0,
    indent: 2,
    data: b(''),
  });
});

test('buf: before every marker line, Unicode indent, CRLF folded and the final newline dropped', () => {
  const out = bufInsert(b('a\r\n\u00a0// @@protoc_insertion_point(p)\nb\n// @@protoc_insertion_point(p)\n'), 'p', b('x\r\ny\n'));
  assert.equal(out?.toString(), 'a\n\u00a0x\n\u00a0y\n\u00a0// @@protoc_insertion_point(p)\nb\nx\ny\n// @@protoc_insertion_point(p)');
  assert.equal(bufInsert(b('  foo(/* @@protoc_insertion_point(p) */);\n'), 'p', b('INS'))?.toString(), '  INS\n  foo(/* @@protoc_insertion_point(p) */);');
  assert.equal(bufInsert(b('x\n'), 'p', b('y')), undefined);
});
