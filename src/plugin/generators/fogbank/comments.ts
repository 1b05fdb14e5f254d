import type { SourceComments } from '../../runtime/index.ts';

/** CommentIndex finds a declaration's leading comment (else its trailing one) by its source path, in O(1). */
export class CommentIndex {
  /** constructor takes the file's comments by path, indexed once by the runtime; the naive per-element scan is what makes other generators quadratic. */
  constructor(private readonly byPath: SourceComments) {}

  /** jsDoc returns a JSDoc block for the path, indented, or "" when there is no comment. */
  jsDoc(path: readonly number[], indent: string, extra?: string): string {
    const text = this.raw(path);
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
    const found = this.byPath.get(path.join(','));
    if (found === undefined) return undefined;
    return found.leading || found.trailing;
  }
}

// One leading space (protoc keeps the one after `//`) and trailing blanks go from each line, and
// blank lines from both ends; `*/` is escaped so the text cannot close the JSDoc block. Written
// as a loop over the lines rather than a regex per line: compute.proto has 20k comments.
function trimLines(text: string): string[] {
  const escaped = text.includes('*/') ? text.replaceAll('*/', '*\\/') : text;
  const lines = escaped.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    lines[i] = (line.charCodeAt(0) === 32 ? line.slice(1) : line).trimEnd();
  }
  let end = lines.length;
  while (end > 0 && lines[end - 1] === '') end--;
  let start = 0;
  while (start < end && lines[start] === '') start++;
  return start === 0 && end === lines.length ? lines : lines.slice(start, end);
}
