import { fromBinary, mergeFromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { GeneratedCodeInfoSchema, type GeneratedCodeInfo } from '@bufbuild/protobuf/wkt';

/** ResponseFile is one decoded `CodeGeneratorResponse.File`, with `content` kept as raw bytes. */
export interface ResponseFile {
  readonly name: string;
  readonly insertionPoint: string;
  readonly content: Uint8Array;
  readonly generatedCodeInfo: GeneratedCodeInfo | undefined;
}

/** PluginResponse is a decoded `CodeGeneratorResponse`. */
export interface PluginResponse {
  readonly error: string;
  readonly supportedFeatures: bigint;
  readonly minimumEdition: number;
  readonly maximumEdition: number;
  readonly files: readonly ResponseFile[];
}

const utf8 = new TextDecoder();

/**
 * readResponse decodes a response with protobuf's wire reader but keeps `File.content` as bytes:
 * protoc writes whatever bytes a plugin sends, even invalid UTF-8, and a string decode would
 * replace them. A field with an unexpected wire type is skipped as unknown, as C++ parsing does.
 * Throws when the bytes are not a valid message.
 */
export function readResponse(bytes: Uint8Array): PluginResponse {
  const r = new BinaryReader(bytes);
  let error = '';
  let supportedFeatures = 0n;
  let minimumEdition = 0;
  let maximumEdition = 0;
  const files: ResponseFile[] = [];
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (wt === WireType.EndGroup) throw new Error('unexpected end group');
    if (no === 1 && wt === WireType.LengthDelimited) error = utf8.decode(r.bytes());
    else if (no === 2 && wt === WireType.Varint) supportedFeatures = BigInt(r.uint64());
    else if (no === 3 && wt === WireType.Varint) minimumEdition = r.int32();
    else if (no === 4 && wt === WireType.Varint) maximumEdition = r.int32();
    else if (no === 15 && wt === WireType.LengthDelimited) files.push(readFile(r.bytes()));
    else r.skip(wt, no);
  }
  return { error, supportedFeatures, minimumEdition, maximumEdition, files };
}

function readFile(bytes: Uint8Array): ResponseFile {
  const r = new BinaryReader(bytes);
  let name = '';
  let insertionPoint = '';
  let content: Uint8Array = new Uint8Array(0);
  let info: GeneratedCodeInfo | undefined;
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (wt === WireType.EndGroup) throw new Error('unexpected end group');
    if (no === 1 && wt === WireType.LengthDelimited) name = utf8.decode(r.bytes());
    else if (no === 2 && wt === WireType.LengthDelimited) insertionPoint = utf8.decode(r.bytes());
    else if (no === 15 && wt === WireType.LengthDelimited) content = r.bytes();
    else if (no === 16 && wt === WireType.LengthDelimited) {
      const chunk = r.bytes();
      info = info ? mergeFromBinary(GeneratedCodeInfoSchema, info, chunk) : fromBinary(GeneratedCodeInfoSchema, chunk);
    } else r.skip(wt, no);
  }
  return { name, insertionPoint, content, generatedCodeInfo: info };
}
