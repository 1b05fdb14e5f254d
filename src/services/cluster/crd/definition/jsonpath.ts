/**
 * Evaluation and printing of client-go JSONPath templates over JSON values (objects as decoded
 * from a request body or the store), with client-go's semantics: missing keys give no result when
 * allowed (printer columns allow them), out-of-range indexes and bad filters are errors, filter
 * comparisons follow Go template's `eq`/`lt` kinds (an integer never equals a float), maps and
 * lists print as JSON and scalars as Go's `fmt.Print` does.
 */
import { JsonPathError, type JsonPathList, type JsonPathNode, parseJsonPath, type SliceParam } from './jsonpath-parse.ts';
import { goFloat } from '../schema/json-values.ts';

export { JsonPathError, parseJsonPath } from './jsonpath-parse.ts';

/** GoFloat is a float literal of a template (`1.0`): Go keeps its kind apart from integers. */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** JsonPathOptions are client-go's switches. */
export interface JsonPathOptions {
  /** allowMissingKeys turns a field absent from every input into no result instead of an error. */
  readonly allowMissingKeys?: boolean;
}

/** evaluateJsonPath runs a parsed template over `data`: one result list per top-level node (client-go FindResults). */
export function evaluateJsonPath(template: JsonPathList, data: unknown, options: JsonPathOptions = {}): unknown[][] {
  return new Evaluator(options.allowMissingKeys === true).findResults(template.nodes, data, 0);
}

/** executeJsonPath parses, evaluates and prints a template, as `kubectl -o jsonpath=…` does. */
export function executeJsonPath(text: string, data: unknown, options: JsonPathOptions = {}): string {
  return evaluateJsonPath(parseJsonPath(text), data, options)
    .map((results) => printJsonPathResults(results))
    .join('');
}

/** printJsonPathResults prints one result list: each value as text (maps and lists as JSON), separated by spaces. */
export function printJsonPathResults(results: readonly unknown[]): string {
  return results.map((value) => printValue(value)).join(' ');
}

function printValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof GoFloat) return goFloat(value.value);
  if (typeof value === 'object') return goJson(value);
  if (typeof value === 'number') return Number.isInteger(value) ? goIntegerText(value) : goFloat(value);
  return String(value);
}

/** goIntegerText prints an integral number as Go prints an int64 (no exponent). */
function goIntegerText(value: number): string {
  return Number.isSafeInteger(value) ? String(value) : BigInt(value).toString();
}

/** goJson is Go's json.Marshal of a decoded JSON value: keys sorted, `<`, `>`, `&` and U+2028/9 escaped. */
export function goJson(value: unknown): string {
  let sorted: unknown;
  try {
    sorted = sortKeys(value);
  } catch (error) {
    // Only values nested thousands deep get here; the request-body depth limit keeps stored objects far shallower.
    if (error instanceof RangeError) throw new JsonPathError('value nested too deeply to print');
    throw error;
  }
  return JSON.stringify(sorted).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(value: unknown): unknown {
  if (value instanceof GoFloat) return value.value;
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    Object.defineProperty(sorted, key, { value: sortKeys((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return sorted;
}

/** Nesting of `range` blocks is bounded so a hostile template cannot exhaust the stack. */
const MAX_RANGE_DEPTH = 32;

class Evaluator {
  constructor(private readonly allowMissingKeys: boolean) {}

  findResults(nodes: readonly JsonPathNode[], data: unknown, depth: number): unknown[][] {
    if (depth > MAX_RANGE_DEPTH) throw new JsonPathError('range nested too deeply');
    const full: unknown[][] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (isIdentifierAction(node, 'end')) throw new JsonPathError('not in range, nothing to end');
      if (isIdentifierAction(node, 'range')) {
        const values = this.walk([data], node);
        const end = matchingEnd(nodes, i);
        const body = nodes.slice(i + 1, end === -1 ? nodes.length : end);
        for (const value of values) full.push(...this.findResults(body, value, depth + 1));
        if (end === -1) break;
        i = end;
        continue;
      }
      full.push(this.walk([data], node));
    }
    return full;
  }

  private walk(input: unknown[], node: JsonPathNode): unknown[] {
    switch (node.type) {
      case 'list':
        return this.evalList(input, node);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node.name);
      case 'array':
        return this.evalArray(input, node.params);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new GoFloat(node.value));
      case 'bool':
        return input.map(() => node.value);
      case 'wildcard':
        return input.flatMap((value) => children(value) ?? []);
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return node.nodes.flatMap((list) => this.evalList(input, list));
      case 'identifier':
        if (node.name === 'range') return input;
        if (node.name === 'end') throw new JsonPathError('not in range, nothing to end');
        throw new JsonPathError(`unrecognized identifier ${node.name}`);
    }
  }

  private evalList(input: unknown[], list: JsonPathList): unknown[] {
    let current = input;
    for (const node of list.nodes) current = this.walk(current, node);
    return current;
  }

  private evalField(input: unknown[], name: string): unknown[] {
    const results: unknown[] = [];
    if (input.length === 0) return results;
    for (const value of input) {
      if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value) || value instanceof GoFloat) continue;
      if (Object.hasOwn(value, name)) results.push((value as Record<string, unknown>)[name]);
    }
    if (results.length === 0 && !this.allowMissingKeys) throw new JsonPathError(`${name} is not found`);
    return results;
  }

  private evalArray(input: unknown[], written: readonly [SliceParam, SliceParam, SliceParam]): unknown[] {
    const result: unknown[] = [];
    for (const value of input) {
      if (value === null || value === undefined) continue;
      if (!Array.isArray(value)) throw new JsonPathError(`${goTypeName(value)} is not array or slice`);
      const params: [SliceParam, SliceParam, SliceParam] = [{ ...written[0] }, { ...written[1] }, { ...written[2] }];
      if (!params[0].known) params[0].value = 0;
      if (params[0].value < 0) params[0].value += value.length;
      if (!params[1].known) params[1].value = value.length;
      if (params[1].value < 0 || (params[1].value === 0 && params[1].derived)) params[1].value += value.length;
      const length = value.length;
      if (params[1].value === params[0].value) return result;
      if (params[0].value >= length || params[0].value < 0) throw new JsonPathError(`array index out of bounds: index ${params[0].value}, length ${length}`);
      if (params[1].value > length || params[1].value < 0) throw new JsonPathError(`array index out of bounds: index ${params[1].value - 1}, length ${length}`);
      if (params[0].value > params[1].value) throw new JsonPathError(`starting index ${params[0].value} is greater than ending index ${params[1].value}`);
      const slice = value.slice(params[0].value, params[1].value);
      let step = 1;
      if (params[2].known) {
        if (params[2].value <= 0) throw new JsonPathError('step must be > 0');
        step = params[2].value;
      }
      for (let i = 0; i < slice.length; i += step) result.push(slice[i]);
    }
    return result;
  }

  private evalRecursive(input: unknown[]): unknown[] {
    const result: unknown[] = [];
    // An explicit stack, depth first in client-go's order: each value, then its descendants.
    const pending: unknown[][] = [input.slice()];
    const out: unknown[] = [];
    while (pending.length > 0) {
      const level = pending.at(-1)!;
      if (level.length === 0) {
        pending.pop();
        continue;
      }
      const value = level.shift();
      if (value === null || value === undefined) continue;
      const kids = children(value);
      if (kids !== undefined && kids.length > 0) {
        out.push(value);
        pending.push(kids.slice());
      }
    }
    result.push(...out);
    return result;
  }

  private evalFilter(input: unknown[], node: Extract<JsonPathNode, { type: 'filter' }>): unknown[] {
    const results: unknown[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) throw new JsonPathError(`${goPrintValue(value)} is not array or slice and cannot be filtered`);
      for (const item of value) {
        if (node.operator === 'exists') {
          let lefts: unknown[] = [];
          try {
            lefts = this.evalList([item], node.left);
          } catch {
            lefts = [];
          }
          if (lefts.length > 0) results.push(item);
          continue;
        }
        const lefts = this.evalList([item], node.left);
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new JsonPathError('can only compare one element at a time');
        const rights = this.evalList([item], node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new JsonPathError('can only compare one element at a time');
        if (compare(node.operator, lefts[0], rights[0])) results.push(item);
      }
    }
    return results;
  }
}

function isIdentifierAction(node: JsonPathNode, name: string): boolean {
  return node.type === 'list' && node.nodes.some((child) => child.type === 'identifier' && child.name === name);
}

function matchingEnd(nodes: readonly JsonPathNode[], rangeIndex: number): number {
  let open = 1;
  for (let k = rangeIndex + 1; k < nodes.length; k++) {
    const node = nodes[k]!;
    if (isIdentifierAction(node, 'range')) open++;
    else if (isIdentifierAction(node, 'end') && --open === 0) return k;
  }
  return -1;
}

/** children are the values a wildcard or recursive descent visits: map values, list items, a string's bytes. */
function children(value: unknown): unknown[] | undefined {
  if (value === null || value === undefined || value instanceof GoFloat) return undefined;
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...new TextEncoder().encode(value)];
  if (typeof value === 'object') return Object.values(value);
  return undefined;
}

type Kind = 'bool' | 'int' | 'float' | 'string';

function kindOf(value: unknown): Kind {
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  if (value instanceof GoFloat) return 'float';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  throw new JsonPathError('invalid type for comparison');
}

function numeric(value: unknown): number {
  return value instanceof GoFloat ? value.value : (value as number);
}

function less(a: unknown, b: unknown): boolean {
  const ka = kindOf(a);
  if (ka !== kindOf(b)) throw new JsonPathError('incompatible types for comparison');
  if (ka === 'bool') throw new JsonPathError('invalid type for comparison');
  if (ka === 'string') return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string)) < 0;
  return numeric(a) < numeric(b);
}

function equal(a: unknown, b: unknown): boolean {
  const ka = kindOf(a);
  if (ka !== kindOf(b)) throw new JsonPathError('incompatible types for comparison');
  if (ka === 'int' || ka === 'float') return numeric(a) === numeric(b);
  return a === b;
}

function compare(operator: string, left: unknown, right: unknown): boolean {
  switch (operator) {
    case '<':
      return less(left, right);
    case '>':
      return !(less(left, right) || equal(left, right));
    case '==':
      return equal(left, right);
    case '!=':
      return !equal(left, right);
    case '<=':
      return less(left, right) || equal(left, right);
    case '>=':
      return !less(left, right);
    default:
      throw new JsonPathError(`unrecognized filter operator ${operator}`);
  }
}

function goTypeName(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (value instanceof GoFloat) return 'float64';
  return 'map[string]interface {}';
}

function goPrintValue(value: unknown): string {
  if (value === null || value === undefined) return '<invalid reflect.Value>';
  if (typeof value === 'object' && !(value instanceof GoFloat)) return `map[${Object.keys(value).sort().join(' ')}]`;
  return printValue(value);
}
