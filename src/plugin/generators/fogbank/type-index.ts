import type { DescriptorProto, EnumDescriptorProto, FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { safeTypeName, UniqueNames } from './names.ts';

/** MessageInfo is one message of the request, with its generated TypeScript name. */
export interface MessageInfo {
  readonly kind: 'message';
  readonly typeName: string;
  readonly file: FileDescriptorProto;
  readonly tsName: string;
  readonly proto: DescriptorProto;
  /** path is the source-code-info path, for comments. */
  readonly path: readonly number[];
}

/** EnumInfo is one enum of the request, with its generated TypeScript name. */
export interface EnumInfo {
  readonly kind: 'enum';
  readonly typeName: string;
  readonly file: FileDescriptorProto;
  readonly tsName: string;
  readonly proto: EnumDescriptorProto;
  readonly path: readonly number[];
}

/** TypeInfo is a message or an enum. */
export type TypeInfo = MessageInfo | EnumInfo;

/**
 * TypeIndex maps every fully-qualified type name of the request (`.pkg.Outer.Inner`) to its
 * descriptor and TypeScript name, built in one pass so every later lookup is O(1).
 */
export class TypeIndex {
  private readonly types = new Map<string, TypeInfo>();
  private readonly namers = new Map<string, UniqueNames>();
  /** byFile lists each file's types in declaration order (parents before nested types). */
  readonly byFile = new Map<string, TypeInfo[]>();

  constructor(files: readonly FileDescriptorProto[]) {
    for (const file of files) {
      const namer = new UniqueNames();
      const list: TypeInfo[] = [];
      this.namers.set(file.name, namer);
      this.byFile.set(file.name, list);
      const prefix = file.package === '' ? '.' : `.${file.package}.`;
      const addEnum = (e: EnumDescriptorProto, scope: string, tsScope: string, path: number[]) => {
        const info: EnumInfo = {
          kind: 'enum',
          typeName: scope + e.name,
          file,
          tsName: namer.claim(safeTypeName(tsScope + e.name)),
          proto: e,
          path,
        };
        this.types.set(info.typeName, info);
        list.push(info);
      };
      const addMessage = (m: DescriptorProto, scope: string, tsScope: string, path: number[]) => {
        const info: MessageInfo = {
          kind: 'message',
          typeName: scope + m.name,
          file,
          tsName: m.options?.mapEntry ? '' : namer.claim(safeTypeName(tsScope + m.name)),
          proto: m,
          path,
        };
        this.types.set(info.typeName, info);
        list.push(info);
        const inner = `${info.typeName}.`;
        const innerTs = `${tsScope}${m.name}_`;
        m.nestedType.forEach((n, i) => {
          addMessage(n, inner, innerTs, [...path, 3, i]);
        });
        m.enumType.forEach((e, i) => {
          addEnum(e, inner, innerTs, [...path, 4, i]);
        });
      };
      file.messageType.forEach((m, i) => {
        addMessage(m, prefix, '', [4, i]);
      });
      file.enumType.forEach((e, i) => {
        addEnum(e, prefix, '', [5, i]);
      });
    }
  }

  /** get looks a type up by its fully-qualified name with the leading dot. */
  get(typeName: string): TypeInfo | undefined {
    return this.types.get(typeName);
  }

  /** message looks a message up, or undefined if the name is not a message. */
  message(typeName: string): MessageInfo | undefined {
    const t = this.types.get(typeName);
    return t?.kind === 'message' ? t : undefined;
  }

  /** claimName reserves an extra top-level name (a client class) in a file's namespace. */
  claimName(file: string, wanted: string): string {
    let namer = this.namers.get(file);
    if (namer === undefined) {
      namer = new UniqueNames();
      this.namers.set(file, namer);
    }
    return namer.claim(safeTypeName(wanted));
  }
}
