import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { readResponse } from './response-reader.ts';

test('content stays raw bytes, even invalid UTF-8; fields with an unexpected wire type are skipped', () => {
  const file = new BinaryWriter()
    .tag(1, WireType.LengthDelimited)
    .string('f.txt')
    .tag(15, WireType.LengthDelimited)
    .bytes(new Uint8Array([0x61, 0xff, 0x0a]))
    .finish();
  const bytes = new BinaryWriter()
    .tag(1, WireType.Varint)
    .int32(7)
    .tag(2, WireType.Varint)
    .uint64(3)
    .tag(15, WireType.LengthDelimited)
    .bytes(file)
    .tag(99, WireType.LengthDelimited)
    .string('unknown')
    .finish();
  const r = readResponse(bytes);
  assert.equal(r.error, '');
  assert.equal(r.supportedFeatures, 3n);
  assert.equal(r.files.length, 1);
  assert.equal(r.files[0]?.name, 'f.txt');
  assert.deepEqual([...(r.files[0]?.content ?? [])], [0x61, 0xff, 0x0a]);
});

test('malformed bytes throw', () => {
  assert.throws(() => readResponse(new Uint8Array([0xff, 0x01])));
  assert.throws(() => readResponse(new Uint8Array([0x0a, 0x05, 0x61])));
  assert.deepEqual(readResponse(new Uint8Array(0)).files, []);
});
