// protoc-gen-fogbank end to end: run by real protoc (3.21.0 and 36.2) and by `buf generate`,
// over compute.proto and the fixture corpus; the output must compile under tsc --strict.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runProtocCommand } from '../../src/plugin/protoc-command.ts';
import {
  COMPUTE_PROTO,
  FIXTURE_PROTOS,
  fogbankPluginExecutable,
  PROTOC,
  PROTOC_INCLUDE,
  readTree,
  clientPath,
  run,
  googleapisProtos,
  tempDir,
  typecheck,
} from '../harness/protos.ts';

const CORPUS = ['corpus/common/types.proto', 'corpus/proto2.proto', 'corpus/proto3.proto', 'corpus/library.proto'];
const EDITIONS = ['editions/edition2023.proto'];

const work = tempDir('generator');
const plugin = fogbankPluginExecutable(work);

function protocGenerate(protoc: string, out: string, files: readonly string[]) {
  mkdirSync(out, { recursive: true });
  return run(
    protoc,
    [`-I${FIXTURE_PROTOS}`, `-I${googleapisProtos()}`, `-I${PROTOC_INCLUDE}`, `--plugin=protoc-gen-fogbank=${plugin}`, `--fogbank_out=${out}`, ...files],
    work,
  );
}

/**
 * once memoizes a step several tests build on (a generated tree, a buf module), so every test
 * runs alone, under --test-name-pattern, or in any order, and the work is still done once.
 */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** newestTree is protoc 36.2's output for the corpus, editions and compute.proto. */
const newestTree = once(() => {
  const out = join(work, 'newest');
  const r = protocGenerate(PROTOC.newest, out, [...CORPUS, ...EDITIONS, COMPUTE_PROTO]);
  assert.equal(r.status, 0, r.stderr);
  return out;
});

/** bufModule is a buf module holding the corpus, editions and compute.proto with its imports. */
const bufModule = once(() => {
  const root = join(work, 'buf');
  mkdirSync(join(root, 'protos/google'), { recursive: true });
  cpSync(join(FIXTURE_PROTOS, 'corpus'), join(root, 'protos/corpus'), { recursive: true });
  cpSync(join(FIXTURE_PROTOS, 'editions'), join(root, 'protos/editions'), { recursive: true });
  cpSync(join(googleapisProtos(), 'google/api'), join(root, 'protos/google/api'), { recursive: true });
  cpSync(join(googleapisProtos(), 'google/cloud'), join(root, 'protos/google/cloud'), { recursive: true });
  writeFileSync(join(root, 'buf.yaml'), 'version: v2\nmodules:\n  - path: protos\n');
  writeFileSync(join(root, 'buf.gen.yaml'), `version: v2\nplugins:\n  - local: ${plugin}\n    out: gen\n`);
  return root;
});

/** bufGenerated is `buf generate`'s output tree (under the module's gen/). */
const bufGenerated = once(() => {
  const root = bufModule();
  const paths = ['protos/corpus', 'protos/editions', `protos/${COMPUTE_PROTO}`].flatMap((p) => ['--path', p]);
  const r = run(clientPath('buf'), ['generate', '--template', 'buf.gen.yaml', ...paths], root);
  assert.equal(r.status, 0, r.stderr);
  return join(root, 'gen');
});

test('protoc 36.2 output for compute.proto and the corpus compiles with tsc --strict', () => {
  const out = newestTree();
  const compute = readFileSync(join(out, 'google/cloud/compute/v1/compute.fogbank.ts'), 'utf8');
  assert.match(compute, /^export class InstanceTemplatesClient \{$/m);
  assert.match(compute, /^ {2}insert\(request: InsertInstanceTemplateRequest, options\?: \$rest\.CallOptions\): Promise<Operation> \{$/m);
  assert.match(compute, /^ {2}versionedExpr\?: SecurityPolicyRuleMatcher_VersionedExpr \| \(string & \{\}\);$/m);
  assert.match(compute, /\/\/ @@protoc_insertion_point\(message_scope:google\.cloud\.compute\.v1\.InstanceTemplate\)/);
  assert.match(compute, /\/\/ @@protoc_insertion_point\(service_scope:google\.cloud\.compute\.v1\.InstanceTemplates\)/);
  const tsc = typecheck(out);
  assert.equal(tsc.stdout.toString() + tsc.stderr, '');
  assert.equal(tsc.status, 0);
});

test('the corpus output has the JSON shapes of proto2, proto3, editions and well-known types', () => {
  const tree = newestTree();
  const shapes = readFileSync(join(tree, 'corpus/proto3.fogbank.ts'), 'utf8');
  for (const line of [
    '  fInt64?: string;',
    '  fBytes?: string;',
    '  fDouble?: number | "NaN" | "Infinity" | "-Infinity";',
    '  "custom-json!"?: string;',
    '  outers?: { [key: string]: Outer };',
    '  flags?: { [key: string]: $corpus_common_types.Priority };',
    '  at?: string;',
    '  meta?: { [key: string]: $JsonValue };',
    '  any?: $Any;',
    '  nullValue?: null;',
    'export interface class$ {',
    'export type object$ =',
    'export interface Outer_Inner$1 {',
    'import type * as $corpus_common_types from "./common/types.fogbank.js";',
  ]) {
    assert.ok(shapes.includes(`${line}\n`), `missing line: ${line}`);
  }
  const legacy = readFileSync(join(tree, 'corpus/proto2.fogbank.ts'), 'utf8');
  assert.ok(legacy.includes('  id: string;\n'), 'proto2 required is not optional');
  assert.ok(legacy.includes('  settings?: Account_Settings;\n'), 'groups use the lower-cased JSON name');
  const editions = readFileSync(join(tree, 'editions/edition2023.fogbank.ts'), 'utf8');
  assert.ok(editions.includes('  id: string;\n'), 'LEGACY_REQUIRED is required');
  assert.ok(editions.includes('  bulb?: Lamp_Bulb;\n'));
  assert.ok(editions.includes('  shadesByRoom?: { [key: string]: Shade };\n'));
});

test('protoc 3.21.0 runs protoc-gen-fogbank with the same output', () => {
  const out = join(work, 'oldest');
  const r = protocGenerate(PROTOC.oldest, out, CORPUS);
  assert.equal(r.status, 0, r.stderr);
  const newest = readTree(join(newestTree(), 'corpus'));
  assert.deepEqual(readTree(join(out, 'corpus')), newest);
});

test('buf generate runs protoc-gen-fogbank on compute.proto and the corpus with the same output as protoc', () => {
  const gen = bufGenerated();
  // Identical bytes to the protoc tree, which the first test compiles under tsc --strict.
  const newest = readTree(newestTree());
  const expected = Object.fromEntries(Object.entries(newest).filter(([k]) => k.endsWith('.ts')));
  assert.deepEqual(readTree(gen), expected);
});

test('fogbank protoc, fed a buf build image, generates the same tree in-process', async () => {
  const root = bufModule();
  const image = run(clientPath('buf'), ['build', '-o', 'image.binpb'], root);
  assert.equal(image.status, 0, image.stderr);
  const out = join(work, 'host');
  mkdirSync(out);
  const stderr: string[] = [];
  const code = await runProtocCommand([`--descriptor_set_in=${join(root, 'image.binpb')}`, `--fogbank_out=${out}`, ...CORPUS, ...EDITIONS], {
    cwd: work,
    stderr: (t) => void stderr.push(t),
    stdout: (t) => void stderr.push(t),
  });
  assert.equal(stderr.join(''), '');
  assert.equal(code, 0);
  const bufTree = Object.fromEntries(Object.entries(readTree(bufGenerated())).filter(([k]) => !k.startsWith('google/')));
  assert.deepEqual(readTree(out), bufTree);
});
