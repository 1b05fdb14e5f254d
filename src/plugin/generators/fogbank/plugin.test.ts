import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { runInMemory } from '../../host/index.ts';
import { fogbankPlugin } from './plugin.ts';

const schema = [
  create(FileDescriptorProtoSchema, {
    name: 'a/common.proto',
    package: 'a',
    syntax: 'proto3',
    messageType: [{ name: 'Id', field: [{ name: 'value', jsonName: 'value', number: 1, type: 4, label: 1 }] }],
    sourceCodeInfo: { location: [{ path: [4, 0], span: [0, 0, 1], leadingComments: ' Id is shared.\n' }] },
  }),
  create(FileDescriptorProtoSchema, {
    name: 'b/use.proto',
    package: 'b',
    syntax: 'proto3',
    dependency: ['a/common.proto'],
    messageType: [{ name: 'Thing', field: [{ name: 'id', jsonName: 'id', number: 1, type: 11, label: 1, typeName: '.a.Id' }] }],
  }),
];

async function generate(parameter: string) {
  const r = await runInMemory({ schema, filesToGenerate: ['a/common.proto', 'b/use.proto'], generators: [{ plugin: fogbankPlugin, parameter }] });
  assert.equal(r.stderr, '');
  return r.files;
}

test('cross-file references import the other generated module with the chosen extension', async () => {
  const js = await generate('');
  assert.ok(js.get('b/use.fogbank.ts')?.includes('import type * as $a_common from "../a/common.fogbank.js";\n'));
  assert.ok(js.get('b/use.fogbank.ts')?.includes('  id?: $a_common.Id;\n'));
  const ts = await generate('import_extension=ts');
  assert.ok(ts.get('b/use.fogbank.ts')?.includes('from "../a/common.fogbank.ts";\n'));
  const none = await generate('import_extension=none');
  assert.ok(none.get('b/use.fogbank.ts')?.includes('from "../a/common.fogbank";\n'));
});

test('comments are copied as JSDoc unless comments=false; 64-bit integers are strings', async () => {
  assert.ok((await generate('')).get('a/common.fogbank.ts')?.includes('/** Id is shared. */\nexport interface Id {\n  value?: string;\n'));
  assert.ok((await generate('comments=false')).get('a/common.fogbank.ts')?.includes('\nexport interface Id {\n  value?: string;\n'));
  assert.ok(!(await generate('comments=false')).get('a/common.fogbank.ts')?.includes('Id is shared'));
});

test('enum_hints types a documented string field as the named enum, still open; enum_hints=false keeps string', async () => {
  const hinted = [
    create(FileDescriptorProtoSchema, {
      name: 'c.proto',
      package: 'c',
      syntax: 'proto3',
      messageType: [
        {
          name: 'Disk',
          field: [{ name: 'mode', jsonName: 'mode', number: 1, type: 9, label: 1, proto3Optional: true }],
          enumType: [
            {
              name: 'Mode',
              value: [
                { name: 'READ_ONLY', number: 0 },
                { name: 'READ_WRITE', number: 1 },
              ],
            },
          ],
        },
      ],
      sourceCodeInfo: {
        location: [{ path: [4, 0, 2, 0], span: [0, 0, 1], leadingComments: ' The mode. Check the Mode enum for the list of possible values.\n' }],
      },
    }),
  ];
  const run = (parameter: string) =>
    runInMemory({ schema: hinted, filesToGenerate: ['c.proto'], generators: [{ plugin: fogbankPlugin, parameter }] }).then(
      (r) => r.files.get('c.fogbank.ts') ?? '',
    );
  assert.ok((await run('')).includes('  mode?: Disk_Mode | (string & {});\n'));
  assert.ok((await run('enum_hints=false')).includes('  mode?: string;\n'));
});
