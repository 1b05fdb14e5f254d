import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema, Edition, FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { PluginError, PluginProtocolError } from './errors.ts';
import type { GeneratedFile, Plugin, PluginFeatures } from './plugin.ts';
import { runPlugin } from './run-plugin.ts';

function plugin(files: () => readonly GeneratedFile[], features: PluginFeatures = { proto3Optional: true }): Plugin {
  return { name: 'protoc-gen-test', version: '1', features, generate: files };
}

function request(files: FileDescriptorProto[], parameter = ''): Uint8Array {
  return toBinary(CodeGeneratorRequestSchema, create(CodeGeneratorRequestSchema, { fileToGenerate: files.map((f) => f.name), protoFile: files, parameter }));
}

function respond(p: Plugin, files: FileDescriptorProto[]) {
  return fromBinary(CodeGeneratorResponseSchema, runPlugin(p, request(files)));
}

const proto3 = create(FileDescriptorProtoSchema, { name: 'a.proto', syntax: 'proto3' });
const optional = create(FileDescriptorProtoSchema, {
  name: 'opt.proto',
  syntax: 'proto3',
  messageType: [{ name: 'M', field: [{ name: 'x', number: 1, proto3Optional: true }] }],
});
const edition2024 = create(FileDescriptorProtoSchema, { name: 'e.proto', syntax: 'editions', edition: Edition.EDITION_2024 });

test('files come back in order; features and the edition window are always declared', () => {
  const r = respond(
    plugin(() => [{ name: 'a.ts', content: 'x' }, { content: 'more' }, { name: 'a.ts', insertionPoint: 'p', content: 'y' }], {
      proto3Optional: true,
      editions: { minimum: Edition.EDITION_PROTO2, maximum: Edition.EDITION_2023 },
    }),
    [proto3],
  );
  assert.equal(r.error, '');
  assert.deepEqual(
    r.file.map((f) => [f.name, f.insertionPoint, f.content]),
    [
      ['a.ts', '', 'x'],
      ['', '', 'more'],
      ['a.ts', 'p', 'y'],
    ],
  );
  assert.equal(r.supportedFeatures, 3n);
  assert.equal(r.minimumEdition, 998);
  assert.equal(r.maximumEdition, 1000);
});

test('a PluginError becomes response.error with no files, and features are still set', () => {
  const r = respond(
    plugin(() => {
      throw new PluginError('x.proto: something is wrong');
    }),
    [proto3],
  );
  assert.equal(r.error, 'x.proto: something is wrong');
  assert.equal(r.file.length, 0);
  assert.equal(r.supportedFeatures, 1n);
});

test('file names are checked before they are emitted', () => {
  assert.equal(
    respond(
      plugin(() => [{ name: '../x', content: '' }]),
      [proto3],
    ).error,
    'invalid generated file name "../x": the name must not have ".." components',
  );
  assert.equal(
    respond(
      plugin(() => [{ insertionPoint: 'p', content: '' }]),
      [proto3],
    ).error,
    'insertion point "p" needs a file name',
  );
});

test('files the generator does not really handle are refused in response.error', () => {
  const noOptional = plugin(() => [], { proto3Optional: false });
  assert.equal(respond(noOptional, [optional]).error, 'opt.proto: proto3 optional fields are not supported by protoc-gen-test');
  assert.equal(respond(noOptional, [edition2024]).error, 'e.proto: editions files are not supported by protoc-gen-test');
  const upTo2023 = plugin(() => [], { proto3Optional: true, editions: { minimum: Edition.EDITION_2023, maximum: Edition.EDITION_2023 } });
  assert.equal(respond(upTo2023, [edition2024]).error, 'e.proto: unsupported edition 2024 - the latest supported edition is 2023');
  const from2024 = plugin(() => [], { proto3Optional: true, editions: { minimum: Edition.EDITION_2024, maximum: Edition.EDITION_2024 } });
  const e2023 = create(FileDescriptorProtoSchema, { name: 'f.proto', syntax: 'editions', edition: Edition.EDITION_2023 });
  assert.equal(respond(from2024, [e2023]).error, 'f.proto: unsupported edition 2023 - the earliest supported edition is 2024');
});

test('broken requests are protocol errors, and generator bugs are not hidden in response.error', () => {
  const p = plugin(() => []);
  assert.throws(() => runPlugin(p, new Uint8Array([0x0a, 0x05, 0x61])), new PluginProtocolError('protoc sent unparseable request to plugin.'));
  const missing = toBinary(CodeGeneratorRequestSchema, create(CodeGeneratorRequestSchema, { fileToGenerate: ['x.proto'] }));
  assert.throws(
    () => runPlugin(p, missing),
    new PluginProtocolError('protoc asked plugin to generate a file but did not provide a descriptor for the file: x.proto'),
  );
  const buggy = plugin(() => {
    throw new TypeError('oops');
  });
  assert.throws(() => runPlugin(buggy, request([proto3])), new TypeError('oops'));
});

test('source_file_descriptors is skipped only for plugins that say they do not need it', () => {
  const bytes = toBinary(
    CodeGeneratorRequestSchema,
    create(CodeGeneratorRequestSchema, { fileToGenerate: ['a.proto'], protoFile: [proto3], sourceFileDescriptors: [proto3], parameter: 'p' }),
  );
  const seen: number[] = [];
  const base: Plugin = {
    name: 'protoc-gen-test',
    version: '1',
    features: { proto3Optional: true },
    generate: (input) => {
      seen.push(input.request.sourceFileDescriptors.length);
      return [{ name: 'x', content: input.parameter }];
    },
  };
  runPlugin(base, bytes);
  const skipping = { ...base, needsSourceFileDescriptors: false };
  const r = fromBinary(CodeGeneratorResponseSchema, runPlugin(skipping, bytes));
  assert.deepEqual(seen, [1, 0]);
  assert.equal(r.file[0]?.content, 'p');
});
