/**
 * CEL's optional field and index syntax (`self.?spec.?replicas`, `self.labels[?'app']`), which
 * @bufbuild/cel's parser does not read: rewritten before parsing into member calls of two
 * internal functions (`._opt_select_('spec')`, `._opt_index_(key)`) that the checker and the
 * interpreter give the optional semantics. String literals are left alone. Optional list and map
 * literal entries (`[?x]`, `{?k: v}`) are not rewritten and stay syntax errors.
 */

/** OPT_SELECT and OPT_INDEX are the internal functions the syntax becomes. */
export const OPT_SELECT = '_opt_select_';
export const OPT_INDEX = '_opt_index_';

function stringEnd(text: string, start: number): number {
  // start is at a quote; handles triple quotes and raw prefixes (the prefix was already copied)
  const quote = text[start]!;
  const triple = text.startsWith(quote.repeat(3), start);
  const raw = /[rR]/.test(text[start - 1] ?? '') || /[rR]/.test(text[start - 2] ?? '');
  const close = triple ? quote.repeat(3) : quote;
  let i = start + close.length;
  while (i < text.length) {
    if (!raw && text[i] === '\\') {
      i += 2;
      continue;
    }
    if (text.startsWith(close, i)) return i + close.length;
    if (!triple && text[i] === '\n') return i;
    i++;
  }
  return text.length;
}

/** rewriteOptionalSyntax returns the text with `.?f` and `x[?k]` rewritten, or the text unchanged when it has none. */
export function rewriteOptionalSyntax(text: string): string {
  if (!text.includes('?')) return text;
  let out = '';
  const closers: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === '.' && text[i + 1] === '?') {
      const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 2));
      if (ident !== null) {
        out += `.${OPT_SELECT}('${ident[0]}')`;
        i += 2 + ident[0].length;
        continue;
      }
    }
    if (c === '[') {
      const after = /^\[\s*\?/.exec(text.slice(i));
      const before = out.trimEnd().at(-1) ?? '';
      if (after !== null && /[A-Za-z0-9_)\]'"]/.test(before)) {
        out += `.${OPT_INDEX}(`;
        closers.push(')');
        i += after[0].length;
        continue;
      }
      closers.push(']');
    }
    if (c === ']') {
      out += closers.pop() ?? ']';
      i++;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}
