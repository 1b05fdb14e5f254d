/**
 * A policy's `matchConstraints` or a binding's `matchResources` (upstream
 * `validateMatchResources`): matchPolicy and both selectors required (the v1 defaults fill them),
 * selectors strict, then every resource and exclude rule.
 */
import { type FieldError, notSupported, required } from '../../apimachinery/field-errors.ts';
import { listOf, stringAt } from './go-literals.ts';
import { validateLabelSelector } from './label-selector-rules.ts';
import { validateNamedRuleWithOperations } from './rules.ts';
import { MATCH_POLICIES } from './webhook-rules.ts';

/** validateMatchResources checks a MatchResources object at `path`. */
export function validateMatchResources(match: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const matchPolicy = stringAt(match, 'matchPolicy');
  if (matchPolicy === undefined) errors.push(required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(matchPolicy)) errors.push(notSupported(`${path}.matchPolicy`, matchPolicy, MATCH_POLICIES));
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    const value = match[selector];
    if (value === undefined || value === null) errors.push(required(`${path}.${selector}`));
    else errors.push(...validateLabelSelector(value, `${path}.${selector}`));
  }
  for (const list of ['resourceRules', 'excludeResourceRules']) {
    for (const [index, rule] of listOf(match[list]).entries()) errors.push(...validateNamedRuleWithOperations(rule, `${path}.${list}[${index}]`));
  }
  return errors;
}
