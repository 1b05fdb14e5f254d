import type { FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { editionName, fileEdition, hasProto3Optional } from '../runtime/editions.ts';
import type { CompatMode } from './compat.ts';
import type { PluginResponse } from './response-reader.ts';

const PROTO3_OPTIONAL = 1n;
const SUPPORTS_EDITIONS = 2n;
const EDITION_2023 = 1000;
// protoc's CanSkipEditionCheck: its own test and bootstrap files are exempt.
const EXEMPT_PREFIXES = ['google/protobuf/', 'upb/', 'com/google/protobuf/', 'conformance/test_protos/'];

/**
 * featureProblems returns the messages protoc prints when a plugin lacks a feature that the
 * files to generate need, each already carrying protoc's own line ending for `mode`.
 */
export function featureProblems(files: readonly FileDescriptorProto[], response: PluginResponse, pluginName: string, mode: CompatMode): string[] {
  const problems: string[] = [];
  if ((response.supportedFeatures & PROTO3_OPTIONAL) === 0n) {
    const file = files.find(hasProto3Optional);
    if (file !== undefined) {
      problems.push(
        `${file.name}: is a proto3 file that contains optional fields, but code generator ${pluginName} hasn't been updated to support optional fields in proto3. Please ask the owner of this code generator to support proto3 optional.` +
          (mode === 'protoc-legacy' ? '' : '\n'),
      );
      if (mode === 'protoc-legacy') return problems;
    }
  }
  if (mode === 'protoc-legacy') return problems;
  for (const file of files) {
    const edition = fileEdition(file);
    if (edition < EDITION_2023 || EXEMPT_PREFIXES.some((p) => file.name.startsWith(p))) continue;
    if (file.name.includes('test_messages_edition_unstable')) continue;
    const head = `${file.name}: is a file using edition ${editionName(edition)}, which isn't supported by code generator ${pluginName}.  `;
    if ((response.supportedFeatures & SUPPORTS_EDITIONS) === 0n) {
      problems.push(
        `${file.name}: is an editions file, but code generator ${pluginName} hasn't been updated to support editions yet.  Please ask the owner of this code generator to add support or switch back to proto2/proto3.\n\nSee https://protobuf.dev/editions/overview/ for more information.`,
      );
    } else if (edition < response.minimumEdition) {
      problems.push(`${head}Please upgrade your file to at least edition ${editionName(response.minimumEdition)}.`);
    } else if (edition > response.maximumEdition) {
      problems.push(
        `${head}Please ask the owner of this code generator to add support or switch back to a maximum of edition ${editionName(response.maximumEdition)}.`,
      );
    }
  }
  return problems;
}
