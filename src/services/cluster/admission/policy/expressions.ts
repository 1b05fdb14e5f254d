/**
 * Admission CEL expressions (1.32 `admission/plugin/cel`): compiled once with the variables an
 * admission expression may use declared (`object`, `oldObject`, `request`, `params` when the
 * policy has a paramKind, `namespaceObject`, `authorizer`, `variables`), on the CRD rules' engine
 * and libraries (crd/cel), and evaluated with a metered interpreter: each call stops at the
 * per-call limit and every call of one evaluation draws on one budget.
 */
import { celMap, type CelValue } from '@bufbuild/cel';
import { analyze } from '../../crd/cel/analyze.ts';
import { type Expr, parseRule } from '../../crd/cel/ast.ts';
import { BOOL, type CelT, DYN, listOf, mapOf, NULL, STRING, typeName } from '../../crd/cel/cel-types.ts';
import { PER_CALL_LIMIT } from '../../crd/cel/cost-limits.ts';
import { Interpreter, Meter } from '../../crd/cel/interpreter.ts';
import { AUTHORIZER_TYPE } from '../../crd/cel/library-authz.ts';
import { CostLimitExceeded, fromCel, toCel, type Value } from '../../crd/cel/runtime-values.ts';

/** RUNTIME_CEL_COST_BUDGET is the budget of one policy evaluation (validations and the variables they use); matchConditions have 2.5 M. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;

/** OUT_OF_BUDGET is the apiserver's text for an evaluation that ran out of its budget. */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

/** Declarations say which optional variables an expression sees. */
export interface Declarations {
  readonly params: boolean;
  readonly authorizer: boolean;
  /** namespaceObject and variables are not declared in matchConditions. */
  readonly namespaceObject: boolean;
  /** variables: the types of the variables an expression may read (`variables.<name>`), or false where `variables` is undeclared. */
  readonly variables: false | ReadonlyMap<string, CelT>;
}

/** Compiled is one expression: its AST and the variables it reads, or its compile error. */
export type Compiled =
  | { readonly text: string; readonly expr: Expr; readonly variables: readonly string[]; readonly type: CelT; readonly error?: undefined }
  | { readonly text: string; readonly error: string };

function objectType(name: string, fields: Record<string, CelT>): CelT {
  return { kind: 'object', name, fields: new Map(Object.entries(fields)) };
}

const GVK = objectType('kubernetes.GroupVersionKind', { group: STRING, version: STRING, kind: STRING });
const GVR = objectType('kubernetes.GroupVersionResource', { group: STRING, version: STRING, resource: STRING });

/** REQUEST_TYPE is `request`'s declared type (1.32 `plugin/cel/compile.go` BuildRequestType): a misspelt field is a compile error, `request.name` a string. */
const REQUEST_TYPE = objectType('kubernetes.AdmissionRequest', {
  kind: GVK,
  resource: GVR,
  subResource: STRING,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: objectType('kubernetes.UserInfo', { username: STRING, uid: STRING, groups: listOf(STRING), extra: mapOf(STRING, listOf(STRING)) }),
  dryRun: BOOL,
  options: DYN,
});

function declarations(declared: Declarations): Map<string, CelT> {
  // namespaceObject stays dyn: its timestamps are JSON strings at evaluation.
  const map = new Map<string, CelT>([
    ['object', DYN],
    ['oldObject', DYN],
    ['request', REQUEST_TYPE],
  ]);
  if (declared.params) map.set('params', DYN);
  if (declared.namespaceObject) map.set('namespaceObject', DYN);
  if (declared.authorizer) map.set('authorizer', AUTHORIZER_TYPE);
  if (declared.variables !== false) map.set('variables', objectType('kubernetes.variables', Object.fromEntries(declared.variables)));
  return map;
}

/** variablesRead lists the `variables.<name>` an expression reads (to evaluate them before it, at most once a pass). */
function variablesRead(expr: Expr): string[] {
  const found = new Set<string>();
  const pending: unknown[] = [expr];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node === null || typeof node !== 'object') continue;
    const kind = (node as { exprKind?: { case?: string; value?: { operand?: Expr; field?: string } } }).exprKind;
    if (kind?.case === 'selectExpr') {
      const operand = kind.value?.operand;
      if (operand?.exprKind.case === 'identExpr' && operand.exprKind.value.name === 'variables' && kind.value?.field !== undefined) found.add(kind.value.field);
    }
    if (Array.isArray(node)) pending.push(...node);
    else for (const value of Object.values(node)) if (value !== null && typeof value === 'object') pending.push(value);
  }
  return [...found];
}

/**
 * ResultType is what an expression must evaluate to, as its upstream accessor's `ReturnTypes`
 * say: `bool` (validations, matchConditions), `string` (messageExpression), `string-or-null`
 * (auditAnnotations' valueExpression), `any` (variables).
 */
export type ResultType = 'bool' | 'string' | 'string-or-null' | 'any';

const RESULT_TYPES: Readonly<Record<Exclude<ResultType, 'any'>, readonly CelT[]>> = {
  bool: [BOOL],
  string: [STRING],
  'string-or-null': [STRING, NULL],
};

/**
 * compileExpression compiles `text`; `result` is the type it must have. As cel-go's
 * `IsExactType`, a `dyn` result is not a `bool` (`object.spec.paused` must be written
 * `object.spec.paused == true`). Errors read `compilation failed: ERROR: <input>:1:1: …`,
 * `must evaluate to bool but got string` or `must evaluate to one of [string null_type] but got dyn`.
 */
export function compileExpression(text: string, declared: Declarations, result: ResultType): Compiled {
  const parsed = parseRule(text);
  if ('error' in parsed) return { text, error: `compilation failed: ${parsed.error}` };
  const expr = parsed.parsed.expr;
  if (expr === undefined) return { text, error: 'compilation failed: empty expression' };
  const analysis = analyze(expr, parsed.source, declarations(declared));
  if (analysis.errors.length > 0) return { text, error: `compilation failed: ${analysis.errors.join('\n')}` };
  if (result !== 'any') {
    const wanted = RESULT_TYPES[result];
    const got = typeName(analysis.type);
    if (!wanted.some((type) => typeName(type) === got)) {
      const names = wanted.map(typeName);
      const reason = names.length === 1 ? `must evaluate to ${names[0]}` : `must evaluate to one of [${names.join(' ')}]`;
      return { text, error: `${reason} but got ${got}` };
    }
  }
  return { text, expr, variables: variablesRead(expr), type: analysis.type };
}

/**
 * compileVariables compiles a policy's variables in order, as upstream's composited compiler
 * does: each sees the ones before it, typed by what they evaluate to (one that does not compile
 * is `dyn`); `types` is what the policy's other expressions then see.
 */
export function compileVariables(
  variables: readonly { readonly name?: string; readonly expression?: string }[],
  declared: Omit<Declarations, 'variables'>,
): { readonly compiled: Map<string, Compiled>; readonly types: Map<string, CelT> } {
  const compiled = new Map<string, Compiled>();
  const types = new Map<string, CelT>();
  for (const variable of variables) {
    const result = compileExpression(variable.expression ?? '', { ...declared, variables: new Map(types) }, 'any');
    compiled.set(variable.name ?? '', result);
    types.set(variable.name ?? '', result.error === undefined ? result.type : DYN);
  }
  return { compiled, types };
}

/** Budget is what is left of one evaluation's cost budget. */
export class Budget {
  constructor(public remaining: number) {}
}

/** EvaluationError is a failed evaluation; `budget` marks one that ran out of the evaluation's budget. */
export interface EvaluationError {
  readonly error: string;
  readonly budget?: boolean;
}

/** Activation is one evaluation's variables: the request's values and the lazily evaluated `variables`. */
export class Activation {
  readonly #globals = new Map<string, Value>();
  readonly #values = new Map<string, Value>();
  readonly #failures = new Map<string, string>();

  constructor(
    globals: Readonly<Record<string, unknown>>,
    /** Values that are library objects rather than JSON (`authorizer`). */
    native: Readonly<Record<string, Value>>,
    readonly variables: ReadonlyMap<string, Compiled>,
    readonly budget: Budget,
  ) {
    for (const [name, value] of Object.entries(globals)) this.#globals.set(name, toValue(value));
    for (const [name, value] of Object.entries(native)) this.#globals.set(name, value);
  }

  /** evaluate runs an expression (its variables first); a value, or the error text. */
  evaluate(compiled: Compiled): { value: unknown } | EvaluationError {
    if (compiled.error !== undefined) return { error: `compilation error: ${compiled.error}` };
    for (const name of compiled.variables) {
      const failure = this.#variable(name, new Set());
      if (failure !== undefined) return { error: failure };
    }
    const globals = new Map(this.#globals);
    globals.set('variables', celMap(new Map([...this.#values].map(([k, v]) => [k, v as CelValue]))));
    return run(compiled.expr, globals, this.budget);
  }

  /** variable evaluates `variables.<name>` once; undefined when it has a value, else the composited error. */
  #variable(name: string, visiting: Set<string>): string | undefined {
    if (this.#values.has(name)) return undefined;
    const failed = this.#failures.get(name);
    if (failed !== undefined) return failed;
    const compiled = this.variables.get(name);
    // An unknown name stays unknown: the expression then fails with `no such key`.
    if (compiled === undefined || visiting.has(name)) return undefined;
    visiting.add(name);
    if (compiled.error !== undefined) {
      const failure = `composited variable "${name}" fails to compile: ${compiled.error}`;
      this.#failures.set(name, failure);
      return failure;
    }
    for (const dependency of compiled.variables) {
      const failure = this.#variable(dependency, visiting);
      if (failure !== undefined) return failure;
    }
    const globals = new Map(this.#globals);
    globals.set('variables', celMap(new Map([...this.#values].map(([k, v]) => [k, v as CelValue]))));
    const outcome = runRaw(compiled.expr, globals, this.budget);
    if ('error' in outcome) {
      const failure = `composited variable "${name}" fails to evaluate: ${outcome.error}`;
      this.#failures.set(name, failure);
      return failure;
    }
    this.#values.set(name, outcome.raw);
    return undefined;
  }
}

function toValue(value: unknown): Value {
  return toCel(value ?? null, undefined);
}

function runRaw(expr: Expr, globals: Map<string, Value>, budget: Budget): { raw: Value } | EvaluationError {
  const meter = new Meter(Math.min(PER_CALL_LIMIT, budget.remaining));
  try {
    const raw = new Interpreter(meter, globals).eval(expr, new Map());
    budget.remaining -= meter.cost;
    return { raw };
  } catch (error) {
    budget.remaining -= meter.cost;
    if (error instanceof CostLimitExceeded && meter.limit < PER_CALL_LIMIT) return { error: OUT_OF_BUDGET, budget: true };
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function run(expr: Expr, globals: Map<string, Value>, budget: Budget): { value: unknown } | EvaluationError {
  const outcome = runRaw(expr, globals, budget);
  if ('error' in outcome) return outcome;
  return { value: fromCel(outcome.raw) };
}
