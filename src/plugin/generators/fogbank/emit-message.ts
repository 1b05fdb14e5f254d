import type { FieldDescriptorProto } from '@bufbuild/protobuf/wkt';
import { insertionPointMarker } from '../../runtime/index.ts';
import type { FileEmitter } from './file-emitter.ts';
import { propertyKey } from './names.ts';
import type { MessageInfo } from './type-index.ts';

/**
 * emitMessage renders a message as its proto3 JSON shape. Fields use their JSON names and are
 * optional (JSON omits defaults) unless proto2/editions make them required; each real oneof
 * becomes a union in which at most one member is present. The body carries the insertion point
 * `message_scope:<full name>` so another generator can add members.
 */
export function emitMessage(e: FileEmitter, m: MessageInfo, out: string[]): void {
  const fullName = m.typeName.slice(1);
  const plain: string[] = [];
  const oneofs = new Map<number, { field: FieldDescriptorProto; line: string; key: string }[]>();
  m.proto.field.forEach((field, i) => {
    const path = [...m.path, 2, i];
    const key = propertyKey(field.jsonName || field.name);
    const type = e.fieldType(field, m, path);
    const oneof = e.realOneof(field);
    if (oneof === undefined) {
      plain.push(e.doc(path, '  '), `  ${key}${e.isRequired(field) ? '' : '?'}: ${type};\n`);
      return;
    }
    const members = oneofs.get(oneof) ?? [];
    members.push({ field, key, line: `${e.doc(path, '      ')}      ${key}: ${type};\n` });
    oneofs.set(oneof, members);
  });
  out.push(e.doc(m.path, ''));
  const marker = `  // ${insertionPointMarker(`message_scope:${fullName}`)}\n`;
  if (oneofs.size === 0) {
    out.push(`export interface ${m.tsName} {\n`, ...plain, marker, '}\n\n');
    return;
  }
  out.push(`export type ${m.tsName} = {\n`, ...plain, marker, '}');
  for (const [index, members] of oneofs) {
    const name = m.proto.oneofDecl[index]?.name ?? String(index);
    out.push(` & (\n    // oneof ${name}\n`);
    for (const member of members) {
      out.push('  | {\n', member.line);
      for (const other of members) if (other !== member) out.push(`      ${other.key}?: never;\n`);
      out.push('    }\n');
    }
    out.push('  | {\n');
    for (const member of members) out.push(`      ${member.key}?: never;\n`);
    out.push('    }\n)');
  }
  out.push(';\n\n');
}
