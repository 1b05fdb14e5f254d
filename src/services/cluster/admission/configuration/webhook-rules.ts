/**
 * Validating and mutating webhook configurations (upstream `validateValidatingWebhook`,
 * `validateMutatingWebhook`, `validateAdmissionReviewVersions`): each webhook's name fully
 * qualified, rules, failurePolicy, matchPolicy, sideEffects, timeoutSeconds, selectors,
 * reinvocationPolicy (mutating), clientConfig and matchConditions, then its
 * admissionReviewVersions and a unique name. An update relaxes what the stored configuration
 * already broke (side effects of v1beta1 days, unknown review versions, duplicate names, invalid
 * label values) and skips matchConditions it did not change.
 */
import { duplicate, type FieldError, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { isDns1035Label, isDns1123Subdomain } from '../../apimachinery/name-rules.ts';
import { validateClientConfig } from './client-config-rules.ts';
import { validateMatchConditions } from './expression-rules.ts';
import { listOf, recordOf, stringAt, stringsOf } from './go-literals.ts';
import { validateLabelSelector } from './label-selector-rules.ts';
import { validateRuleWithOperations } from './rules.ts';

export const FAILURE_POLICIES = ['Fail', 'Ignore'];
export const MATCH_POLICIES = ['Equivalent', 'Exact'];
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** WebhookRuleOptions are the rules an update relaxes (all strict on create). */
export interface WebhookRuleOptions {
  readonly ignoreMatchConditions: boolean;
  readonly requireNoSideEffects: boolean;
  readonly requireRecognizedReviewVersion: boolean;
  readonly requireUniqueNames: boolean;
  readonly allowInvalidLabelValues: boolean;
}

export const CREATE_OPTIONS: WebhookRuleOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedReviewVersion: true,
  requireUniqueNames: true,
  allowInvalidLabelValues: false,
};

/** fullyQualifiedNameErrors is apimachinery's IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function fullyQualifiedNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [required(path)];
  const problems = isDns1123Subdomain(name);
  if (problems.length > 0) return [invalid(path, name, problems.join(','))];
  if (name.split('.').length < 3) return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateWebhook(webhook: Record<string, unknown>, mutating: boolean, options: WebhookRuleOptions, path: string): FieldError[] {
  const errors = fullyQualifiedNameErrors(stringAt(webhook, 'name') ?? '', `${path}.name`);
  for (const [index, rule] of listOf(webhook['rules']).entries()) errors.push(...validateRuleWithOperations(rule, `${path}.rules[${index}]`));
  const failurePolicy = stringAt(webhook, 'failurePolicy');
  if (failurePolicy !== undefined && !FAILURE_POLICIES.includes(failurePolicy))
    errors.push(notSupported(`${path}.failurePolicy`, failurePolicy, FAILURE_POLICIES));
  const matchPolicy = stringAt(webhook, 'matchPolicy');
  if (matchPolicy !== undefined && !MATCH_POLICIES.includes(matchPolicy)) errors.push(notSupported(`${path}.matchPolicy`, matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = options.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  const sideEffects = stringAt(webhook, 'sideEffects');
  if (sideEffects === undefined) errors.push(required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(sideEffects)) errors.push(notSupported(`${path}.sideEffects`, sideEffects, allowedSideEffects));
  const timeout = webhook['timeoutSeconds'];
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1))
    errors.push(invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  errors.push(...validateLabelSelector(webhook['namespaceSelector'], `${path}.namespaceSelector`, options.allowInvalidLabelValues));
  errors.push(...validateLabelSelector(webhook['objectSelector'], `${path}.objectSelector`, options.allowInvalidLabelValues));
  if (mutating) {
    const reinvocation = stringAt(webhook, 'reinvocationPolicy');
    if (reinvocation !== undefined && !REINVOCATION_POLICIES.includes(reinvocation))
      errors.push(notSupported(`${path}.reinvocationPolicy`, reinvocation, REINVOCATION_POLICIES));
  }
  errors.push(...validateClientConfig(webhook['clientConfig'], `${path}.clientConfig`));
  if (!options.ignoreMatchConditions) errors.push(...validateMatchConditions(webhook['matchConditions'], false, `${path}.matchConditions`));
  return errors;
}

function validateReviewVersions(versions: readonly string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [required(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [index, version] of versions.entries()) {
    if (seen.has(version)) {
      errors.push(invalid(`${path}[${index}]`, version, 'duplicate version'));
      continue;
    }
    seen.add(version);
    for (const problem of isDns1035Label(version)) errors.push(invalid(`${path}[${index}]`, version, problem));
  }
  if (requireRecognized && !versions.some((version) => REVIEW_VERSIONS.includes(version)))
    errors.push(invalid(path, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return errors;
}

/** validateWebhookConfiguration checks the `webhooks` of a validating (`mutating` false) or mutating configuration. */
export function validateWebhookConfiguration(configuration: Record<string, unknown>, mutating: boolean, options: WebhookRuleOptions): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  for (const [index, entry] of listOf(configuration['webhooks']).entries()) {
    const webhook = recordOf(entry) ?? {};
    const path = `webhooks[${index}]`;
    errors.push(...validateWebhook(webhook, mutating, options, path));
    errors.push(
      ...validateReviewVersions(stringsOf(webhook['admissionReviewVersions']), options.requireRecognizedReviewVersion, `${path}.admissionReviewVersions`),
    );
    const name = stringAt(webhook, 'name') ?? '';
    if (options.requireUniqueNames && name !== '') {
      if (names.has(name)) errors.push(duplicate(`${path}.name`, name));
      else names.add(name);
    }
  }
  return errors;
}

/** sameConditions compares two matchConditions lists as Go's DeepEqual does (whatever order the keys came in). */
export function sameConditions(a: unknown, b: unknown): boolean {
  const key = (value: unknown) =>
    Array.isArray(value)
      ? JSON.stringify(value.map((entry) => [stringAt(recordOf(entry), 'name'), stringAt(recordOf(entry), 'expression')]))
      : String(value ?? null);
  return key(a) === key(b);
}

/** updateOptions are the rules of an update from the stored configuration `old`. */
export function updateOptions(next: Record<string, unknown>, old: Record<string, unknown>): WebhookRuleOptions {
  const newHooks = listOf(next['webhooks']).map((hook) => recordOf(hook) ?? {});
  const oldHooks = listOf(old['webhooks']).map((hook) => recordOf(hook) ?? {});
  const oldNames = oldHooks.map((hook) => stringAt(hook, 'name') ?? '');
  return {
    ignoreMatchConditions:
      newHooks.length === oldHooks.length && oldHooks.every((hook, index) => sameConditions(hook['matchConditions'], newHooks[index]?.['matchConditions'])),
    requireNoSideEffects: oldHooks.every((hook) => NO_SIDE_EFFECTS.includes(stringAt(hook, 'sideEffects') ?? '')),
    requireRecognizedReviewVersion: oldHooks.every((hook) => {
      const versions = stringsOf(hook['admissionReviewVersions']);
      return versions.length === 0 || versions.some((version) => REVIEW_VERSIONS.includes(version));
    }),
    requireUniqueNames: new Set(oldNames).size === oldNames.length,
    allowInvalidLabelValues: oldHooks.some(
      (hook) => validateLabelSelector(hook['namespaceSelector'], '').length > 0 || validateLabelSelector(hook['objectSelector'], '').length > 0,
    ),
  };
}
