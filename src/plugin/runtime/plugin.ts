import type { CodeGeneratorRequest, FileDescriptorProto, GeneratedCodeInfo } from '@bufbuild/protobuf/wkt';
import type { SourceComments } from './source-comments.ts';

/** EditionRange is the window of editions a generator really handles (Edition enum values). */
export interface EditionRange {
  readonly minimum: number;
  readonly maximum: number;
}

/** PluginFeatures declares what the generator handles; the runtime turns it into supported_features. */
export interface PluginFeatures {
  /** proto3Optional is true only when `optional` in proto3 files is generated correctly. */
  readonly proto3Optional: boolean;
  /** editions is set only when editions files are generated correctly, within this window. */
  readonly editions?: EditionRange;
}

/** GeneratedFile is one response chunk, in the protocol's own terms. */
export interface GeneratedFile {
  /** name is relative to the output directory; omitted means "append to the previous chunk". */
  readonly name?: string;
  /** insertionPoint names an `@@protoc_insertion_point(NAME)` in an existing file. */
  readonly insertionPoint?: string;
  readonly content: string;
  /** generatedCodeInfo annotates the content; the host shifts it when inserting. */
  readonly generatedCodeInfo?: GeneratedCodeInfo;
}

/** GenerateInput is what a generator sees: the decoded request plus quick file lookup. */
export interface GenerateInput {
  readonly request: CodeGeneratorRequest;
  /** filesToGenerate are the descriptors of `file_to_generate`, in request order. */
  readonly filesToGenerate: readonly FileDescriptorProto[];
  /** parameter is the raw parameter string ("" when absent). */
  readonly parameter: string;
  /**
   * comments returns a file's commented source locations by path (`path.join(',')`), decoded once
   * per file; under `sourceCodeInfo: 'comments'` this is the only way to them.
   */
  readonly comments: (file: FileDescriptorProto) => SourceComments;
}

/** Plugin is a code generator the runtime can drive over the protocol. */
export interface Plugin {
  /** name is the executable name, e.g. protoc-gen-fogbank; it prefixes stderr messages. */
  readonly name: string;
  readonly version: string;
  readonly features: PluginFeatures;
  /**
   * needsSourceFileDescriptors, when false, lets the runtime skip decoding
   * `source_file_descriptors` (protoc 24+ repeats every file to generate there, doubling a large
   * request); the field is then empty.
   */
  readonly needsSourceFileDescriptors?: boolean;
  /**
   * sourceCodeInfo `'comments'` has the runtime leave every file's `sourceCodeInfo` unset and
   * serve only its comments through `GenerateInput.comments` (read straight from the wire: on a
   * large file decoding every location as a message was half a run); default `'message'`.
   */
  readonly sourceCodeInfo?: 'message' | 'comments';
  /** generate returns the response chunks, or throws PluginError for schema/parameter problems. */
  generate(input: GenerateInput): readonly GeneratedFile[];
}
