import { posix } from 'node:path';
import { Edition } from '@bufbuild/protobuf/wkt';
import type { GeneratedFile, Plugin } from '../../runtime/index.ts';
import { generateFile } from './generate-file.ts';
import { HttpRuleReader } from './http-rule.ts';
import { parseFogbankOptions } from './options.ts';
import { REST_RUNTIME_FILE, REST_RUNTIME_SOURCE } from './rest-runtime.ts';
import { TypeIndex } from './type-index.ts';

import { FOGBANK_VERSION } from '../../../lib/version.ts';

/** FOGBANK_VERSION is printed in generated headers and by `protoc-gen-fogbank --version`. */
export { FOGBANK_VERSION };

/**
 * fogbankPlugin is protoc-gen-fogbank: proto3-JSON TypeScript types and google.api.http fetch
 * clients. proto3 optional needs nothing special in JSON types (every field is optional), and
 * editions up to 2023 only change presence and encoding, which it reads per field.
 */
export const fogbankPlugin: Plugin = {
  name: 'protoc-gen-fogbank',
  version: FOGBANK_VERSION,
  // proto_file carries everything it reads (comments and json_name included).
  needsSourceFileDescriptors: false,
  // It reads only comments from source_code_info (JSDoc, enum hints).
  sourceCodeInfo: 'comments',
  features: {
    proto3Optional: true,
    editions: { minimum: Edition.EDITION_PROTO2, maximum: Edition.EDITION_2023 },
  },
  generate(input) {
    const options = parseFogbankOptions(input.parameter);
    const files = input.request.protoFile;
    const ctx = {
      index: new TypeIndex(files),
      options,
      http: options.restClients ? new HttpRuleReader(files) : undefined,
      version: FOGBANK_VERSION,
      comments: input.comments,
    };
    const out: GeneratedFile[] = [];
    const restDirs = new Set<string>();
    for (const file of input.filesToGenerate) {
      const generated = generateFile(ctx, file);
      out.push({ name: generated.name, content: generated.content });
      if (generated.usesRest) restDirs.add(posix.dirname(generated.name));
    }
    for (const dir of restDirs) {
      out.push({ name: dir === '.' ? REST_RUNTIME_FILE : `${dir}/${REST_RUNTIME_FILE}`, content: REST_RUNTIME_SOURCE });
    }
    return out;
  },
};
