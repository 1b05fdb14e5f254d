// The request fogbank's plugin host hands a plugin, against what real protoc 36.2, protoc 3.21.0
// and buf generate 1.75 hand it: a capture plugin saves its stdin under each, and the top-level
// fields, their order, compiler_version (byte for byte) and the file lists must be the same.
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { CodeGeneratorRequestSchema } from '@bufbuild/protobuf/wkt';
import { runProtocCommand } from '../../src/plugin/protoc-command.ts';
import { clientPath } from '../harness/clients.ts';
import { descriptorSet, FIXTURE_PROTOS, PROTOC, run, tempDir } from '../harness/protos.ts';

/** writeCapturePlugin writes a plugin that saves its request to `<dir>/request.bin` and answers an empty response supporting proto3 optional. */
function writeCapturePlugin(dir: string): string {
  const script = join(dir, 'protoc-gen-cap');
  writeFileSync(
    script,
    `#!/usr/bin/env node
const fs = require('fs');
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  fs.writeFileSync(${JSON.stringify(join(dir, 'request.bin'))}, Buffer.concat(chunks));
  fs.writeSync(1, Buffer.from([0x10, 0x01]));
});
`,
  );
  chmodSync(script, 0o755);
  return script;
}

interface RequestShape {
  /** The top-level field numbers in wire order, runs of one field folded (`15` once for every proto_file). */
  readonly fields: readonly number[];
  /** compiler_version's encoded Version message, as hex, or undefined when the field is absent. */
  readonly compilerVersion: string | undefined;
  readonly fileToGenerate: readonly string[];
  readonly parameter: string | undefined;
  readonly protoFiles: readonly string[];
  readonly sourceFiles: readonly string[];
}

/** shapeOf reads what a request carries, straight from its bytes (a decoder would hide the order and presence). */
function shapeOf(bytes: Uint8Array): RequestShape {
  const reader = new BinaryReader(bytes);
  const fields: number[] = [];
  let compilerVersion: string | undefined;
  while (reader.pos < reader.len) {
    const [number, wireType] = reader.tag();
    if (fields.at(-1) !== number) fields.push(number);
    if (number === 3 && wireType === WireType.LengthDelimited) compilerVersion = Buffer.from(reader.bytes()).toString('hex');
    else reader.skip(wireType);
  }
  const request = fromBinary(CodeGeneratorRequestSchema, bytes);
  return {
    fields,
    compilerVersion,
    fileToGenerate: request.fileToGenerate,
    parameter: request.parameter,
    protoFiles: request.protoFile.map((file) => file.name),
    sourceFiles: request.sourceFileDescriptors.map((file) => file.name),
  };
}

/** VERSION_7_36_2 is `Version{major: 7, minor: 36, patch: 2, suffix: ""}` as protoc 36.2 encodes it. */
const VERSION_7_36_2 = '0807102418022200';

const FILES = ['parity/plain.proto', 'parity/optional.proto'];
const schema = descriptorSet(FILES, tempDir('request-parity-schema'));

/** fogbankRequest runs `fogbank protoc` with the capture plugin and extra flags, and returns what the plugin read. */
async function fogbankRequest(flags: readonly string[], parameter = ''): Promise<{ code: number; stderr: string; shape: RequestShape | undefined }> {
  const dir = tempDir('request-parity-fogbank');
  const plugin = writeCapturePlugin(dir);
  mkdirSync(join(dir, 'out'));
  const stderr: string[] = [];
  const code = await runProtocCommand(
    [`--descriptor_set_in=${schema}`, `--plugin=protoc-gen-cap=${plugin}`, `--cap_out=${parameter === '' ? '' : `${parameter}:`}out`, ...flags, ...FILES],
    {
      cwd: dir,
      stderr: (text) => void stderr.push(text),
      stdout: (text) => void stderr.push(text),
      builtins: {},
    },
  );
  let shape: RequestShape | undefined;
  try {
    shape = shapeOf(readFileSync(join(dir, 'request.bin')));
  } catch {
    shape = undefined;
  }
  return { code, stderr: stderr.join(''), shape };
}

/** protocRequest runs a real protoc with the capture plugin and returns what the plugin read. */
function protocRequest(protoc: string, parameter: string): RequestShape {
  const dir = tempDir('request-parity-protoc');
  const plugin = writeCapturePlugin(dir);
  mkdirSync(join(dir, 'out'));
  const real = run(
    protoc,
    [`-I${FIXTURE_PROTOS}`, `--plugin=protoc-gen-cap=${plugin}`, `--cap_out=${parameter === '' ? '' : `${parameter}:`}out`, ...FILES],
    dir,
  );
  assert.equal(real.status, 0, real.stderr);
  return shapeOf(readFileSync(join(dir, 'request.bin')));
}

/** bufRequest runs real `buf generate` with the capture plugin (opt when a parameter is given) and returns what the plugin read. */
function bufRequest(parameter: string): RequestShape {
  const dir = tempDir('request-parity-buf');
  const plugin = writeCapturePlugin(dir);
  cpSync(join(FIXTURE_PROTOS, 'parity'), join(dir, 'protos', 'parity'), { recursive: true });
  writeFileSync(join(dir, 'buf.yaml'), 'version: v2\nmodules:\n  - path: protos\n');
  writeFileSync(join(dir, 'buf.gen.yaml'), `version: v2\nplugins:\n  - local: ${plugin}\n    out: out\n${parameter === '' ? '' : `    opt: ${parameter}\n`}`);
  const real = run(clientPath('buf'), ['generate', '--template', 'buf.gen.yaml', ...FILES.flatMap((file) => ['--path', `protos/${file}`])], dir);
  assert.equal(real.status, 0, real.stderr);
  return shapeOf(readFileSync(join(dir, 'request.bin')));
}

describe('the request a plugin reads matches the real compiler', () => {
  for (const parameter of ['', 'a=b,c']) {
    const label = parameter === '' ? 'without a parameter' : 'with a parameter';
    test(`protoc 36.2 and the default mode: compiler_version {7, 36, 2, ""} between parameter and proto_file, ${label}`, async () => {
      const real = protocRequest(PROTOC.newest, parameter);
      assert.equal(real.compilerVersion, VERSION_7_36_2);
      assert.deepEqual(real.fields, parameter === '' ? [1, 3, 15, 17] : [1, 2, 3, 15, 17]);
      const ours = await fogbankRequest([], parameter);
      assert.equal(ours.code, 0, ours.stderr);
      assert.deepEqual(ours.shape, real);
    });

    test(`protoc 3.21.0 and --compat=protoc-legacy: compiler_version {3, 21, 0, ""}, no source_file_descriptors, ${label}`, async () => {
      const real = protocRequest(PROTOC.oldest, parameter);
      assert.deepEqual(real.fields, parameter === '' ? [1, 3, 15] : [1, 2, 3, 15]);
      const ours = await fogbankRequest(['--compat=protoc-legacy'], parameter);
      assert.equal(ours.code, 0, ours.stderr);
      assert.deepEqual(ours.shape, real);
    });

    test(`buf generate 1.75 and --compat=buf: no compiler_version at all, ${label}`, async () => {
      const real = bufRequest(parameter);
      assert.equal(real.compilerVersion, undefined);
      assert.deepEqual(real.fields, parameter === '' ? [1, 15, 17] : [1, 2, 15, 17]);
      const ours = await fogbankRequest(['--compat=buf'], parameter);
      assert.equal(ours.code, 0, ours.stderr);
      // buf lists the files of its module by path, fogbank in command-line order as protoc does
      // (the order is not what this test is about): the lists are compared as sets.
      const sorted = (shape: RequestShape | undefined) =>
        shape && {
          ...shape,
          fileToGenerate: [...shape.fileToGenerate].sort(),
          protoFiles: [...shape.protoFiles].sort(),
          sourceFiles: [...shape.sourceFiles].sort(),
        };
      assert.deepEqual(sorted(ours.shape), sorted(real));
    });
  }
});

describe('--compiler_version overrides what the mode sends', () => {
  test('a release with a suffix is sent as major, minor, patch and the suffix without its dash', async () => {
    const ours = await fogbankRequest(['--compiler_version=3.21.12-rc2']);
    assert.equal(ours.code, 0, ours.stderr);
    // Version{3, 21, 12, "rc2"}
    assert.equal(ours.shape?.compilerVersion, '08031015180c2203726332');
    assert.deepEqual(ours.shape?.fields, [1, 3, 15, 17]);
  });

  test('a release without a suffix still sets suffix to ""', async () => {
    const ours = await fogbankRequest(['--compiler_version=7.36.2']);
    assert.equal(ours.shape?.compilerVersion, VERSION_7_36_2);
  });

  test('none sends no compiler_version, and buf mode sends one when asked', async () => {
    assert.equal((await fogbankRequest(['--compiler_version=none'])).shape?.compilerVersion, undefined);
    assert.equal((await fogbankRequest(['--compat=buf', '--compiler_version=7.36.2'])).shape?.compilerVersion, VERSION_7_36_2);
  });

  test('a value that is no version is refused before any plugin runs', async () => {
    const ours = await fogbankRequest(['--compiler_version=v7']);
    assert.deepEqual(ours, { code: 1, stderr: 'Invalid --compiler_version value: v7 (expected MAJOR.MINOR.PATCH[-SUFFIX] or none)\n', shape: undefined });
  });
});
