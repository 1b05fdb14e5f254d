import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorResponseSchema } from '@bufbuild/protobuf/wkt';
import { encodeResponse } from './encode-response.ts';

test('encodeResponse writes the same bytes as toBinary', () => {
  const cases = [
    create(CodeGeneratorResponseSchema, {}),
    create(CodeGeneratorResponseSchema, { error: 'a.proto: bad', supportedFeatures: 3n, minimumEdition: 998, maximumEdition: 1000 }),
    create(CodeGeneratorResponseSchema, {
      supportedFeatures: 1n,
      file: [
        { name: 'a.ts', content: 'x'.repeat(200_000) },
        // An empty name appends to the previous file; an empty content is still a set field.
        { name: '', content: '' },
        {
          name: 'a.ts',
          insertionPoint: 'imports',
          content: 'é ✓ 𝄞\n',
          generatedCodeInfo: { annotation: [{ path: [4, 0], sourceFile: 'a.proto', begin: 1, end: 9 }] },
        },
        { content: 'no name' },
        { name: 'only-a-name.ts' },
      ],
    }),
  ];
  for (const response of cases) {
    assert.deepEqual(encodeResponse(response), toBinary(CodeGeneratorResponseSchema, response));
  }
});
