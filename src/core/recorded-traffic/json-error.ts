/**
 * Where JSON text stops being JSON, as a line and column: V8's JSON.parse gives an offset for some
 * mistakes and none for others (`Unexpected token 'x', "…" is not valid JSON`), so a file that
 * does not parse is scanned once more by this small validator, which finds the first offending
 * character itself. Only run on text JSON.parse refused.
 */

/** JsonProblem is the first place the text is not JSON, 1-based, and what was expected there. */
export interface JsonProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** jsonProblemOf scans `text` and says where it first fails to be JSON (undefined when it is JSON). */
export function jsonProblemOf(text: string): JsonProblem | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { offset: i });
  };
  const space = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const what = (): string => (i >= text.length ? 'the end of the text' : JSON.stringify(text[i]));
  const string = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const code = text.charCodeAt(i);
      if (code < 0x20) fail('a control character inside a string');
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('a \\u escape needs four hex digits');
          i += 5;
          continue;
        }
        if (i >= text.length || !'"\\/bfnrt'.includes(text[i]!)) fail(`an invalid escape \\${text[i] ?? ''}`);
      }
      i++;
    }
    if (i >= text.length) fail('a string that never ends');
    i++;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail('nesting too deep');
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail(`expected a double-quoted member name, found ${what()}`);
        string();
        space();
        if (text[i] !== ':') fail(`expected ':' after a member name, found ${what()}`);
        i++;
        value(depth + 1);
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail(`expected ',' or '}' in an object, found ${what()}`);
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail(`expected ',' or ']' in a list, found ${what()}`);
      }
    }
    if (c === '"') {
      string();
      return;
    }
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    i += literal === null ? fail(`expected a value, found ${what()}`) : literal[0].length;
  };
  try {
    value(0);
    space();
    if (i < text.length) fail(`unexpected ${what()} after the value`);
    return undefined;
  } catch (error) {
    const offset = (error as { offset?: number }).offset ?? i;
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    return { line, column: offset - before.lastIndexOf('\n'), message: (error as Error).message };
  }
}
