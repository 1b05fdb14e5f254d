/**
 * ValidatingAdmissionPolicyBinding spec rules (upstream
 * `validateValidatingAdmissionPolicyBindingSpec`): policyName a DNS subdomain; paramRef with
 * exactly one of name and selector and a parameterNotFoundAction; matchResources as a policy's
 * (reported under upstream's own spelling, `spec.matchResouces`), resource rules optional; and
 * validationActions: at least one, known, unique, not both Deny and Warn.
 */
import { duplicate, type FieldError, forbidden, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { isDns1123Subdomain, isPathSegmentName } from '../../apimachinery/name-rules.ts';
import { recordOf, stringAt, stringsOf, typedStrings } from './go-literals.ts';
import { validateLabelSelector } from './label-selector-rules.ts';
import { validateMatchResources } from './match-resources-rules.ts';

const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const PARAMETER_NOT_FOUND_ACTIONS = ['Deny', 'Allow'];

function validateParamRef(paramRef: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringAt(paramRef, 'name') ?? '';
  const selector = recordOf(paramRef['selector']);
  if (name !== '') {
    for (const problem of isPathSegmentName(name)) errors.push(invalid(`${path}.name`, name, problem));
    if (selector !== undefined) errors.push(forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (selector !== undefined) {
    errors.push(...validateLabelSelector(selector, `${path}.selector`));
    if (name !== '') errors.push(forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name === '' && selector === undefined) errors.push(required(path, 'one of name or selector must be specified'));
  const action = stringAt(paramRef, 'parameterNotFoundAction') ?? '';
  if (action === '') errors.push(required(`${path}.parameterNotFoundAction`));
  else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(action)) errors.push(notSupported(`${path}.parameterNotFoundAction`, action, PARAMETER_NOT_FOUND_ACTIONS));
  return errors;
}

function validateValidationActions(actions: readonly string[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [index, action] of actions.entries()) {
    if (!VALIDATION_ACTIONS.includes(action)) errors.push(notSupported(`${path}[${index}]`, action, VALIDATION_ACTIONS));
    if (seen.has(action)) errors.push(duplicate(`${path}[${index}]`, action));
    seen.add(action);
  }
  if (seen.has('Deny') && seen.has('Warn'))
    errors.push(
      invalid(
        path,
        typedStrings('ValidationAction', actions),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  if (seen.size === 0) errors.push(required(path, 'at least one validation action is required'));
  return errors;
}

/** validateBinding checks a ValidatingAdmissionPolicyBinding's spec (the same rules on update). */
export function validateBinding(binding: Record<string, unknown>): FieldError[] {
  const spec = recordOf(binding['spec']) ?? {};
  const errors: FieldError[] = [];
  const policyName = stringAt(spec, 'policyName') ?? '';
  if (policyName === '') errors.push(required('spec.policyName'));
  else for (const problem of isDns1123Subdomain(policyName)) errors.push(invalid('spec.policyName', policyName, problem));
  const paramRef = recordOf(spec['paramRef']);
  if (paramRef !== undefined) errors.push(...validateParamRef(paramRef, 'spec.paramRef'));
  const matchResources = recordOf(spec['matchResources']);
  if (matchResources !== undefined) errors.push(...validateMatchResources(matchResources, 'spec.matchResouces'));
  errors.push(...validateValidationActions(stringsOf(spec['validationActions']), 'spec.validationActions'));
  return errors;
}
