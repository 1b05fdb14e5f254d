import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { concatBytes } from './concat-bytes.ts';

/** SourceComment is the comment text protoc attached to one declaration. */
export interface SourceComment {
  readonly leading: string;
  readonly trailing: string;
}

/** SourceComments maps a location path (`4,0,2,1`, as `path.join(',')`) to its comments. */
export type SourceComments = ReadonlyMap<string, SourceComment>;

// Field numbers of descriptor.proto and plugin.proto read here.
const REQUEST_PROTO_FILE = 15;
const FILE_NAME = 1;
const FILE_SOURCE_CODE_INFO = 9;
const SOURCE_CODE_INFO_LOCATION = 1;
const LOCATION_PATH = 1;
const LOCATION_LEADING = 3;
const LOCATION_TRAILING = 4;

/** SplitRequest is a request with top-level fields dropped and, optionally, its files' source_code_info set aside. */
export interface SplitRequest {
  readonly bytes: Uint8Array;
  /** sourceInfo holds each proto_file's raw source_code_info, by file name (only when set aside). */
  readonly sourceInfo: ReadonlyMap<string, Uint8Array>;
}

/**
 * splitRequest copies a CodeGeneratorRequest without the top-level fields in `drop` and, with
 * `setAsideSourceInfo`, without every proto_file's source_code_info, returned raw beside it.
 * Why: on a large file (googleapis' compute.proto, 74k locations) decoding source_code_info
 * into messages was half the plugin's time and most of its garbage; a generator that only
 * reads comments gets them from the raw bytes, a map entry per commented location.
 */
export function splitRequest(bytes: Uint8Array, drop: ReadonlySet<number>, setAsideSourceInfo: boolean): SplitRequest {
  const reader = new BinaryReader(bytes);
  const sourceInfo = new Map<string, Uint8Array>();
  // The pieces of the copy, mostly views into `bytes`, joined once at the end.
  const parts: Uint8Array[] = [];
  let changed = false;
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [no, wireType] = reader.tag();
    if (setAsideSourceInfo && no === REQUEST_PROTO_FILE && wireType === WireType.LengthDelimited) {
      const file = reader.bytes();
      const kept = withoutSourceInfo(file, sourceInfo);
      if (kept === undefined) {
        parts.push(bytes.subarray(start, reader.pos));
        continue;
      }
      changed = true;
      let length = 0;
      for (const part of kept) length += part.length;
      parts.push(new BinaryWriter().tag(REQUEST_PROTO_FILE, WireType.LengthDelimited).uint32(length).finish(), ...kept);
      continue;
    }
    reader.skip(wireType, no);
    if (drop.has(no)) changed = true;
    else parts.push(bytes.subarray(start, reader.pos));
  }
  return { bytes: changed ? concatBytes(parts) : bytes, sourceInfo };
}

// Returns the pieces of the FileDescriptorProto bytes without field 9, recording it under the
// file's name; undefined when the file has none.
function withoutSourceInfo(file: Uint8Array, into: Map<string, Uint8Array>): Uint8Array[] | undefined {
  const reader = new BinaryReader(file);
  let name = '';
  let info: Uint8Array | undefined;
  const kept: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [no, wireType] = reader.tag();
    if (no === FILE_NAME && wireType === WireType.LengthDelimited) {
      name = reader.string();
      kept.push(file.subarray(start, reader.pos));
    } else if (no === FILE_SOURCE_CODE_INFO && wireType === WireType.LengthDelimited) {
      // Repeated occurrences of a message field merge; concatenated encodings merge the same way.
      const part = reader.bytes();
      info = info === undefined ? part : concatBytes([info, part]);
    } else {
      reader.skip(wireType, no);
      kept.push(file.subarray(start, reader.pos));
    }
  }
  if (info === undefined) return undefined;
  into.set(name, info);
  return kept;
}

/**
 * decodeSourceComments reads the commented locations of raw SourceCodeInfo bytes: the path
 * of each (as `path.join(',')`) with its leading and trailing comment; locations without either
 * (spans of every token) are stepped over without building anything. It reads the wire with a
 * bare cursor rather than BinaryReader, whose tag() allocates a pair per field: compute.proto
 * has 74k locations of three or four fields each. Malformed bytes throw RangeError.
 */
export function decodeSourceComments(info: Uint8Array): Map<string, SourceComment> {
  const out = new Map<string, SourceComment>();
  const c = new Cursor(info);
  while (c.pos < info.length) {
    const tag = c.varint();
    if (tag >>> 3 !== SOURCE_CODE_INFO_LOCATION || (tag & 7) !== WireType.LengthDelimited) {
      c.skip(tag);
      continue;
    }
    const end = c.length() + c.pos;
    // The path is kept as where its packed bytes lie and read only for a commented location.
    let pathStart = -1;
    let pathEnd = -1;
    let loose: number[] | undefined;
    let leading = '';
    let trailing = '';
    while (c.pos < end) {
      // Fast path for what almost every location is: a path and a span, each a one-byte tag
      // (0x0a, 0x12) and a one-byte length. Not calling into the cursor matters: the plugin runs
      // without the optimising compiler (src/cli/protoc-gen-fogbank.ts).
      const first = info[c.pos]!;
      if ((first === 0x12 || (first === 0x0a && pathStart === -1)) && c.pos + 1 < end && info[c.pos + 1]! < 0x80) {
        const start = c.pos + 2;
        const stop = start + info[c.pos + 1]!;
        if (stop > end) throw new RangeError('field beyond its location');
        if (first === 0x0a) {
          pathStart = start;
          pathEnd = stop;
        }
        c.pos = stop;
        continue;
      }
      const tag = c.varint();
      const field = tag >>> 3;
      const type = tag & 7;
      if (field === LOCATION_PATH && type === WireType.LengthDelimited && pathStart === -1) {
        const n = c.length();
        pathStart = c.pos;
        pathEnd = c.pos + n;
        c.pos = pathEnd;
      } else if (field === LOCATION_PATH && type === WireType.Varint) {
        loose ??= [];
        loose.push(c.varint());
      } else if (field === LOCATION_PATH && type === WireType.LengthDelimited) {
        // A second packed run (no encoder in use writes one): read it now, in order.
        const stop = c.length() + c.pos;
        loose ??= [];
        while (c.pos < stop) loose.push(c.varint());
      } else if (field === LOCATION_LEADING && type === WireType.LengthDelimited) {
        leading = c.string();
      } else if (field === LOCATION_TRAILING && type === WireType.LengthDelimited) {
        trailing = c.string();
      } else {
        c.skip(tag);
      }
    }
    if (c.pos !== end) throw new RangeError('location overruns its length');
    // A later location for the same path wins, as the last one decoded would in a scan.
    if (leading !== '' || trailing !== '') out.set(pathKey(info, pathStart, pathEnd, loose), { leading, trailing });
  }
  return out;
}

// protoc writes a path as one packed run; elements written otherwise come after it.
function pathKey(info: Uint8Array, start: number, end: number, loose: readonly number[] = []): string {
  const path: number[] = [];
  if (start !== -1) {
    const c = new Cursor(info, end);
    c.pos = start;
    while (c.pos < end) path.push(c.varint());
  }
  path.push(...loose);
  return path.join(',');
}

const UTF8 = new TextDecoder();

/** Cursor reads protobuf wire primitives from bytes up to `end`; malformed input throws RangeError. */
class Cursor {
  pos = 0;
  constructor(
    private readonly buf: Uint8Array,
    private readonly end = buf.length,
  ) {}

  /** varint reads a varint as int32 (the low 32 bits, as protobuf decodes int32). */
  varint(): number {
    let result = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.pos >= this.end) throw new RangeError('premature end of varint');
      const b = this.buf[this.pos++]!;
      if (shift < 32) result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new RangeError('varint longer than 10 bytes');
  }

  /** length reads a length prefix and checks the bytes it announces are there. */
  length(): number {
    const n = this.varint();
    if (n < 0 || this.pos + n > this.end) throw new RangeError('length beyond the end');
    return n;
  }

  /** string reads a length-delimited UTF-8 string. */
  string(): string {
    const n = this.length();
    const text = UTF8.decode(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return text;
  }

  /** skip steps over the value of a field whose tag was just read (groups through BinaryReader). */
  skip(tag: number): void {
    switch (tag & 7) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.Bit64:
        this.advance(8);
        return;
      case WireType.LengthDelimited:
        this.advance(this.length());
        return;
      case WireType.Bit32:
        this.advance(4);
        return;
      default: {
        const reader = new BinaryReader(this.buf.subarray(0, this.end));
        reader.pos = this.pos;
        reader.skip(tag & 7, tag >>> 3);
        this.pos = reader.pos;
      }
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new RangeError('field beyond the end');
    this.pos += n;
  }
}

/** commentsFromDescriptor is the same map built from a decoded file's source_code_info. */
export function commentsFromDescriptor(file: FileDescriptorProto): Map<string, SourceComment> {
  const out = new Map<string, SourceComment>();
  for (const loc of file.sourceCodeInfo?.location ?? []) {
    if (loc.leadingComments !== '' || loc.trailingComments !== '') {
      out.set(loc.path.join(','), { leading: loc.leadingComments, trailing: loc.trailingComments });
    }
  }
  return out;
}
