import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from '@bufbuild/protobuf/wkt';
import type { Plugin } from './plugin.ts';
import { runNodePlugin } from './run-node.ts';

const plugin: Plugin = {
  name: 'protoc-gen-test',
  version: '9.9.9',
  features: { proto3Optional: true },
  generate: (input) => [{ name: 'out.txt', content: `parameter=${input.parameter}` }],
};

async function drive(argv: string[], stdin: Uint8Array[]) {
  const out: Uint8Array[] = [];
  const err: string[] = [];
  const code = await runNodePlugin(plugin, {
    argv,
    stdin: (async function* () {
      yield* stdin;
    })(),
    stdout: {
      write: (chunk, cb) => {
        out.push(chunk);
        cb();
      },
    },
    stderr: { write: (text) => err.push(text) },
  });
  return { code, stdout: Buffer.concat(out), stderr: err.join('') };
}

test('a request read in chunks is answered on stdout with exit 0', async () => {
  const bytes = toBinary(CodeGeneratorRequestSchema, create(CodeGeneratorRequestSchema, { parameter: 'k=v' }));
  const r = await drive([], [bytes.subarray(0, 2), bytes.subarray(2)]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  assert.deepEqual(
    fromBinary(CodeGeneratorResponseSchema, r.stdout).file.map((f) => f.content),
    ['parameter=k=v'],
  );
});

test('unparseable input, unknown arguments and --version', async () => {
  assert.deepEqual(await drive([], [new Uint8Array([0xff])]), {
    code: 1,
    stdout: Buffer.alloc(0),
    stderr: 'protoc-gen-test: protoc sent unparseable request to plugin.\n',
  });
  assert.deepEqual(await drive(['x'], []), { code: 1, stdout: Buffer.alloc(0), stderr: 'protoc-gen-test: Unknown option: x\n' });
  const v = await drive(['--version'], []);
  assert.equal(v.stdout.toString(), 'protoc-gen-test 9.9.9\n');
  assert.equal(v.code, 0);
});
