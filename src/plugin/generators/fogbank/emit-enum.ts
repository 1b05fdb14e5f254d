import type { FileEmitter } from './file-emitter.ts';
import type { EnumInfo } from './type-index.ts';

/** emitEnum renders an enum as the union of its value names, which is its proto3 JSON form. */
export function emitEnum(e: FileEmitter, info: EnumInfo, out: string[]): void {
  out.push(e.doc(info.path, ''), `export type ${info.tsName} =\n`);
  const values = info.proto.value;
  values.forEach((v, i) => {
    out.push(e.doc([...info.path, 2, i], '  '), `  | ${JSON.stringify(v.name)}${i === values.length - 1 ? ';' : ''}\n`);
  });
  out.push('\n');
}
