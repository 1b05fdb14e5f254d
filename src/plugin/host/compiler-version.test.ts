import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { CompatMode } from './compat.ts';
import { parseCompilerVersion, type CompilerVersion } from './compiler-version.ts';
import { HostError } from './errors.ts';
import { runInMemory } from './in-memory.ts';

test('--compiler_version reads MAJOR.MINOR.PATCH, an optional suffix after a dash, or none', () => {
  assert.deepEqual(parseCompilerVersion('7.36.2'), { major: 7, minor: 36, patch: 2, suffix: '' });
  assert.deepEqual(parseCompilerVersion('3.21.12-rc2'), { major: 3, minor: 21, patch: 12, suffix: 'rc2' });
  assert.deepEqual(parseCompilerVersion('4.0.0-alpha-1'), { major: 4, minor: 0, patch: 0, suffix: 'alpha-1' });
  assert.equal(parseCompilerVersion('none'), undefined);
  for (const bad of ['', '7', '7.36', 'v7.36.2', '7.36.2-', '7.36.2 ', '-1.0.0', '1.2.3.4', '9999999999.0.0']) {
    assert.throws(() => parseCompilerVersion(bad), HostError, bad);
  }
});

const schema = [create(FileDescriptorProtoSchema, { name: 'a.proto', package: 'a', syntax: 'proto3' })];

/** versionSeen runs one in-memory generator and returns the compiler_version its request carried. */
async function versionSeen(compat: CompatMode | undefined, compilerVersion?: CompilerVersion | null): Promise<CompilerVersion | undefined> {
  let seen: CompilerVersion | undefined;
  const result = await runInMemory({
    schema,
    filesToGenerate: ['a.proto'],
    ...(compat === undefined ? {} : { compat }),
    ...(compilerVersion === undefined ? {} : { compilerVersion }),
    generators: [
      {
        name: 'cap',
        plugin: async (request) => {
          const version = fromBinary(CodeGeneratorRequestSchema, request).compilerVersion;
          seen = version && { major: version.major, minor: version.minor, patch: version.patch, suffix: version.suffix };
          return { kind: 'exit' as const, code: 0, stdout: toBinary(CodeGeneratorResponseSchema, create(CodeGeneratorResponseSchema)) };
        },
      },
    ],
  });
  assert.equal(result.exitCode, 0, result.stderr);
  return seen;
}

test('an in-memory run sends the compat mode’s compiler_version unless told otherwise', async () => {
  assert.deepEqual(await versionSeen(undefined), { major: 7, minor: 36, patch: 2, suffix: '' });
  assert.deepEqual(await versionSeen('protoc-legacy'), { major: 3, minor: 21, patch: 0, suffix: '' });
  assert.equal(await versionSeen('buf'), undefined);
  assert.deepEqual(await versionSeen('buf', { major: 1, minor: 2, patch: 3, suffix: 'rc1' }), { major: 1, minor: 2, patch: 3, suffix: 'rc1' });
  assert.equal(await versionSeen('protoc', null), undefined);
});
