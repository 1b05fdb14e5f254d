import { create, toBinary } from '@bufbuild/protobuf';
import { CodeGeneratorRequestSchema, VersionSchema, type FieldDescriptorProto, type FileDescriptorProto, type DescriptorProto } from '@bufbuild/protobuf/wkt';
import type { CompilerVersion } from './compiler-version.ts';
import { HostError } from './errors.ts';

/** RequestSource is the compiled schema a run starts from (a descriptor set's files). */
export interface RequestSource {
  readonly files: readonly FileDescriptorProto[];
  readonly filesToGenerate: readonly string[];
}

/**
 * orderProtoFiles lists the files to generate and everything they import the way protoc fills
 * `proto_file`: for each file to generate in command-line order, a depth-first walk emitting a
 * file's imports (in declaration order) before the file, each file once.
 */
export function orderProtoFiles(source: RequestSource): FileDescriptorProto[] {
  const byName = new Map<string, FileDescriptorProto>();
  for (const f of source.files) byName.set(f.name, f);
  const seen = new Set<string>();
  const ordered: FileDescriptorProto[] = [];
  const visit = (name: string, importedBy: string | undefined): void => {
    if (seen.has(name)) return;
    const file = byName.get(name);
    if (file === undefined) {
      throw new HostError(importedBy === undefined ? `${name}: File not found.` : `${importedBy}: Import "${name}" was not found or had errors.`);
    }
    seen.add(name);
    for (const dep of file.dependency) visit(dep, name);
    ordered.push(withJsonNames(file));
  };
  for (const name of source.filesToGenerate) visit(name, undefined);
  return ordered;
}

/**
 * buildRequest encodes a CodeGeneratorRequest in protoc's field order: file_to_generate (1),
 * parameter (2, only when non-empty, as protoc does), compiler_version (3, when given, `suffix`
 * always set), proto_file (15), source_file_descriptors (17, the files to generate: protoc 24+,
 * buf). plugin.proto declares compiler_version last, so a plain toBinary would write it after
 * the files; protoc's C++ serializer writes by field number, and so does this.
 */
export function buildRequest(
  protoFiles: readonly FileDescriptorProto[],
  filesToGenerate: readonly string[],
  parameter: string,
  withSourceDescriptors: boolean,
  compilerVersion?: CompilerVersion,
): Uint8Array {
  const wanted = new Set(filesToGenerate);
  const head = create(CodeGeneratorRequestSchema, { fileToGenerate: [...filesToGenerate] });
  if (parameter !== '') head.parameter = parameter;
  const version = create(CodeGeneratorRequestSchema);
  if (compilerVersion !== undefined) version.compilerVersion = create(VersionSchema, { ...compilerVersion });
  const files = create(CodeGeneratorRequestSchema, {
    protoFile: [...protoFiles],
    sourceFileDescriptors: withSourceDescriptors ? protoFiles.filter((f) => wanted.has(f.name)) : [],
  });
  // Encoded messages concatenate into their merge: three parts, each holding its own fields.
  const parts = [head, version, files].map((part) => toBinary(CodeGeneratorRequestSchema, part));
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// protoc gives plugins json_name on every field; descriptor sets from other tools may not.
function withJsonNames(file: FileDescriptorProto): FileDescriptorProto {
  const fill = (fields: FieldDescriptorProto[]) => {
    for (const f of fields) if (f.jsonName === '') f.jsonName = jsonName(f.name);
  };
  const walk = (messages: DescriptorProto[]) => {
    for (const m of messages) {
      fill(m.field);
      fill(m.extension);
      walk(m.nestedType);
    }
  };
  walk(file.messageType);
  fill(file.extension);
  return file;
}

/** jsonName is protoc's ToJsonName: drop underscores, upper-casing the letter after each. */
export function jsonName(protoName: string): string {
  let out = '';
  let upper = false;
  for (const ch of protoName) {
    if (ch === '_') upper = true;
    else if (upper) {
      out += ch.toUpperCase();
      upper = false;
    } else out += ch;
  }
  return out;
}
