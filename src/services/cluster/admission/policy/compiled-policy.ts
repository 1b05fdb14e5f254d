/**
 * A ValidatingAdmissionPolicy compiled for admission: its matchConditions, variables,
 * validations (expression, messageExpression) and auditAnnotations, each compiled once with the
 * declarations its place allows (1.32 `policy/validating/plugin.go` compilePolicy): params only
 * with a paramKind; no namespaceObject or variables in matchConditions; no authorizer in
 * messageExpression. A compile error is kept with the expression and surfaces when it is
 * evaluated (`compilation error: …`), as the apiserver keeps an unusable policy loaded.
 */
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import type { MatchResources } from '../matching.ts';
import { type Compiled, compileExpression, compileVariables, type Declarations } from './expressions.ts';

/** PolicySpec is the part of `spec` admission reads. */
export interface PolicySpec {
  readonly failurePolicy?: string;
  readonly paramKind?: { readonly apiVersion?: string; readonly kind?: string };
  readonly matchConstraints?: MatchResources;
  readonly matchConditions?: readonly { readonly name?: string; readonly expression?: string }[];
  readonly variables?: readonly { readonly name?: string; readonly expression?: string }[];
  readonly validations?: readonly {
    readonly expression?: string;
    readonly message?: string;
    readonly messageExpression?: string;
    readonly reason?: string;
  }[];
  readonly auditAnnotations?: readonly { readonly key?: string; readonly valueExpression?: string }[];
}

/** CompiledValidation is one `validations[]` entry ready to run. */
export interface CompiledValidation {
  readonly index: number;
  readonly expression: Compiled;
  readonly message: string | undefined;
  readonly messageExpression: Compiled | undefined;
  readonly reason: string | undefined;
}

/** CompiledPolicy is a policy ready to evaluate. */
export interface CompiledPolicy {
  readonly name: string;
  readonly spec: PolicySpec;
  readonly failurePolicy: string;
  readonly matchConditions: readonly { readonly name: string; readonly compiled: Compiled }[];
  readonly variables: ReadonlyMap<string, Compiled>;
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly compiled: Compiled }[];
  /** usesAuthorizer: some expression reads `authorizer` (only then is RBAC readied for an evaluation). */
  readonly usesAuthorizer: boolean;
  /** usesNamespaceObject: some expression reads `namespaceObject` (only then is the namespace read). */
  readonly usesNamespaceObject: boolean;
}

const compiledPolicies = new WeakMap<KubeObject, CompiledPolicy>();

/** compilePolicy compiles a stored policy (once per stored object: a change stores a new one). */
export function compilePolicy(policy: KubeObject): CompiledPolicy {
  const cached = compiledPolicies.get(policy);
  if (cached !== undefined) return cached;
  const spec = ((policy as { spec?: PolicySpec }).spec ?? {}) as PolicySpec;
  const params = spec.paramKind !== undefined && spec.paramKind !== null;
  const { compiled: variables, types } = compileVariables(spec.variables ?? [], { params, authorizer: true, namespaceObject: true });
  const full: Declarations = { params, authorizer: true, namespaceObject: true, variables: types };
  const conditions: Declarations = { params, authorizer: true, namespaceObject: false, variables: false };
  const messages: Declarations = { params, authorizer: false, namespaceObject: true, variables: types };
  const texts = [
    ...(spec.matchConditions ?? []).map((condition) => condition.expression ?? ''),
    ...(spec.variables ?? []).map((variable) => variable.expression ?? ''),
    ...(spec.validations ?? []).map((validation) => validation.expression ?? ''),
    ...(spec.auditAnnotations ?? []).map((annotation) => annotation.valueExpression ?? ''),
    ...(spec.validations ?? []).map((validation) => validation.messageExpression ?? ''),
  ];
  const compiled: CompiledPolicy = {
    usesAuthorizer: texts.some((text) => /\bauthorizer\b/.test(text)),
    usesNamespaceObject: texts.some((text) => /\bnamespaceObject\b/.test(text)),
    name: policy.metadata.name ?? '',
    spec,
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConditions: (spec.matchConditions ?? []).map((condition) => ({
      name: condition.name ?? '',
      compiled: compileExpression(condition.expression ?? '', conditions, 'bool'),
    })),
    variables,
    validations: (spec.validations ?? []).map((validation, index) => ({
      index,
      expression: compileExpression(validation.expression ?? '', full, 'bool'),
      message: validation.message,
      messageExpression: validation.messageExpression === undefined ? undefined : compileExpression(validation.messageExpression, messages, 'string'),
      reason: validation.reason,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((annotation) => ({
      key: annotation.key ?? '',
      compiled: compileExpression(annotation.valueExpression ?? '', full, 'string-or-null'),
    })),
  };
  compiledPolicies.set(policy, compiled);
  return compiled;
}

/** typeCheckingWarnings are the compile problems of a policy's validations as `status.typeChecking.expressionWarnings` lists them. */
export function typeCheckingWarnings(policy: CompiledPolicy, gvks: readonly string[]): { fieldRef: string; warning: string }[] {
  const warnings: { fieldRef: string; warning: string }[] = [];
  const text = (error: string): string => gvks.map((gvk) => `${gvk}: ${error.replace(/^compilation failed: /, '')}\n`).join('');
  for (const validation of policy.validations) {
    if (validation.expression.error !== undefined)
      warnings.push({ fieldRef: `spec.validations[${validation.index}].expression`, warning: text(validation.expression.error) });
    if (validation.messageExpression?.error !== undefined)
      warnings.push({ fieldRef: `spec.validations[${validation.index}].messageExpression`, warning: text(validation.messageExpression.error) });
  }
  return warnings;
}
