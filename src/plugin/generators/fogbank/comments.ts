import type { FileDescriptorProto } from '@bufbuild/protobuf/wkt';

/** CommentIndex finds a declaration's leading comment by its source path, in O(1). */
export class CommentIndex {
  private readonly byPath = new Map<string, string>();

  /** constructor indexes every location once; the naive per-element scan is what makes other generators quadratic. */
  constructor(file: FileDescriptorProto) {
    for (const loc of file.sourceCodeInfo?.location ?? []) {
      const text = loc.leadingComments || loc.trailingComments;
      if (text) this.byPath.set(loc.path.join(','), text);
    }
  }

  /** jsDoc returns a JSDoc block for the path, indented, or "" when there is no comment. */
  jsDoc(path: readonly number[], indent: string, extra?: string): string {
    const text = this.byPath.get(path.join(','));
    const lines = text === undefined ? [] : trimLines(text);
    if (extra !== undefined) {
      if (lines.length > 0) lines.push('');
      lines.push(extra);
    }
    if (lines.length === 0) return '';
    if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
    return `${indent}/**\n${lines.map((l) => (l === '' ? `${indent} *\n` : `${indent} * ${l}\n`)).join('')}${indent} */\n`;
  }

  /** raw returns the comment text for the path, or undefined. */
  raw(path: readonly number[]): string | undefined {
    return this.byPath.get(path.join(','));
  }
}

function trimLines(text: string): string[] {
  const lines = text
    .replace(/\*\//g, '*\\/')
    .split('\n')
    .map((l) => l.replace(/^ /, '').trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  return lines;
}
