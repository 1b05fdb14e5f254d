/**
 * The YAML request body parser, bounded like the JSON one: nesting deeper than MAX_JSON_DEPTH is
 * refused before the YAML library builds anything, and alias expansion is capped.
 *
 * Why before: the library composes and converts documents recursively, and a body of a few
 * thousand `[` (or `- `, or `{a: `) exhausts the stack inside it; right after a stack overflow V8
 * may abort the whole process while compiling a regular expression (seen with
 * `'['.repeat(20000)` sent twice). So the depth is measured first, without recursion, over the
 * library's own lexer (a flat state machine that knows quotes, block scalars and plain scalars,
 * which a hand-written bracket count would misread), and the scan stops at the first token past
 * the limit. What the lexer tells is an upper bound of block nesting (one level per rolled
 * indentation, as Go's YAML scanner counts it) plus flow nesting; the parsed value is then
 * measured exactly, since aliases can nest a value deeper than its text.
 *
 * And bounded in time: the library costs about 1–3 µs per byte, so a body near the 1 MiB limit
 * that is not JSON would hold the event loop (every family's requests) for seconds. `yamlBodies`
 * parses bodies past INLINE_YAML_LIMIT on a worker thread (yaml-worker-pool.ts), with a deadline.
 */
import { findTooDeep, MAX_JSON_DEPTH } from './json-body.ts';
import { commonJs, loadOnFirstUse } from './lazy.ts';
import { YamlAliasingError, YamlBusyError, YamlTooDeepError } from './yaml-errors.ts';

/** MAX_YAML_ALIAS_COUNT is the `yaml` library's maxAliasCount: how many nodes one alias may stand for, weighted by its uses. */
export const MAX_YAML_ALIAS_COUNT = 100;

/** The lexer's markers: not source text (see the library's `CST` constants). */
const DOCUMENT = '\x02';
const FLOW_END = '\x18';
const SCALAR = '\x1f';

/**
 * findTooDeepYaml scans YAML text with the library's lexer and returns the 1-based line of the
 * first token that opens a collection past `limit` levels, or undefined.
 */
export function findTooDeepYaml(lex: (text: string) => Iterable<string>, text: string, limit: number = MAX_JSON_DEPTH): number | undefined {
  // A text with no more structure characters than the limit cannot nest past it.
  if (!hasMoreStructure(text, limit)) return undefined;
  let line = 0;
  let column = 0;
  let atLineStart = true;
  let flow = 0;
  // Columns of the enclosing block collections, increasing (the scanner's indentation stack).
  let indents: number[] = [];
  // Where the node the next `:` belongs to starts, and whether the next token starts a node.
  let nodeColumn = 0;
  let expectNode = true;
  let afterScalarMarker = false;
  const roll = (at: number): void => {
    if (indents.length === 0 || at > indents[indents.length - 1]!) indents.push(at);
  };
  for (const token of lex(text)) {
    const scalarText = afterScalarMarker;
    afterScalarMarker = false;
    if (!scalarText && (token === DOCUMENT || token === FLOW_END || token === SCALAR)) {
      if (token === DOCUMENT) {
        indents = [];
        flow = 0;
      } else if (token === FLOW_END) flow = 0;
      else afterScalarMarker = true;
      continue;
    }
    const first = token[0];
    const layout = !scalarText && (token === '' || first === '\n' || first === '\r' || first === ' ' || first === '\t' || first === '#');
    if (!layout) {
      if (atLineStart) {
        if (flow === 0) while (indents.length > 0 && indents[indents.length - 1]! > column) indents.pop();
        nodeColumn = column;
        expectNode = false;
      } else if (expectNode) {
        nodeColumn = column;
        expectNode = false;
      }
      atLineStart = false;
      if (!scalarText) {
        switch (token) {
          case '-':
          case '?':
            if (flow === 0) roll(column);
            expectNode = true;
            break;
          case ':':
            if (flow === 0) roll(nodeColumn);
            expectNode = true;
            break;
          case '[':
          case '{':
            flow++;
            expectNode = true;
            break;
          case ']':
          case '}':
            if (flow > 0) flow--;
            break;
          case ',':
            expectNode = true;
            break;
          case '---':
          case '...':
            indents = [];
            flow = 0;
            break;
        }
      }
      if (indents.length + flow > limit) return line + 1;
    }
    // Advance the position over the token's source text.
    const lastNewline = token.lastIndexOf('\n');
    if (lastNewline === -1) column += token.length;
    else {
      for (let at = token.indexOf('\n'); at !== -1; at = token.indexOf('\n', at + 1)) line++;
      column = token.length - lastNewline - 1;
      atLineStart = token.slice(lastNewline + 1).trim() === '';
    }
  }
  return undefined;
}

/** hasMoreStructure tells whether `text` holds more than `limit` characters that can open a level (`[`, `{`, `-`, `?`, `:`, a line break). */
function hasMoreStructure(text: string, limit: number): boolean {
  let count = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if ((code === 0x5b || code === 0x7b || code === 0x2d || code === 0x3f || code === 0x3a || code === 0x0a) && ++count > limit) return true;
  }
  return false;
}

/**
 * nestsDeeperThan tells, without recursion, whether a parsed value holds containers more than
 * `limit` levels deep. Aliases make the value a graph: a node is walked again only when reached
 * deeper than before, so shared subtrees cost little, and a cycle (`&a [*a]`) counts as too deep.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const deepest = new Map<object, number>();
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    if ((deepest.get(node) ?? 0) >= depth) continue;
    deepest.set(node, depth);
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * parseJsonText parses a YAML body that is JSON text (what kubectl and most clients send as
 * `application/apply-patch+yaml`) with JSON.parse, which reads it as the YAML parser would and
 * about a hundred times faster: the `yaml` library takes seconds over a megabyte, and even its
 * lexer (the depth scan) a quarter of a second. Undefined when the text is not JSON, or nests
 * past the limit (the YAML path then refuses it, naming the line as for any YAML body).
 */
function parseJsonText(text: string): { readonly value: unknown } | undefined {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  // Brackets outside strings are the depth of JSON text exactly, and counting them costs little.
  if (findTooDeep(text) !== undefined) return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** YamlLibrary is the part of the `yaml` package the body parser uses. */
export interface YamlLibrary {
  parse(text: string, options: { maxAliasCount: number; uniqueKeys: boolean }): unknown;
  Lexer: new () => { lex(source: string): Iterable<string> };
}

/**
 * yamlBodyParser returns the body parser over a loaded `yaml` package: the depth scan, the parse
 * with maxAliasCount, the depth of the value; YamlTooDeepError and YamlAliasingError for bodies
 * refused, the library's own errors for text that is not YAML. A repeated mapping key keeps its
 * last value, as go-yaml v2's plain decoding (sigs.k8s.io/yaml) does; the library's own check
 * would refuse it, comparing every key with every other (tens of seconds for 60,000 keys).
 */
export function yamlBodyParser(library: YamlLibrary): (text: string) => unknown {
  const lex = (text: string): Iterable<string> => new library.Lexer().lex(text);
  return (text) => {
    const json = parseJsonText(text);
    if (json !== undefined) return json.value;
    const line = findTooDeepYaml(lex, text);
    if (line !== undefined) throw new YamlTooDeepError(line);
    let value: unknown;
    try {
      value = library.parse(text, { maxAliasCount: MAX_YAML_ALIAS_COUNT, uniqueKeys: false });
    } catch (error) {
      if (error instanceof ReferenceError && /Excessive alias count/.test(error.message)) throw new YamlAliasingError();
      throw error;
    }
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new YamlTooDeepError(undefined);
    return value;
  };
}

/** loadYamlBodyParser loads the `yaml` package (CommonJS for Node) on first use and returns the bounded body parser. */
export async function loadYamlBodyParser(): Promise<(text: string) => unknown> {
  return yamlBodyParser(commonJs(await import('yaml')) as unknown as YamlLibrary);
}

/**
 * INLINE_YAML_LIMIT is the longest YAML body (UTF-16 units) parsed on the event loop: about 10 ms
 * of the library's work on this project's shared 2-core machine (bench/cluster-yaml-body.ts: 2 KiB
 * about 2 ms; 4 KiB 5-12 ms; 8 KiB 8-30 ms, as the load varies). Hand-written YAML is mostly
 * shorter; kubectl sends JSON.
 */
export const INLINE_YAML_LIMIT = 4 * 1024;

/** YAML_DEADLINE_MS is how long one body may take to decode on a worker thread: about three times a 1 MiB mapping's worst measured time. */
export const YAML_DEADLINE_MS = 10_000;

/** YamlBodyOptions tune yamlBodies; tests shrink them. */
export interface YamlBodyOptions {
  /** Bodies up to this length parse on the calling thread (INLINE_YAML_LIMIT). */
  readonly inlineLimit?: number;
  /** How long a body may wait for, then take on, a worker thread (YAML_DEADLINE_MS). */
  readonly deadlineMs?: number;
  /** Worker threads at most (two, or one on a single core). */
  readonly workers?: number;
  /** Bodies that may wait for a busy worker before more are refused (8). */
  readonly queueLimit?: number;
  /** How long an idle worker is kept before it ends (30 s): idle memory. */
  readonly idleMs?: number;
}

/** YamlBodies parses YAML request bodies without holding the event loop; close() ends its worker threads. */
export interface YamlBodies {
  parse(text: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * yamlBodies is the YAML body parser of one app. Short bodies and JSON text parse at once on the
 * calling thread; longer YAML goes to a small pool of worker threads, started on first need (none
 * at start-up: its code, the threads and their memory cost nothing until a large body comes).
 * Answers and refusals are the same either way: the worker runs yamlBodyParser, and its typed
 * errors are rebuilt here.
 */
export function yamlBodies(options: YamlBodyOptions = {}): YamlBodies {
  const inlineLimit = options.inlineLimit ?? INLINE_YAML_LIMIT;
  const inline = loadOnFirstUse(loadYamlBodyParser);
  const pool = loadOnFirstUse(async () => new (await import('./yaml-worker-pool.ts')).YamlWorkerPool(options));
  let closed = false;
  return {
    async parse(text) {
      if (text.length <= inlineLimit) return (inline.ready() ?? (await inline()))(text);
      const json = parseJsonText(text);
      if (json !== undefined) return json.value;
      if (closed) throw new YamlBusyError('closing');
      return (pool.ready() ?? (await pool())).parse(text);
    },
    async close() {
      closed = true;
      await (await pool.loaded()?.catch(() => undefined))?.close();
    },
  };
}
