import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { fogbankPlugin } from '../generators/index.ts';
import { insertionPointMarker, PluginError, type Plugin } from '../runtime/index.ts';
import { runInMemory } from './in-memory.ts';

const schema = [
  create(FileDescriptorProtoSchema, {
    name: 'pets/v1/pet.proto',
    package: 'pets.v1',
    syntax: 'proto3',
    messageType: [{ name: 'Pet', field: [{ name: 'pet_id', jsonName: 'petId', number: 1, type: 9, label: 1 }] }],
  }),
];

// A plugin that extends protoc-gen-fogbank's output through its insertion points.
const extender: Plugin = {
  name: 'protoc-gen-extend',
  version: '1',
  features: { proto3Optional: true },
  generate: (input) => {
    if (input.parameter === 'fail') throw new PluginError('pets/v1/pet.proto: refusing');
    return [
      { name: 'pets/v1/pet.fogbank.ts', insertionPoint: 'message_scope:pets.v1.Pet', content: 'nickname?: string;\n' },
      { name: 'pets/v1/pet.fogbank.ts', insertionPoint: 'imports', content: '// extended\n' },
    ];
  },
};

test('a plugin can be unit-tested in memory together with the generator it extends', async () => {
  const r = await runInMemory({ schema, filesToGenerate: ['pets/v1/pet.proto'], generators: [{ plugin: fogbankPlugin }, { plugin: extender }] });
  assert.equal(r.stderr, '');
  assert.equal(r.exitCode, 0);
  assert.deepEqual([...r.files.keys()], ['pets/v1/pet.fogbank.ts']);
  const text = r.files.get('pets/v1/pet.fogbank.ts') ?? '';
  assert.ok(
    text.includes(`export interface Pet {\n  petId?: string;\n  nickname?: string;\n  // ${insertionPointMarker('message_scope:pets.v1.Pet')}\n}\n`),
    text,
  );
  assert.ok(text.includes(`// extended\n// ${insertionPointMarker('imports')}\n`));
});

test('errors come back exactly as protoc would print them, with nothing in the tree', async () => {
  const failing = await runInMemory({
    schema,
    filesToGenerate: ['pets/v1/pet.proto'],
    generators: [{ plugin: fogbankPlugin }, { plugin: extender, parameter: 'fail' }],
  });
  assert.deepEqual(failing, { exitCode: 1, stderr: '--extend_out: pets/v1/pet.proto: refusing\n', files: new Map() });
  const alone = await runInMemory({ schema, filesToGenerate: ['pets/v1/pet.proto'], generators: [{ plugin: extender, out: 'gen' }] });
  assert.equal(
    alone.stderr,
    // The failed first insert leaves an empty entry behind, as in protoc, so the second finds no marker.
    'pets/v1/pet.fogbank.ts: Tried to insert into file that doesn\'t exist.\npets/v1/pet.fogbank.ts: insertion point "imports" not found.\n',
  );
  assert.equal(alone.exitCode, 1);
});

test('buf compatibility: duplicate names in one response keep the first, across plugins they fail', async () => {
  const dup: Plugin = {
    name: 'protoc-gen-dup',
    version: '1',
    features: { proto3Optional: true },
    generate: () => [
      { name: 'a.txt', content: 'first' },
      { name: 'a.txt', content: 'second' },
    ],
  };
  const one = await runInMemory({ schema, filesToGenerate: ['pets/v1/pet.proto'], compat: 'buf', generators: [{ plugin: dup }] });
  const warning =
    'duplicate generated file name "a.txt". Generation will continue without error here and drop the second occurrence of this file, but please raise an issue with the maintainer of the plugin.\n';
  assert.equal(one.stderr, warning);
  assert.equal(one.files.get('a.txt'), 'first');
  const two = await runInMemory({
    schema,
    filesToGenerate: ['pets/v1/pet.proto'],
    compat: 'buf',
    generators: [{ plugin: dup }, { plugin: dup, name: 'again' }],
  });
  assert.equal(two.exitCode, 1);
  assert.equal(
    two.stderr,
    `${warning}${warning}Failure: file "./a.txt" was generated multiple times: once by plugin "protoc-gen-dup" and again by plugin "protoc-gen-again"\n`,
  );
});
