import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { GeneratedCodeInfo_AnnotationSchema, GeneratedCodeInfoSchema, type GeneratedCodeInfo, type GeneratedCodeInfo_Annotation } from '@bufbuild/protobuf/wkt';

/**
 * updateCodeInfo rewrites `<file>.pb.meta` after an insertion, as protoc does: annotations
 * before the offset stay, the inserted annotations are shifted to where their text landed
 * (counting the indent added to each line), and later ones move by the inserted length.
 * Returns the new meta bytes, undefined when there is nothing to record, or an Error when the
 * existing meta file cannot be parsed. Only the wire format is read (text-format meta files,
 * which protoc also accepts, are reported as unparseable).
 */
export function updateCodeInfo(
  existing: Buffer | undefined,
  insertion: GeneratedCodeInfo | undefined,
  data: Buffer,
  offset: number,
  length: number,
  indent: number,
): Uint8Array | undefined | Error {
  const toInsert = insertion?.annotation ?? [];
  if (existing === undefined && toInsert.length === 0) return undefined;
  let current: GeneratedCodeInfo;
  try {
    current = existing === undefined ? create(GeneratedCodeInfoSchema) : fromBinary(GeneratedCodeInfoSchema, existing);
  } catch {
    return new Error('Could not parse metadata as wire or text format.');
  }
  const result: GeneratedCodeInfo_Annotation[] = [];
  let crossed = false;
  let add = 0;
  for (const a of current.annotation) {
    if (!crossed && a.begin >= offset) {
      crossed = true;
      result.push(...shifted(toInsert, data, offset, indent));
      add += length;
    }
    result.push(create(GeneratedCodeInfo_AnnotationSchema, { ...a, begin: a.begin + add, end: a.end + add }));
  }
  if (!crossed) result.push(...shifted(toInsert, data, offset, indent));
  return toBinary(GeneratedCodeInfoSchema, create(GeneratedCodeInfoSchema, { annotation: result }));
}

function shifted(annotations: readonly GeneratedCodeInfo_Annotation[], data: Buffer, offset: number, indent: number): GeneratedCodeInfo_Annotation[] {
  const out: GeneratedCodeInfo_Annotation[] = [];
  let pos = 0;
  let at = offset + indent;
  for (const a of annotations) {
    let inner = 0;
    for (; pos < a.end && pos < data.length - 1; pos++) {
      if (data[pos] === 0x0a) {
        if (pos >= a.begin) inner += indent;
        else at += indent;
      }
    }
    const begin = a.begin + at;
    at += inner;
    out.push(create(GeneratedCodeInfo_AnnotationSchema, { ...a, begin, end: a.end + at }));
  }
  return out;
}
