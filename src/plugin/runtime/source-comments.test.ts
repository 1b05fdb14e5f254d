import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, FileDescriptorProtoSchema, SourceCodeInfoSchema } from '@bufbuild/protobuf/wkt';
import { commentsFromDescriptor, decodeSourceComments, splitRequest } from './source-comments.ts';

const info = create(SourceCodeInfoSchema, {
  location: [
    { path: [], span: [0, 0, 40, 1] },
    { path: [4, 0], span: [3, 0, 9, 1], leadingComments: ' A thing.\n' },
    { path: [4, 0, 2, 1], span: [5, 2, 20], trailingComments: ' its id ✓\n', leadingDetachedComments: [' detached\n'] },
    { path: [4, 0, 2, 2], span: [6, 2, 20] },
    { path: [4, 300, 2, 70000], span: [7, 2, 20], leadingComments: ' big numbers\n', trailingComments: ' and after\n' },
  ],
});
const file = create(FileDescriptorProtoSchema, { name: 'a/b.proto', package: 'a', messageType: [{ name: 'Thing' }], sourceCodeInfo: info });

test('decodeSourceComments reads the commented locations from the wire as the decoded message has them', () => {
  const fromWire = decodeSourceComments(toBinary(SourceCodeInfoSchema, info));
  assert.deepEqual([...fromWire], [...commentsFromDescriptor(file)]);
  assert.deepEqual(
    [...fromWire],
    [
      ['4,0', { leading: ' A thing.\n', trailing: '' }],
      ['4,0,2,1', { leading: '', trailing: ' its id ✓\n' }],
      ['4,300,2,70000', { leading: ' big numbers\n', trailing: ' and after\n' }],
    ],
  );
});

test('decodeSourceComments rejects truncated bytes', () => {
  const bytes = toBinary(SourceCodeInfoSchema, info);
  assert.throws(() => decodeSourceComments(bytes.subarray(0, bytes.length - 3)), RangeError);
});

test('splitRequest drops the named fields and sets source_code_info aside, leaving the rest to decode unchanged', () => {
  const request = create(CodeGeneratorRequestSchema, {
    fileToGenerate: ['a/b.proto'],
    parameter: 'x=1',
    protoFile: [file, create(FileDescriptorProtoSchema, { name: 'c.proto' })],
    sourceFileDescriptors: [file],
  });
  const split = splitRequest(toBinary(CodeGeneratorRequestSchema, request), new Set([17]), true);
  const decoded = fromBinary(CodeGeneratorRequestSchema, split.bytes);
  assert.deepEqual(decoded.sourceFileDescriptors, []);
  assert.equal(decoded.protoFile[0]?.sourceCodeInfo, undefined);
  assert.equal(decoded.protoFile[0]?.messageType[0]?.name, 'Thing');
  assert.equal(decoded.protoFile[1]?.name, 'c.proto');
  assert.deepEqual([...split.sourceInfo.keys()], ['a/b.proto']);
  assert.deepEqual(decodeSourceComments(split.sourceInfo.get('a/b.proto')!), commentsFromDescriptor(file));
  // Without anything to drop or set aside the bytes are passed through as they are.
  const whole = toBinary(CodeGeneratorRequestSchema, request);
  assert.equal(splitRequest(whole, new Set(), false).bytes, whole);
});
