import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponse_FileSchema,
  CodeGeneratorResponseSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { editionName, fileEdition, hasProto3Optional } from './editions.ts';
import { concatBytes } from './concat-bytes.ts';
import { PluginError, PluginProtocolError } from './errors.ts';
import { fileNameProblem } from './file-name.ts';
import type { GeneratedFile, Plugin } from './plugin.ts';

/**
 * decodeRequest parses the request bytes, or throws PluginProtocolError in protoc's words.
 * With `skipSourceFileDescriptors`, field 17 is stepped over with the wire reader instead of
 * being decoded (it is still checked to be well-formed).
 */
export function decodeRequest(bytes: Uint8Array, skipSourceFileDescriptors = false): CodeGeneratorRequest {
  try {
    return fromBinary(CodeGeneratorRequestSchema, skipSourceFileDescriptors ? withoutField(bytes, SOURCE_FILE_DESCRIPTORS) : bytes);
  } catch {
    throw new PluginProtocolError('protoc sent unparseable request to plugin.');
  }
}

const SOURCE_FILE_DESCRIPTORS = 17;

// Copies the top-level fields other than `fieldNo`.
function withoutField(bytes: Uint8Array, fieldNo: number): Uint8Array {
  const reader = new BinaryReader(bytes);
  const parts: Uint8Array[] = [];
  let skipped = false;
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [no, wireType] = reader.tag();
    reader.skip(wireType, no);
    if (no === fieldNo) skipped = true;
    else parts.push(bytes.subarray(start, reader.pos));
  }
  return skipped ? concatBytes(parts) : bytes;
}

/**
 * generateResponse runs the plugin on a decoded request. Schema and parameter problems become
 * `response.error`; features (and the edition window) are always declared, even on error, so
 * protoc reports the real error rather than a feature complaint.
 */
export function generateResponse(plugin: Plugin, request: CodeGeneratorRequest): CodeGeneratorResponse {
  const byName = new Map<string, FileDescriptorProto>();
  for (const f of request.protoFile) byName.set(f.name, f);
  const filesToGenerate: FileDescriptorProto[] = [];
  for (const name of request.fileToGenerate) {
    const file = byName.get(name);
    if (file === undefined) {
      throw new PluginProtocolError(`protoc asked plugin to generate a file but did not provide a descriptor for the file: ${name}`);
    }
    filesToGenerate.push(file);
  }
  const { features } = plugin;
  const response = create(CodeGeneratorResponseSchema, {
    supportedFeatures: BigInt(
      (features.proto3Optional ? CodeGeneratorResponse_Feature.PROTO3_OPTIONAL : 0) | (features.editions ? CodeGeneratorResponse_Feature.SUPPORTS_EDITIONS : 0),
    ),
  });
  if (features.editions) {
    response.minimumEdition = features.editions.minimum;
    response.maximumEdition = features.editions.maximum;
  }
  try {
    checkFeatures(plugin, filesToGenerate);
    const files = plugin.generate({ request, filesToGenerate, parameter: request.parameter });
    response.file = files.map(toResponseFile);
  } catch (err) {
    if (!(err instanceof PluginError)) throw err;
    response.error = err.message;
    response.file = [];
  }
  return response;
}

/** runPlugin is the whole plugin side on bytes: request in, response out. */
export function runPlugin(plugin: Plugin, requestBytes: Uint8Array): Uint8Array {
  const request = decodeRequest(requestBytes, plugin.needsSourceFileDescriptors === false);
  return toBinary(CodeGeneratorResponseSchema, generateResponse(plugin, request));
}

// The host checks these too, but only some hosts and versions do; checking here makes the
// message the same under protoc 3.21, current protoc and buf.
function checkFeatures(plugin: Plugin, files: readonly FileDescriptorProto[]): void {
  const { proto3Optional, editions } = plugin.features;
  for (const file of files) {
    if (!proto3Optional && hasProto3Optional(file)) {
      throw new PluginError(`${file.name}: proto3 optional fields are not supported by ${plugin.name}`);
    }
    if (file.syntax !== 'editions') continue;
    const edition = fileEdition(file);
    if (editions === undefined) {
      throw new PluginError(`${file.name}: editions files are not supported by ${plugin.name}`);
    }
    if (edition < editions.minimum) {
      throw new PluginError(`${file.name}: unsupported edition ${editionName(edition)} - the earliest supported edition is ${editionName(editions.minimum)}`);
    }
    if (edition > editions.maximum) {
      throw new PluginError(`${file.name}: unsupported edition ${editionName(edition)} - the latest supported edition is ${editionName(editions.maximum)}`);
    }
  }
}

function toResponseFile(file: GeneratedFile) {
  if (file.name !== undefined) {
    const problem = fileNameProblem(file.name);
    if (problem !== undefined) throw new PluginError(`invalid generated file name "${file.name}": ${problem}`);
  }
  if (file.insertionPoint !== undefined && file.name === undefined) {
    throw new PluginError(`insertion point "${file.insertionPoint}" needs a file name`);
  }
  return create(CodeGeneratorResponse_FileSchema, {
    name: file.name ?? '',
    insertionPoint: file.insertionPoint ?? '',
    content: file.content,
    ...(file.generatedCodeInfo ? { generatedCodeInfo: file.generatedCodeInfo } : {}),
  });
}
