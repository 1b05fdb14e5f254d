/**
 * ValidatingAdmissionPolicy spec rules (upstream `validateValidatingAdmissionPolicySpec`):
 * failurePolicy (defaulted to Fail), paramKind, matchConstraints with at least one resource rule
 * (the rules give the expressions their types), matchConditions, variables (CEL identifiers,
 * compiled in order), validations (a bool expression, message without line breaks, a string
 * messageExpression, a known reason) and auditAnnotations (at most 20, keys qualified under the
 * policy's name and unique, a string-or-null valueExpression of at most 5 KiB); at least one
 * validation or audit annotation. An update skips matchConditions when neither they nor the
 * paramKind changed.
 */
import { duplicate, type FieldError, GoLiteral, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName } from '../../apimachinery/name-rules.ts';
import { isCelIdentifier } from '../../crd/cel/cel-types.ts';
import { type Compiled, compileVariables, type Declarations } from '../policy/expressions.ts';
import { compileProblem, validateMatchConditions } from './expression-rules.ts';
import { listOf, recordOf, stringAt } from './go-literals.ts';
import { validateMatchResources } from './match-resources-rules.ts';
import { FAILURE_POLICIES, sameConditions } from './webhook-rules.ts';

const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024;

/** validateParamKind checks `paramKind`: an apiVersion `[group/]version` and a kind. */
function validateParamKind(paramKind: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = stringAt(paramKind, 'apiVersion') ?? '';
  if (apiVersion === '') errors.push(required(`${path}.apiVersion`));
  else if (apiVersion.split('/').length > 2) errors.push(invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else {
    const slash = apiVersion.indexOf('/');
    const [group, version] = apiVersion === '/' ? ['', ''] : slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
    if (group !== '') {
      const problems = isDns1123Subdomain(group);
      if (problems.length > 0) errors.push(invalid(`${path}.apiVersion`, group, problems.join(',')));
    }
    if (version === '') errors.push(invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const problems = isDns1035Label(version);
      if (problems.length > 0) errors.push(invalid(`${path}.apiVersion`, version, problems.join(',')));
    }
  }
  const kind = stringAt(paramKind, 'kind') ?? '';
  if (kind === '') errors.push(required(`${path}.kind`));
  else {
    const problems = isDns1035Label(kind.toLowerCase());
    if (problems.length > 0) errors.push(invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
  }
  return errors;
}

function validateVariable(variable: Record<string, unknown>, compiled: Compiled | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringAt(variable, 'name') ?? '';
  if (name.trim() === '') errors.push(required(`${path}.name`, 'name is not specified'));
  else if (!isCelIdentifier(name)) errors.push(invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  const expression = stringAt(variable, 'expression') ?? '';
  if (expression.trim() === '') errors.push(required(`${path}.expression`, 'expression is not specified'));
  else if (compiled?.error !== undefined) errors.push(invalid(`${path}.expression`, expression, compiled.error));
  return errors;
}

function validateValidation(validation: Record<string, unknown>, declared: Declarations, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const expression = stringAt(validation, 'expression') ?? '';
  if (expression.trim() === '') errors.push(required(`${path}.expression`, 'expression is not specified'));
  else {
    const problem = compileProblem(expression, expression, declared, 'bool', `${path}.expression`);
    if (problem !== undefined) errors.push(problem);
  }
  const messageExpression = stringAt(validation, 'messageExpression') ?? '';
  if (messageExpression !== '' && messageExpression.trim() === '')
    errors.push(invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  else if (messageExpression.trim() !== '') {
    // The untrimmed text, so that the error's column is the field's.
    const problem = compileProblem(messageExpression, messageExpression, { ...declared, authorizer: false }, 'string', `${path}.messageExpression`);
    if (problem !== undefined) errors.push(problem);
  }
  const message = stringAt(validation, 'message') ?? '';
  if (message !== '' && message.trim() === '') errors.push(invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) errors.push(invalid(`${path}.message`, message, 'message must not contain line breaks'));
  const reason = stringAt(validation, 'reason');
  if (reason !== undefined && !REASONS.includes(reason)) errors.push(notSupported(`${path}.reason`, reason, REASONS));
  return errors;
}

function validateAuditAnnotation(annotation: Record<string, unknown>, policyName: string, declared: Declarations, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const key = stringAt(annotation, 'key') ?? '';
  if (policyName !== '') {
    const qualified = `${policyName}/${key}`;
    for (const problem of isQualifiedName(qualified)) errors.push(invalid(`${path}.key`, qualified, problem));
  } else errors.push(invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  const valueExpression = stringAt(annotation, 'valueExpression') ?? '';
  const trimmed = valueExpression.trim();
  if (trimmed === '') errors.push(required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (Buffer.byteLength(trimmed) > MAX_VALUE_EXPRESSION_LENGTH)
    errors.push(required(`${path}.valueExpression`, `must not exceed ${MAX_VALUE_EXPRESSION_LENGTH} bytes in length`));
  else {
    const problem = compileProblem(trimmed, valueExpression, declared, 'string-or-null', `${path}.valueExpression`);
    if (problem !== undefined) errors.push(problem);
  }
  return errors;
}

/** goAuditAnnotations prints the list as Go's `%#v` of `[]admissionregistration.AuditAnnotation`. */
function goAuditAnnotations(annotations: readonly unknown[]): GoLiteral {
  const items = annotations.map((entry) => {
    const annotation = recordOf(entry);
    return `admissionregistration.AuditAnnotation{Key:${JSON.stringify(stringAt(annotation, 'key') ?? '')}, ValueExpression:${JSON.stringify(stringAt(annotation, 'valueExpression') ?? '')}}`;
  });
  return new GoLiteral(`[]admissionregistration.AuditAnnotation{${items.join(', ')}}`);
}

/** validatePolicy checks a ValidatingAdmissionPolicy's spec; `ignoreMatchConditions` on an update that did not change them. */
export function validatePolicy(policy: Record<string, unknown>, ignoreMatchConditions = false): FieldError[] {
  const spec = recordOf(policy['spec']) ?? {};
  const errors: FieldError[] = [];
  const failurePolicy = stringAt(spec, 'failurePolicy');
  if (failurePolicy === undefined) errors.push(required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(failurePolicy)) errors.push(notSupported('spec.failurePolicy', failurePolicy, FAILURE_POLICIES));
  const paramKind = recordOf(spec['paramKind']);
  if (paramKind !== undefined) errors.push(...validateParamKind(paramKind, 'spec.paramKind'));
  const constraints = recordOf(spec['matchConstraints']);
  if (constraints === undefined) errors.push(required('spec.matchConstraints'));
  else {
    errors.push(...validateMatchResources(constraints, 'spec.matchConstraints'));
    if (listOf(constraints['resourceRules']).length === 0) errors.push(required('spec.matchConstraints.resourceRules'));
  }
  const params = paramKind !== undefined;
  if (!ignoreMatchConditions) errors.push(...validateMatchConditions(spec['matchConditions'], params, 'spec.matchConditions'));
  const variables = listOf(spec['variables']).map((variable) => recordOf(variable) ?? {});
  // A policy with variables is compiled by a composited compiler: `variables` is declared, each typed by its result.
  const composited = compileVariables(
    variables.map((variable) => ({ name: stringAt(variable, 'name') ?? '', expression: stringAt(variable, 'expression') ?? '' })),
    { params, authorizer: true, namespaceObject: true },
  );
  const declared: Declarations = { params, authorizer: true, namespaceObject: true, variables: variables.length > 0 ? composited.types : false };
  for (const [index, variable] of variables.entries()) {
    errors.push(...validateVariable(variable, [...composited.compiled.values()][index], `spec.variables[${index}]`));
  }
  const validations = listOf(spec['validations']);
  const annotations = listOf(spec['auditAnnotations']);
  if (validations.length === 0 && annotations.length === 0) {
    errors.push(required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errors.push(required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errors;
  }
  for (const [index, validation] of validations.entries())
    errors.push(...validateValidation(recordOf(validation) ?? {}, declared, `spec.validations[${index}]`));
  if (annotations.length > MAX_AUDIT_ANNOTATIONS)
    errors.push(invalid('spec.auditAnnotations', goAuditAnnotations(annotations), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  const name = recordOf(policy['metadata'])?.['name'];
  const keys = new Set<string>();
  for (const [index, entry] of annotations.entries()) {
    const annotation = recordOf(entry) ?? {};
    errors.push(...validateAuditAnnotation(annotation, typeof name === 'string' ? name : '', declared, `spec.auditAnnotations[${index}]`));
    const key = stringAt(annotation, 'key') ?? '';
    if (keys.has(key)) errors.push(duplicate(`spec.auditAnnotations[${index}].key`, key));
    keys.add(key);
  }
  return errors;
}

/** policyUpdateIgnoresMatchConditions: neither the paramKind nor the matchConditions changed. */
export function policyUpdateIgnoresMatchConditions(next: Record<string, unknown>, old: Record<string, unknown>): boolean {
  const nextSpec = recordOf(next['spec']) ?? {};
  const oldSpec = recordOf(old['spec']) ?? {};
  const kind = (spec: Record<string, unknown>) => {
    const paramKind = recordOf(spec['paramKind']);
    return paramKind === undefined ? 'nil' : `${stringAt(paramKind, 'apiVersion') ?? ''}/${stringAt(paramKind, 'kind') ?? ''}`;
  };
  return kind(nextSpec) === kind(oldSpec) && sameConditions(nextSpec['matchConditions'], oldSpec['matchConditions']);
}

/**
 * validatePolicyStatus checks a `/status` write (upstream `validateValidatingAdmissionPolicyStatus`):
 * each type-checking warning has its text and a field reference. The spec is not checked there.
 */
export function validatePolicyStatus(policy: Record<string, unknown>): FieldError[] {
  const typeChecking = recordOf(recordOf(policy['status'])?.['typeChecking']);
  const errors: FieldError[] = [];
  for (const [index, entry] of listOf(typeChecking?.['expressionWarnings']).entries()) {
    const warning = recordOf(entry);
    const path = `status.typeChecking.expressionWarnings[${index}]`;
    if ((stringAt(warning, 'warning') ?? '') === '') errors.push(required(`${path}.warning`));
    if ((stringAt(warning, 'fieldRef') ?? '').trim() === '') errors.push(required(`${path}.fieldRef`));
  }
  return errors;
}
