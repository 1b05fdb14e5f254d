import { posix } from 'node:path';
import { isFieldSet } from '@bufbuild/protobuf';
import {
  FeatureSet_FieldPresence,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  type FieldDescriptorProto,
  type FileDescriptorProto,
} from '@bufbuild/protobuf/wkt';
import { PluginError, type SourceComments } from '../../runtime/index.ts';
import { CommentIndex } from './comments.ts';
import type { HttpRuleReader } from './http-rule.ts';
import type { FogbankOptions } from './options.ts';
import { REST_RUNTIME_FILE } from './rest-runtime.ts';
import type { MessageInfo, TypeIndex } from './type-index.ts';
import { FLOAT_JSON, WELL_KNOWN_JSON } from './well-known.ts';

/** GeneratorContext is what every file of one request shares. */
export interface GeneratorContext {
  readonly index: TypeIndex;
  readonly options: FogbankOptions;
  readonly http: HttpRuleReader | undefined;
  readonly version: string;
  /** comments are a file's comments by source path, from the runtime. */
  readonly comments: (file: FileDescriptorProto) => SourceComments;
}

const T = FieldDescriptorProto_Type;
const ENUM_HINT = /Check the (\w+) enum for the list of possible values/;

/** outputName is the generated file for a proto file: `a/b.proto` → `a/b.fogbank.ts`. */
export function outputName(protoFile: string): string {
  return `${protoFile.replace(/\.proto$/, '')}.fogbank.ts`;
}

/**
 * FileEmitter holds the per-file state of generation: the imports it needed, the local helper
 * types it used, and the comment index. Type references resolve through the shared index, so
 * each lookup is O(1) and the whole file is generated in time linear in its size.
 */
export class FileEmitter {
  readonly comments: CommentIndex | undefined;
  readonly outName: string;
  private readonly imports = new Map<string, string>();
  private readonly aliases = new Set<string>();
  usesJsonValue = false;
  usesAny = false;
  usesRest = false;

  constructor(
    readonly ctx: GeneratorContext,
    readonly file: FileDescriptorProto,
  ) {
    this.comments = ctx.options.comments ? new CommentIndex(ctx.comments(file)) : undefined;
    this.outName = outputName(file.name);
  }

  /** doc returns the JSDoc for a source path ("" without comments). */
  doc(path: readonly number[], indent: string, extra?: string): string {
    if (this.comments) return this.comments.jsDoc(path, indent, extra);
    return extra === undefined ? '' : `${indent}/** ${extra} */\n`;
  }

  /** typeRef names a message or enum type as seen from this file. */
  typeRef(typeName: string): string {
    const wkt = WELL_KNOWN_JSON.get(typeName);
    if (wkt !== undefined) {
      if (wkt.includes('$JsonValue')) this.usesJsonValue = true;
      if (wkt === '$Any') this.usesAny = true;
      return wkt;
    }
    const info = this.ctx.index.get(typeName);
    if (info === undefined) throw new PluginError(`${this.file.name}: type ${typeName} is not defined in the request`);
    if (info.kind === 'message' && info.proto.options?.mapEntry) return this.mapType(info);
    if (info.file === this.file) return info.tsName;
    return `${this.importAlias(info.file.name)}.${info.tsName}`;
  }

  /** fieldType is the JSON type of a field's value (arrays and maps included). */
  fieldType(field: FieldDescriptorProto, scope: MessageInfo, path: readonly number[]): string {
    const base = this.singularType(field, scope, path);
    if (field.label !== FieldDescriptorProto_Label.REPEATED) return base;
    const info = field.typeName === '' ? undefined : this.ctx.index.message(field.typeName);
    if (info?.proto.options?.mapEntry) return base;
    return /[ |&]/.test(base) && !base.startsWith('{') ? `(${base})[]` : `${base}[]`;
  }

  /** isRequired tells whether JSON always carries the field (proto2 required, editions LEGACY_REQUIRED). */
  isRequired(field: FieldDescriptorProto): boolean {
    return field.label === FieldDescriptorProto_Label.REQUIRED || field.options?.features?.fieldPresence === FeatureSet_FieldPresence.LEGACY_REQUIRED;
  }

  /** realOneof returns the oneof a field belongs to, ignoring proto3 optional's synthetic ones. */
  realOneof(field: FieldDescriptorProto): number | undefined {
    if (field.proto3Optional || !isFieldSet(field, FieldDescriptorProtoSchema.field.oneofIndex)) return undefined;
    return field.oneofIndex;
  }

  /** restImport returns the alias of the REST support module and records that it is needed. */
  restImport(): string {
    this.usesRest = true;
    return '$rest';
  }

  /** importLines renders the import block (sorted for stable output). */
  importLines(): string {
    const ext = this.ctx.options.importExtension;
    const lines: string[] = [];
    const dir = posix.dirname(this.outName);
    for (const [depFile, alias] of [...this.imports].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      lines.push(`import type * as ${alias} from ${JSON.stringify(relative(dir, outputName(depFile), ext))};\n`);
    }
    if (this.usesRest) {
      const spec = relative(dir, posix.join(dir, REST_RUNTIME_FILE), ext);
      lines.push(`import * as $rest from ${JSON.stringify(spec)};\n`);
    }
    return lines.join('');
  }

  private singularType(field: FieldDescriptorProto, scope: MessageInfo, path: readonly number[]): string {
    switch (field.type) {
      case T.DOUBLE:
      case T.FLOAT:
        return FLOAT_JSON;
      case T.INT64:
      case T.UINT64:
      case T.SINT64:
      case T.FIXED64:
      case T.SFIXED64:
      case T.BYTES:
        return 'string';
      case T.INT32:
      case T.UINT32:
      case T.SINT32:
      case T.FIXED32:
      case T.SFIXED32:
        return 'number';
      case T.BOOL:
        return 'boolean';
      case T.STRING:
        return this.stringType(scope, path);
      case T.ENUM:
      case T.MESSAGE:
      case T.GROUP:
        return this.typeRef(field.typeName);
      default:
        throw new PluginError(`${this.file.name}: field ${scope.typeName}.${field.name} has an unknown type`);
    }
  }

  // compute.proto's enum-like fields are `string` with a doc-only enum named in the comment;
  // typing them as that enum's names (still open to other strings) is what users want.
  private stringType(scope: MessageInfo, path: readonly number[]): string {
    if (!this.ctx.options.enumHints || this.comments === undefined) return 'string';
    const text = this.comments.raw(path);
    const match = text === undefined ? null : ENUM_HINT.exec(text);
    if (match === null) return 'string';
    for (let s = scope.typeName; s !== ''; s = s.slice(0, s.lastIndexOf('.'))) {
      const info = this.ctx.index.get(`${s}.${match[1]}`);
      if (info?.kind === 'enum') return `${this.typeRef(info.typeName)} | (string & {})`;
    }
    return 'string';
  }

  private mapType(entry: MessageInfo): string {
    const value = entry.proto.field.find((f) => f.number === 2);
    if (value === undefined) throw new PluginError(`${this.file.name}: map entry ${entry.typeName} has no value field`);
    return `{ [key: string]: ${this.fieldType(value, entry, [])} }`;
  }

  private importAlias(depFile: string): string {
    let alias = this.imports.get(depFile);
    if (alias !== undefined) return alias;
    const wanted = `$${depFile.replace(/\.proto$/, '').replace(/\W/g, '_')}`;
    alias = wanted;
    for (let i = 1; this.aliases.has(alias); i++) alias = `${wanted}${i}`;
    this.aliases.add(alias);
    this.imports.set(depFile, alias);
    return alias;
  }
}

function relative(fromDir: string, target: string, ext: string): string {
  let rel = posix.relative(fromDir, target.replace(/\.ts$/, ''));
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel + ext;
}
