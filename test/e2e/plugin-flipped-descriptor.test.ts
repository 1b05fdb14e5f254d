// Issue 13 item 9: a CodeGeneratorRequest whose descriptor.proto (or http.proto, or the schema
// itself) has a byte flipped must end as every broken conversation does — one line on stderr,
// exit 1 — or, when the flip still leaves a valid schema, as a normal response; never with a
// stack trace from the descriptor registry. Seeded and reproducible; FOGBANK_FLIP_CASES raises the count.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { clone, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponseSchema,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { fogbankPlugin } from '../../src/plugin/generators/index.ts';
import { buildRequest, orderProtoFiles } from '../../src/plugin/host/index.ts';
import { runNodePlugin } from '../../src/plugin/runtime/index.ts';
import { seededRandom } from '../../src/testing/seeded-random.ts';
import { descriptorSet, FIXTURE_PROTOS, fogbankPluginExecutable, REPO, run, tempDir } from '../harness/protos.ts';

const work = tempDir('flipped');
after(() => rmSync(work, { recursive: true, force: true }));
// google/api/{annotations,http}.proto as google-gax ships them, so the test needs nothing beside the repo.
const GOOGLE_API_PROTOS = join(REPO, 'node_modules/google-gax/build/protos');
const TARGET = 'corpus/library.proto';
const files = fromBinary(FileDescriptorSetSchema, readFileSync(descriptorSet([TARGET], work, [FIXTURE_PROTOS, GOOGLE_API_PROTOS]))).file;
const CASES = Number(process.env['FOGBANK_FLIP_CASES'] ?? 300);

// The request as the host builds it for the intact schema (dependencies first).
const ordered = fromBinary(CodeGeneratorRequestSchema, buildRequest(orderProtoFiles({ files, filesToGenerate: [TARGET] }), [TARGET], '', true));

/** requestWith is that request with some descriptors replaced in place, as a broken host could send it. */
function requestWith(replaced: ReadonlyMap<string, FileDescriptorProto>): Uint8Array {
  const request = clone(CodeGeneratorRequestSchema, ordered);
  request.protoFile = request.protoFile.map((file) => replaced.get(file.name) ?? file);
  return toBinary(CodeGeneratorRequestSchema, request);
}

async function runInProcess(request: Uint8Array): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
  let stderr = '';
  const out: Uint8Array[] = [];
  const code = await runNodePlugin(fogbankPlugin, {
    argv: [],
    stdin: (async function* () {
      yield request;
    })(),
    stdout: {
      write: (chunk, cb) => {
        out.push(chunk);
        cb();
        return true;
      },
    },
    stderr: { write: (text) => (stderr += text) },
  });
  return { code, stdout: Buffer.concat(out), stderr };
}

describe('byte-flipped descriptors inside a CodeGeneratorRequest', () => {
  for (const [name, seed] of [
    ['google/protobuf/descriptor.proto', 13],
    ['google/api/http.proto', 14],
    ['google/api/annotations.proto', 15],
    [TARGET, 16],
  ] as const) {
    it(`${name}: ${CASES} seeded flips end in a response or one stderr line with exit 1`, async () => {
      const original = toBinary(FileDescriptorProtoSchema, files.find((file) => file.name === name)!);
      const random = seededRandom(seed);
      const outcomes = { response: 0, refused: 0, unparseable: 0 };
      for (let n = 0; n < CASES; n++) {
        const bytes = original.slice();
        const at = Math.floor(random() * bytes.length);
        bytes[at] = bytes[at]! ^ (1 + Math.floor(random() * 255));
        let flipped: FileDescriptorProto;
        try {
          flipped = fromBinary(FileDescriptorProtoSchema, bytes);
        } catch {
          outcomes.unparseable++;
          continue; // protoc could not have sent it: its bytes are no FileDescriptorProto
        }
        const result = await runInProcess(requestWith(new Map([[name, flipped]])));
        const where = `flip ${n} (byte ${at})`;
        if (result.code === 0) {
          assert.equal(result.stderr, '', where);
          fromBinary(CodeGeneratorResponseSchema, result.stdout);
          outcomes.response++;
        } else {
          assert.equal(result.code, 1, where);
          assert.match(result.stderr, /^protoc-gen-fogbank: [^\n]+\n$/, `${where}: ${result.stderr}`);
          assert.doesNotMatch(result.stderr, /\bat .+:\d+:\d+|Error:/, `${where}: ${result.stderr}`);
          assert.equal(result.stdout.length, 0, where);
          outcomes.refused++;
        }
      }
      assert.equal(outcomes.response + outcomes.refused + outcomes.unparseable, CASES);
    });
  }

  it('a descriptor.proto type reference that resolves to nothing: the exact line and exit 1 from the plugin process', () => {
    const descriptor = clone(FileDescriptorProtoSchema, files.find((file) => file.name === 'google/protobuf/descriptor.proto')!);
    const field = descriptor.messageType.find((m) => m.name === 'FileDescriptorProto')!.field.find((f) => f.name === 'options')!;
    field.typeName = '.google.protobuf.FileOptionz';
    const result = run(fogbankPluginExecutable(work), [], work, requestWith(new Map([[descriptor.name, descriptor]])));
    assert.equal(
      result.stderr,
      'protoc-gen-fogbank: protoc sent an invalid descriptor to plugin: invalid FieldDescriptorProto: type_name .google.protobuf.FileOptionz not found\n',
    );
    assert.equal(result.status, 1);
    assert.equal(result.stdout.length, 0);
  });

  it('a line break a flip puts in a name is escaped, keeping the message on one line', async () => {
    const descriptor = clone(FileDescriptorProtoSchema, files.find((file) => file.name === 'google/protobuf/descriptor.proto')!);
    descriptor.messageType.find((m) => m.name === 'FileOptions')!.field.find((f) => f.name === 'java_package')!.name = 'java\npackage';
    const result = await runInProcess(requestWith(new Map([[descriptor.name, descriptor]])));
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      'protoc-gen-fogbank: protoc sent an invalid descriptor to plugin: google/protobuf/descriptor.proto: invalid field name "java\\npackage"\n',
    );
  });
});
