/**
 * Runs compiled rules on a custom object as the apiserver's CEL validator does: each rule at its
 * schema node (through properties, list items and map values; null values skipped), `oldSelf`
 * from the correlated old value (map keys, list-type=map items by their keys), transition rules
 * skipped where there is none unless `optionalOldSelf`, messageExpression with fallback to message,
 * reason and fieldPath, the per-call and per-object cost budgets, and ratcheting: a failure of a
 * rule without `oldSelf` on a value equal to its old value is a warning, not an error.
 */
import { duplicate, type FieldError, forbidden, invalid, required } from '../../apimachinery/field-errors.ts';
import { fieldErrorText } from '../../apimachinery/field-errors.ts';
import { correlatedEqual, listCorrelation } from '../schema/correlation.ts';
import type { JSONSchemaProps, ValidationRule } from '../types.ts';
import type { CompiledRule, RuleNode } from './compile.ts';
import { MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './cost-limits.ts';
import { Interpreter, Meter } from './interpreter.ts';
import { CostLimitExceeded, NONE, Optional, toCel, type Value } from './runtime-values.ts';

interface State {
  budget: number;
  stopped: boolean;
  errors: FieldError[];
  warnings: string[];
  perCallLimit: number;
  /** ratcheting: failures of unchanged values become warnings (every update but a `/status` write, which the apiserver validates without ratcheting). */
  ratcheting: boolean;
}

function ruleErrorString(rule: ValidationRule): string {
  return typeof rule.message === 'string' && rule.message.length > 0 ? rule.message.trim() : rule.rule.trim();
}

function typeValue(schema: JSONSchemaProps): string {
  return schema.type ?? '';
}

function failure(path: string, schema: JSONSchemaProps, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, typeValue(schema));
    default:
      return invalid(path, typeValue(schema), detail);
  }
}

function run(expr: CompiledRule['expr'], globals: Map<string, Value>, state: State): { value?: Value; error?: unknown; cost: number } {
  const meter = new Meter(state.perCallLimit);
  try {
    const value = new Interpreter(meter, globals).eval(expr, new Map());
    return { value, cost: meter.cost };
  } catch (error) {
    return { error, cost: meter.cost };
  }
}

/** printedPath is a path as field.Path prints it: the root (a nil path) prints as `<nil>`. */
function printedPath(path: string): string {
  return path === '' ? '<nil>' : path;
}

/** withFieldPath appends a rule's fieldPath to its node's path (`spec` + `.replicas`; at the root just `replicas`). */
function withFieldPath(path: string, suffix: string): string {
  if (suffix === '') return printedPath(path);
  return path === '' ? suffix.replace(/^\./, '') : path + suffix;
}

function evaluateRules(node: RuleNode, nodePath: string, value: unknown, old: unknown, ratchet: boolean, state: State): void {
  if (node.rules.length === 0) return;
  const path = printedPath(nodePath);
  if (state.budget <= 0) {
    state.errors.push(invalid(path, typeValue(node.schema), 'validation failed due to running out of cost budget, no further validation rules will be run'));
    state.stopped = true;
    return;
  }
  let self: Value;
  let oldSelf: Value | undefined;
  try {
    self = toCel(node.resourceRoot ? visibleResource(value) : value, node.schema);
    oldSelf = old === undefined || old === null ? undefined : toCel(node.resourceRoot ? visibleResource(old) : old, node.schema);
  } catch (error) {
    // Only a value nested past toCel's depth limit gets here; the decoder's own limits normally refuse it first.
    state.errors.push(invalid(path, typeValue(node.schema), error instanceof Error ? error.message : String(error)));
    return;
  }
  for (const compiled of node.rules) {
    const { rule } = compiled;
    if (compiled.usesOldSelf && oldSelf === undefined && !compiled.optionalOldSelf) continue;
    const globals = new Map<string, Value>([['self', self]]);
    if (compiled.optionalOldSelf) globals.set('oldSelf', oldSelf === undefined ? NONE : new Optional(oldSelf));
    else if (oldSelf !== undefined) globals.set('oldSelf', oldSelf);
    const result = run(compiled.expr, globals, state);
    if (result.error instanceof CostLimitExceeded) {
      state.errors.push(
        invalid(
          path,
          typeValue(node.schema),
          `'${result.error.message}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
        ),
      );
      state.stopped = true;
      return;
    }
    if (result.cost > state.budget) {
      state.errors.push(invalid(path, typeValue(node.schema), 'validation failed due to running out of cost budget, no further validation rules will be run'));
      state.stopped = true;
      return;
    }
    state.budget -= result.cost;
    if (result.error !== undefined) {
      const message = result.error instanceof Error ? result.error.message : String(result.error);
      if (message.startsWith('no such overload')) {
        state.errors.push(
          invalid(
            path,
            typeValue(node.schema),
            `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`,
          ),
        );
      } else {
        state.errors.push(invalid(path, typeValue(node.schema), `${message} evaluating rule: ${ruleErrorString(rule)}`));
      }
      continue;
    }
    if (result.value === true) continue;
    const errorPath = withFieldPath(nodePath, compiled.fieldSuffix);
    let detail: string | undefined;
    if (compiled.messageExpr !== undefined) {
      const message = run(compiled.messageExpr, globals, state);
      if (message.error instanceof CostLimitExceeded) {
        state.errors.push(
          invalid(
            errorPath,
            typeValue(node.schema),
            `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.messageExpression)}`,
          ),
        );
        state.stopped = true;
        return;
      }
      if (message.cost > state.budget) {
        state.errors.push(
          invalid(
            errorPath,
            typeValue(node.schema),
            'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
          ),
        );
        state.stopped = true;
        return;
      }
      state.budget -= message.cost;
      if (message.error === undefined && typeof message.value === 'string') {
        const trimmed = message.value.trim();
        if (trimmed.length > 0 && Buffer.byteLength(trimmed) <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES && !/\n/.test(trimmed)) detail = trimmed;
      }
    }
    detail ??= typeof rule.message === 'string' && rule.message.length > 0 ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
    const error = failure(errorPath, node.schema, detail, rule.reason);
    if (!compiled.usesOldSelf && ratchet) state.warnings.push(fieldErrorText(error));
    else state.errors.push(error);
  }
}

/** visibleResource is a resource as rules see it: of its metadata only name and generateName (SchemaDeclType's WithTypeAndObjectMeta). */
function visibleResource(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const metadata = (value as Record<string, unknown>)['metadata'];
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return value;
  const visible: Record<string, unknown> = {};
  for (const key of ['name', 'generateName']) {
    if (Object.hasOwn(metadata, key)) visible[key] = (metadata as Record<string, unknown>)[key];
  }
  return { ...(value as Record<string, unknown>), metadata: visible };
}

/**
 * walk runs the rules of a node and its descendants. `ratchet` is whether this node's failures
 * ratchet: the node, correlated with its old value (`correlation.ts`), is unchanged — or, for a
 * node that does not correlate (an item of a list that is not a map list, and what is below it),
 * its nearest correlated ancestor is.
 */
function walk(node: RuleNode, path: string, value: unknown, old: unknown, ratchet: boolean, state: State, depth: number): void {
  if (value === null || value === undefined || state.stopped || depth > 512) return;
  evaluateRules(node, path, value, old, ratchet, state);
  if (state.stopped) return;
  if (Array.isArray(value)) {
    if (node.items === undefined) return;
    const correlate = state.ratcheting ? listCorrelation(node.schema, old) : () => undefined;
    for (const [i, item] of value.entries()) {
      const oldItem = correlate(item);
      const itemRatchet = oldItem === undefined ? ratchet : correlatedEqual(node.items.schema, item, oldItem.value);
      walk(node.items, `${path}[${i}]`, item, oldItem?.value, itemRatchet, state, depth + 1);
      if (state.stopped) return;
    }
    return;
  }
  if (typeof value !== 'object') return;
  const oldMap = old !== null && typeof old === 'object' && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const sub = node.properties.get(key) ?? node.additionalProperties;
    if (sub === undefined) continue;
    const oldChild = oldMap !== undefined && Object.hasOwn(oldMap, key) ? oldMap[key] : undefined;
    const childPath = node.properties.has(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${key}]`;
    const childRatchet = state.ratcheting && (oldChild === undefined ? ratchet : correlatedEqual(sub.schema, child, oldChild));
    walk(sub, childPath, child, oldChild, childRatchet, state, depth + 1);
    if (state.stopped) return;
  }
}

/** validateWithRules runs a compiled schema's rules on an object; `perCallLimit` is for tests (the apiserver's is fixed). */
export function validateWithRules(
  root: RuleNode | undefined,
  object: Record<string, unknown>,
  oldObject: Record<string, unknown> | undefined,
  perCallLimit = PER_CALL_LIMIT,
  ratcheting = true,
): { errors: FieldError[]; warnings: string[] } {
  const state: State = { budget: RUNTIME_CEL_COST_BUDGET, stopped: false, errors: [], warnings: [], perCallLimit, ratcheting };
  if (root === undefined) return { errors: [], warnings: [] };
  walk(root, '', object, oldObject, ratcheting && oldObject !== undefined && correlatedEqual(root.schema, object, oldObject), state, 0);
  return { errors: state.errors, warnings: state.warnings };
}
