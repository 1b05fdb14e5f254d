import { Edition, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';

/** fileEdition returns the Edition value a file is written in (proto2 and proto3 included). */
export function fileEdition(file: FileDescriptorProto): number {
  if (file.syntax === 'editions') return file.edition;
  if (file.syntax === 'proto3') return Edition.EDITION_PROTO3;
  return Edition.EDITION_PROTO2;
}

/** editionName prints an Edition the way protoc does: `2023`, `PROTO2`, or `UNKNOWN`. */
export function editionName(edition: number): string {
  const name = Edition[edition];
  if (name === undefined) return 'UNKNOWN';
  return name.replace(/^EDITION_/, '');
}

/** hasProto3Optional tells whether a proto3 file declares any `optional` field. */
export function hasProto3Optional(file: FileDescriptorProto): boolean {
  if (file.syntax !== 'proto3') return false;
  const stack = [...file.messageType];
  for (let m = stack.pop(); m !== undefined; m = stack.pop()) {
    for (const f of m.field) if (f.proto3Optional) return true;
    stack.push(...m.nestedType);
  }
  for (const e of file.extension) if (e.proto3Optional) return true;
  return false;
}
