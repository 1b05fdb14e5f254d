// Broken input gets the protocol's error form and writes nothing: a truncated or garbage request
// (stderr, exit 1), bad parameters and bad schemas (response.error, exit 0), and responses naming
// files outside the output directory (host error, nothing written anywhere).
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { runProtocCommand } from '../../src/plugin/protoc-command.ts';
import { buildRequest, orderProtoFiles } from '../../src/plugin/host/index.ts';
import {
  descriptorSet,
  FIXTURE_PROTOS,
  fogbankPluginExecutable,
  PROTOC,
  PROTOC_INCLUDE,
  readTree,
  REPO,
  run,
  googleapisProtos,
  tempDir,
} from '../harness/protos.ts';

const work = tempDir('broken');
const plugin = fogbankPluginExecutable(work);
const BIN = join(REPO, 'bin/protoc-gen-fogbank.js');
const KNOWN = 'known parameters are comments, enum_hints, import_extension, rest_clients';
const setBytes = readFileSync(
  descriptorSet(['corpus/proto3.proto', 'broken/bad_template.proto', 'broken/bad_field.proto'], work, [FIXTURE_PROTOS, googleapisProtos()]),
);
const schemaFiles = fromBinary(FileDescriptorSetSchema, setBytes).file;

function request(files: string[], parameter = ''): Uint8Array {
  return buildRequest(orderProtoFiles({ files: schemaFiles, filesToGenerate: files }), files, parameter, true);
}

function decode(stdout: Buffer) {
  return fromBinary(CodeGeneratorResponseSchema, stdout);
}

test('a truncated request is reported on stderr with exit 1, by the bin and the source', () => {
  const bytes = request(['corpus/proto3.proto']);
  for (const exe of [plugin, BIN]) {
    const r = run(exe, [], work, bytes.subarray(0, bytes.length - 3));
    assert.equal(r.stderr, 'protoc-gen-fogbank: protoc sent unparseable request to plugin.\n');
    assert.equal(r.status, 1);
    assert.equal(r.stdout.length, 0);
  }
});

test('a garbage request is reported on stderr with exit 1', () => {
  const r = run(plugin, [], work, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x42]));
  assert.equal(r.stderr, 'protoc-gen-fogbank: protoc sent unparseable request to plugin.\n');
  assert.equal(r.status, 1);
  assert.equal(r.stdout.length, 0);
});

test('a request naming a file it does not describe is a protocol error', () => {
  const bytes = toBinary(CodeGeneratorRequestSchema, create(CodeGeneratorRequestSchema, { fileToGenerate: ['x.proto'] }));
  const r = run(plugin, [], work, bytes);
  assert.equal(r.stderr, 'protoc-gen-fogbank: protoc asked plugin to generate a file but did not provide a descriptor for the file: x.proto\n');
  assert.equal(r.status, 1);
});

test('arguments: --version prints the version, anything else is rejected', () => {
  const version = run(BIN, ['--version'], work);
  assert.equal(version.stdout.toString(), 'protoc-gen-fogbank 0.1.0\n');
  assert.equal(version.status, 0);
  const bogus = run(plugin, ['--bogus'], work);
  assert.equal(bogus.stderr, 'protoc-gen-fogbank: Unknown option: --bogus\n');
  assert.equal(bogus.status, 1);
});

test('an unknown or invalid parameter goes into response.error with exit 0 and no files', () => {
  const cases: [string, string][] = [
    ['bogus=1,rest_clients=false', `invalid parameter "bogus=1": unknown parameter; ${KNOWN}`],
    ['import_extension=cjs', 'invalid parameter "import_extension=cjs": expected one of js, ts, none'],
    ['comments=false,comments=true', 'invalid parameter "comments=true": "comments" is given more than once'],
    ['import_extension', 'invalid parameter "import_extension": expected import_extension=<value>, one of js, ts, none'],
  ];
  for (const [parameter, error] of cases) {
    const r = run(plugin, [], work, request(['corpus/proto3.proto'], parameter));
    assert.equal(r.status, 0, r.stderr);
    const response = decode(r.stdout);
    assert.equal(response.error, error);
    assert.equal(response.file.length, 0);
    assert.equal(response.supportedFeatures, 3n);
    assert.equal(response.minimumEdition, 998);
    assert.equal(response.maximumEdition, 1000);
  }
});

test('real protoc shows an unknown parameter as the generator error and writes nothing', () => {
  const out = join(work, 'param-out');
  mkdirSync(out);
  const r = run(
    PROTOC.newest,
    [
      `-I${FIXTURE_PROTOS}`,
      `-I${PROTOC_INCLUDE}`,
      `--plugin=protoc-gen-fogbank=${plugin}`,
      `--fogbank_out=${out}`,
      '--fogbank_opt=bogus=1',
      'corpus/proto3.proto',
    ],
    work,
  );
  assert.equal(r.stderr, `--fogbank_out: invalid parameter "bogus=1": unknown parameter; ${KNOWN}\n`);
  assert.equal(r.status, 1);
  assert.deepEqual(readTree(out), {});
});

test('a google.api.http rule no client can follow is a schema error in response.error', () => {
  const template = run(plugin, [], work, request(['broken/bad_template.proto']));
  assert.equal(template.status, 0);
  assert.equal(decode(template.stdout).error, 'broken/bad_template.proto: fixtures.broken.Bad.Unclosed: path template "/v1/{name=shelves/*": unclosed "{"');
  const field = run(plugin, [], work, request(['broken/bad_field.proto']));
  assert.equal(field.status, 0);
  assert.equal(
    decode(field.stdout).error,
    'broken/bad_field.proto: fixtures.broken.field.Unknown.NoField: "shelf.name" in google.api.http /v1/{shelf.name} does not name a field of fixtures.broken.field.GetRequest',
  );
});

test('a response naming ../x is refused by the host in every mode and nothing is written', async () => {
  const response = toBinary(
    CodeGeneratorResponseSchema,
    create(CodeGeneratorResponseSchema, {
      supportedFeatures: 3n,
      file: [
        { name: 'ok.txt', content: 'ok' },
        { name: '../x', content: 'escaped' },
      ],
    }),
  );
  const replay = join(work, 'protoc-gen-escape');
  writeFileSync(join(work, 'escape.bin'), response);
  writeFileSync(
    replay,
    `#!/usr/bin/env node\nprocess.stdin.resume();\nprocess.stdin.on('end', () => require('fs').writeSync(1, require('fs').readFileSync(${JSON.stringify(join(work, 'escape.bin'))})));\n`,
  );
  chmodSync(replay, 0o755);
  const expected: Record<string, string> = {
    protoc: 'Output file names must never have a relative path. (../x). Use --unsafe_allow_out_dir_escape to disable this error if intentional.\n',
    'protoc-legacy': 'Output file names must never have a relative path. (../x). Use --unsafe_allow_out_dir_escape to disable this error if intentional.\n',
    // buf names a plugin by its path.
    buf: `Failure: plugin ${replay}: CodeGeneratorResponse: file: path "../x" should not jump context\n`,
  };
  for (const [compat, message] of Object.entries(expected)) {
    const root = tempDir(`escape-${compat}`);
    mkdirSync(join(root, 'out'));
    const stderr: string[] = [];
    const code = await runProtocCommand(
      [
        `--descriptor_set_in=${join(work, 'schema.pb')}`,
        `--compat=${compat}`,
        `--plugin=protoc-gen-escape=${replay}`,
        '--escape_out=out',
        'corpus/proto3.proto',
      ],
      { cwd: root, stderr: (t) => void stderr.push(t), stdout: (t) => void stderr.push(t) },
    );
    assert.equal(stderr.join(''), message, compat);
    assert.equal(code, 1);
    assert.deepEqual(readTree(root), {}, `${compat} wrote nothing`);
  }
});
