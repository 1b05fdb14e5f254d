/** InsertResult is where protoc put the content: the new file, the offset and the indent used. */
export interface InsertResult {
  readonly file: Buffer;
  readonly offset: number;
  readonly indent: number;
  /** data is the inserted content after the trailing-newline fix, before indentation. */
  readonly data: Buffer;
}

/**
 * protocInsert applies one insertion exactly as protoc's MemoryOutputStream does: a missing
 * final newline is added; the first `@@protoc_insertion_point(NAME)` wins; `/* @@...` one
 * character after `/*` is the inline form (inserted mid-line); otherwise the content goes above
 * the marker's line with that line's leading spaces and tabs added to every line, empty lines
 * included. Returns undefined when the marker is missing.
 */
export function protocInsert(target: Buffer, point: string, content: Buffer): InsertResult | undefined {
  const data = content.length > 0 && content[content.length - 1] !== 0x0a ? Buffer.concat([content, Buffer.from('\n')]) : content;
  let pos = target.indexOf(`@@protoc_insertion_point(${point})`);
  if (pos < 0) return undefined;
  if (pos > 3 && target[pos - 3] === 0x2f && target[pos - 2] === 0x2a) {
    pos -= 3;
  } else {
    pos = pos === 0 ? 0 : target.lastIndexOf(0x0a, pos - 1) + 1;
  }
  let end = pos;
  while (end < target.length && (target[end] === 0x20 || target[end] === 0x09)) end++;
  const indent = target.subarray(pos, end);
  if (indent.length === 0 || data.length === 0) {
    return { file: Buffer.concat([target.subarray(0, pos), data, target.subarray(pos)]), offset: pos, indent: indent.length, data };
  }
  const parts: Buffer[] = [target.subarray(0, pos)];
  let start = 0;
  while (start < data.length) {
    const nl = data.indexOf(0x0a, start);
    parts.push(indent, data.subarray(start, nl + 1));
    start = nl + 1;
  }
  parts.push(target.subarray(pos));
  return { file: Buffer.concat(parts), offset: pos, indent: indent.length, data };
}

/**
 * bufInsert applies one insertion as `buf generate` does: before every line containing the
 * marker, with that line's Unicode leading whitespace on each inserted line, lines split the
 * way Go's bufio.Scanner splits them (a `\r` before `\n` dropped), and the file's final newline
 * dropped. Returns undefined when no line has the marker.
 */
export function bufInsert(target: Buffer, point: string, content: Buffer): Buffer | undefined {
  const marker = `@@protoc_insertion_point(${point})`;
  const lines = scanLines(target.toString('utf8'));
  const inserted = scanLines(content.toString('utf8'));
  const out: string[] = [];
  let found = false;
  for (const line of lines) {
    if (line.includes(marker)) {
      found = true;
      const ws = /^\s*/u.exec(line)?.[0] ?? '';
      for (const ins of inserted) out.push(ws + ins + '\n');
    }
    out.push(line + '\n');
  }
  if (!found) return undefined;
  const joined = out.join('');
  return Buffer.from(joined.slice(0, joined.length - 1), 'utf8');
}

// Go's bufio.ScanLines: split on \n, drop one trailing \r per line, no empty last token.
function scanLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}
