/**
 * CEL expressions of the admission configurations compiled at write time, on the admission
 * plugin's own compiler (policy/expressions.ts), with the declarations upstream's validation
 * compiles them with: `object`, `oldObject`, `request` and `namespaceObject` always; `params`
 * only with a paramKind; `authorizer` except in messageExpression; `variables` only in a policy
 * that has variables (its composited compiler), never in matchConditions. A compile error is the
 * field's `Invalid value: "<expression>": compilation failed: ERROR: <input>:…`.
 *
 * Upstream compiles an expression the stored object already had in its StoredExpressions
 * environment and a new one in NewExpressions; fogbank's CEL has one environment, so both compile
 * alike.
 */
import { duplicate, type FieldError, invalid, required, tooMany } from '../../apimachinery/field-errors.ts';
import { isQualifiedName } from '../../apimachinery/name-rules.ts';
import { compileExpression, type Declarations, type ResultType } from '../policy/expressions.ts';
import { listOf, recordOf, stringAt } from './go-literals.ts';

const MAX_MATCH_CONDITIONS = 64;

/** compileProblem is the field error of an expression that does not compile, or undefined; `shown` is the value the error prints. */
export function compileProblem(text: string, shown: string, declared: Declarations, result: ResultType, path: string): FieldError | undefined {
  const compiled = compileExpression(text, declared, result);
  return compiled.error === undefined ? undefined : invalid(path, shown, compiled.error);
}

/** validateMatchConditions checks a matchConditions list: at most 64, each named (a qualified name, unique) with a bool expression. */
export function validateMatchConditions(value: unknown, params: boolean, path: string): FieldError[] {
  const conditions = listOf(value);
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const declared: Declarations = { params, authorizer: true, namespaceObject: true, variables: false };
  const names = new Set<string>();
  for (const [index, entry] of conditions.entries()) {
    const condition = recordOf(entry);
    const at = `${path}[${index}]`;
    const expression = (stringAt(condition, 'expression') ?? '').trim();
    if (expression === '') errors.push(required(`${at}.expression`));
    else {
      const problem = compileProblem(expression, expression, declared, 'bool', `${at}.expression`);
      if (problem !== undefined) errors.push(problem);
    }
    const name = stringAt(condition, 'name') ?? '';
    if (name === '') errors.push(required(`${at}.name`));
    else for (const message of isQualifiedName(name)) errors.push(invalid(`${at}.name`, name, message));
    if (name !== '') {
      if (names.has(name)) errors.push(duplicate(`${at}.name`, name));
      else names.add(name);
    }
  }
  return errors;
}
