import { create, fromBinary } from '@bufbuild/protobuf';
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponse_FileSchema,
  CodeGeneratorResponseSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { encodeResponse } from './encode-response.ts';
import { editionName, fileEdition, hasProto3Optional } from './editions.ts';
import { PluginError, PluginProtocolError } from './errors.ts';
import { fileNameProblem } from './file-name.ts';
import { commentsFromDescriptor, decodeSourceComments, type SourceComments, splitRequest } from './source-comments.ts';
import type { GeneratedFile, Plugin } from './plugin.ts';

/**
 * decodeRequest parses the request bytes, or throws PluginProtocolError in protoc's words.
 * With `skipSourceFileDescriptors`, field 17 is stepped over with the wire reader instead of
 * being decoded (it is still checked to be well-formed).
 */
export function decodeRequest(bytes: Uint8Array, skipSourceFileDescriptors = false): CodeGeneratorRequest {
  return decodeSplit(bytes, skipSourceFileDescriptors, false).request;
}

const SOURCE_FILE_DESCRIPTORS = new Set([17]);
const NOTHING = new Set<number>();

/** DecodedRequest is a request and the comments of its files, however the plugin asked for them. */
interface DecodedRequest {
  readonly request: CodeGeneratorRequest;
  readonly comments: (file: FileDescriptorProto) => SourceComments;
}

// Decodes with field 17 and, when asked, every file's source_code_info set aside raw (comments
// are then read from those bytes on first use, once per file).
function decodeSplit(bytes: Uint8Array, skipSourceFileDescriptors: boolean, commentsOnly: boolean): DecodedRequest {
  try {
    const split = splitRequest(bytes, skipSourceFileDescriptors ? SOURCE_FILE_DESCRIPTORS : NOTHING, commentsOnly);
    const request = fromBinary(CodeGeneratorRequestSchema, split.bytes);
    const cache = new Map<FileDescriptorProto, SourceComments>();
    const comments = (file: FileDescriptorProto): SourceComments => {
      let found = cache.get(file);
      if (found === undefined) {
        const raw = split.sourceInfo.get(file.name);
        found = raw === undefined ? commentsFromDescriptor(file) : decodeRawComments(raw);
        cache.set(file, found);
      }
      return found;
    };
    return { request, comments };
  } catch {
    throw new PluginProtocolError('protoc sent unparseable request to plugin.');
  }
}

// Comments are read after decoding, on first use; bytes that do not parse are the same broken
// conversation as an unparseable request.
function decodeRawComments(raw: Uint8Array): SourceComments {
  try {
    return decodeSourceComments(raw);
  } catch {
    throw new PluginProtocolError('protoc sent unparseable request to plugin.');
  }
}

/**
 * generateResponse runs the plugin on a decoded request. Schema and parameter problems become
 * `response.error`; features (and the edition window) are always declared, even on error, so
 * protoc reports the real error rather than a feature complaint.
 */
export function generateResponse(
  plugin: Plugin,
  request: CodeGeneratorRequest,
  comments: (file: FileDescriptorProto) => SourceComments = commentsFromDescriptor,
): CodeGeneratorResponse {
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
    const files = plugin.generate({ request, filesToGenerate, parameter: request.parameter, comments });
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
  const { request, comments } = decodeSplit(requestBytes, plugin.needsSourceFileDescriptors === false, plugin.sourceCodeInfo === 'comments');
  return encodeResponse(generateResponse(plugin, request, comments));
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
