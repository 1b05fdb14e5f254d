/**
 * compileSchemaRules: walks a version's schema, checks every `x-kubernetes-validations` entry's
 * fields, compiles its rule and messageExpression with `self` (and `oldSelf`) typed from the
 * schema node, and estimates the cost as the apiserver does — per rule times the node's
 * cardinality (how many times it can run: the product of the enclosing lists' and maps' bounds),
 * against the per-rule limit and the whole-schema limit.
 */
import { type FieldError, forbidden, GoLiteral, invalid } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps, ValidationRule } from '../types.ts';
import { analyze } from './analyze.ts';
import { type Expr, parseRule } from './ast.ts';
import { additionalPropertiesSchema, type CelT, itemsSchema, schemaDeclType, STRING } from './cel-types.ts';
import { costErrorMessage, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './cost-limits.ts';
import { optionalOf } from './library-optional.ts';
import { MAX_UINT64, sat } from './overloads.ts';
import { validateRuleFields } from './rule-fields.ts';
import { validFieldPath } from './field-path.ts';

/** CompiledRule is one rule ready to run. */
export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly expr: Expr;
  readonly messageExpr: Expr | undefined;
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
  /** fieldSuffix is the printed `fieldPath` suffix (`.replicas`), '' when the rule has none. */
  readonly fieldSuffix: string;
}

/** RuleNode is the compiled rules of one schema node and of its children, mirroring the schema. */
export interface RuleNode {
  readonly schema: JSONSchemaProps;
  /** resourceRoot is true at the root of the resource and of embedded resources, where rules see metadata.name/generateName only. */
  readonly resourceRoot: boolean;
  readonly rules: CompiledRule[];
  readonly properties: Map<string, RuleNode>;
  items?: RuleNode;
  additionalProperties?: RuleNode;
}

function goString(text: string): string {
  return JSON.stringify(text);
}

/** ruleLiteral prints a rule the way Go's `%#v` prints apiextensions.ValidationRule in compile errors. */
export function ruleLiteral(rule: ValidationRule): GoLiteral {
  const reason = rule.reason === undefined ? '(*apiextensions.FieldValueErrorReason)(nil)' : `(*apiextensions.FieldValueErrorReason)(${goString(rule.reason)})`;
  const optional = rule.optionalOldSelf === undefined ? '(*bool)(nil)' : `(*bool)(${rule.optionalOldSelf})`;
  return new GoLiteral(
    `apiextensions.ValidationRule{Rule:${goString(rule.rule ?? '')}, Message:${goString(rule.message ?? '')}, MessageExpression:${goString(rule.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goString(rule.fieldPath ?? '')}, OptionalOldSelf:${optional}}`,
  );
}

interface Walk {
  /** schemaErrors are the rule-field errors; celErrors the compilation and cost errors, reported after them. */
  schemaErrors: FieldError[];
  celErrors: FieldError[];
  costs: { path: string; cost: number }[];
}

function compileNode(
  schema: JSONSchemaProps,
  path: string,
  isResourceRoot: boolean,
  cardinality: number,
  uncorrelatable: string | undefined,
  walk: Walk,
  depth: number,
): RuleNode | undefined {
  if (depth > 128) return undefined;
  const node: RuleNode = { schema, resourceRoot: isResourceRoot, rules: [], properties: new Map() };
  const declared = schemaDeclType(schema, isResourceRoot);
  const schemaErrorsBefore = walk.schemaErrors.length;
  // Children first, as the apiserver validates a schema node's children before its own rules.
  const additional = additionalPropertiesSchema(schema);
  if (additional !== undefined) {
    const bound = declared?.bound?.maxElements ?? MAX_UINT64;
    const child = compileNode(
      additional,
      `${path}.additionalProperties`,
      additional['x-kubernetes-embedded-resource'] === true,
      sat(cardinality * bound),
      uncorrelatable,
      walk,
      depth + 1,
    );
    if (child !== undefined) node.additionalProperties = child;
  }
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const mapType = schema['x-kubernetes-map-type'];
    const childUncorrelatable = uncorrelatable ?? (mapType !== undefined && mapType !== 'granular' && mapType !== 'atomic' ? path : undefined);
    const child = compileNode(
      prop,
      `${path}.properties[${name}]`,
      prop['x-kubernetes-embedded-resource'] === true,
      cardinality,
      childUncorrelatable,
      walk,
      depth + 1,
    );
    if (child !== undefined) node.properties.set(name, child);
  }
  const items = itemsSchema(schema);
  if (items !== undefined) {
    const bound = declared?.bound?.maxElements ?? MAX_UINT64;
    const childUncorrelatable = uncorrelatable ?? (schema['x-kubernetes-list-type'] !== 'map' ? path : undefined);
    const child = compileNode(
      items,
      `${path}.items`,
      items['x-kubernetes-embedded-resource'] === true,
      sat(cardinality * bound),
      childUncorrelatable,
      walk,
      depth + 1,
    );
    if (child !== undefined) node.items = child;
  }
  const validations = Array.isArray(schema['x-kubernetes-validations']) ? schema['x-kubernetes-validations'] : [];
  for (const [i, rule] of validations.entries()) walk.schemaErrors.push(...validateRuleFields(rule, `${path}.x-kubernetes-validations[${i}]`, schema));
  // As the apiserver: with any schema error at this node or below, its rules are not compiled.
  if (walk.schemaErrors.length === schemaErrorsBefore) {
    for (const [i, rule] of validations.entries()) {
      const rulePath = `${path}.x-kubernetes-validations[${i}]`;
      if (declared === undefined) {
        walk.celErrors.push(
          invalid(
            `${rulePath}.rule`,
            ruleLiteral(rule),
            `compilation failed: rule declared on schema that does not support validation rules type: '${schema.type ?? ''}' x-kubernetes-preserve-unknown-fields: '${schema['x-kubernetes-preserve-unknown-fields'] === true}'`,
          ),
        );
        continue;
      }
      const compiled = compileRule(rule, rulePath, declared, cardinality, uncorrelatable, walk, schema);
      if (compiled !== undefined) node.rules.push(compiled);
    }
  }
  const hasRules = node.rules.length > 0 || node.properties.size > 0 || node.items !== undefined || node.additionalProperties !== undefined;
  return hasRules ? node : undefined;
}

function compileRule(
  rule: ValidationRule,
  rulePath: string,
  self: CelT,
  cardinality: number,
  uncorrelatable: string | undefined,
  walk: Walk,
  schema: JSONSchemaProps,
): CompiledRule | undefined {
  const optionalOldSelf = rule.optionalOldSelf === true;
  const variables = new Map<string, CelT>([
    ['self', self],
    ['oldSelf', optionalOldSelf ? optionalOf(self) : self],
  ]);
  const parsed = parseRule(rule.rule);
  if ('error' in parsed) {
    walk.celErrors.push(invalid(`${rulePath}.rule`, ruleLiteral(rule), `compilation failed: ${parsed.error}`));
    return undefined;
  }
  const expr = parsed.parsed.expr;
  if (expr === undefined) return undefined;
  const analysis = analyze(expr, parsed.source, variables);
  if (analysis.errors.length > 0) {
    walk.celErrors.push(invalid(`${rulePath}.rule`, ruleLiteral(rule), `compilation failed: ${analysis.errors.join('\n')}`));
    return undefined;
  }
  const cost = sat(analysis.cost.max * cardinality);
  if (cost > STATIC_ESTIMATED_COST_LIMIT)
    walk.celErrors.push(forbidden(`${rulePath}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
  walk.costs.push({ path: `${rulePath}.rule`, cost });
  if (analysis.type.kind !== 'bool' && analysis.type.kind !== 'dyn') {
    walk.celErrors.push(invalid(`${rulePath}.rule`, ruleLiteral(rule), 'cel expression must evaluate to a bool'));
    return undefined;
  }
  let messageExpr: Expr | undefined;
  let failed = false;
  if (typeof rule.messageExpression === 'string' && rule.messageExpression.trim() !== '') {
    const parsedMessage = parseRule(rule.messageExpression);
    if ('error' in parsedMessage) {
      walk.celErrors.push(invalid(`${rulePath}.messageExpression`, ruleLiteral(rule), `messageExpression compilation failed: ${parsedMessage.error}`));
      failed = true;
    } else if (parsedMessage.parsed.expr !== undefined) {
      const messageAnalysis = analyze(parsedMessage.parsed.expr, parsedMessage.source, variables);
      if (messageAnalysis.errors.length > 0) {
        walk.celErrors.push(
          invalid(`${rulePath}.messageExpression`, ruleLiteral(rule), `messageExpression compilation failed: ${messageAnalysis.errors.join('\n')}`),
        );
        failed = true;
      } else if (messageAnalysis.type.kind !== STRING.kind && messageAnalysis.type.kind !== 'dyn') {
        walk.celErrors.push(invalid(`${rulePath}.messageExpression`, ruleLiteral(rule), 'must evaluate to a string'));
        failed = true;
      } else {
        messageExpr = parsedMessage.parsed.expr;
        const messageCost = sat(messageAnalysis.cost.max * cardinality);
        if (messageCost > STATIC_ESTIMATED_COST_LIMIT) {
          walk.celErrors.push(
            forbidden(`${rulePath}.messageExpression`, costErrorMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT)),
          );
        }
        walk.costs.push({ path: `${rulePath}.messageExpression`, cost: messageCost });
      }
    }
  }
  if (analysis.usesOldSelf && uncorrelatable !== undefined) {
    walk.celErrors.push(invalid(`${rulePath}.rule`, rule.rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
  } else if (!analysis.usesOldSelf && rule.optionalOldSelf !== undefined) {
    walk.celErrors.push(invalid(`${rulePath}.optionalOldSelf`, rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
  }
  if (failed) return undefined;
  return { rule, expr, messageExpr, usesOldSelf: analysis.usesOldSelf, optionalOldSelf, fieldSuffix: fieldSuffixOf(rule, schema) };
}

function fieldSuffixOf(rule: ValidationRule, schema: JSONSchemaProps): string {
  if (typeof rule.fieldPath !== 'string' || rule.fieldPath === '') return '';
  const valid = validFieldPath(rule.fieldPath, schema);
  return 'suffix' in valid ? valid.suffix : '';
}

/** compileTree compiles a version's schema; `fieldPath` is where it sits in the CRD. */
export function compileTree(schema: JSONSchemaProps, fieldPath: string): { errors: FieldError[]; root: RuleNode | undefined } {
  const walk: Walk = { schemaErrors: [], celErrors: [], costs: [] };
  const root = compileNode(schema, fieldPath, true, 1, undefined, walk, 0);
  const errors = [...walk.schemaErrors, ...walk.celErrors];
  const total = walk.costs.reduce((sum, c) => sat(sum + c.cost), 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    const expensive = [...walk.costs].sort((a, b) => b.cost - a.cost).slice(0, 4);
    for (const e of expensive) errors.push(forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    errors.push(
      forbidden(
        fieldPath,
        costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  return { errors, root };
}
