/**
 * The rules webhooks and policies match requests with (upstream `validateRule`,
 * `validateRuleWithOperations`, `validateNamedRuleWithOperations`): apiGroups and apiVersions
 * required, `*` alone; resources required, with the wildcard rules of subresources (`*`, `x/*`,
 * `*\/x`, `*\/*`); a known scope; operations required, known, `*` alone; resourceNames path
 * segments without duplicates.
 */
import { duplicate, type FieldError, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { isPathSegmentName } from '../../apimachinery/name-rules.ts';
import { recordOf, stringAt, stringsOf, typedStrings } from './go-literals.ts';

const SCOPES = ['*', 'Cluster', 'Namespaced'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** validateResources checks `resources`, subresources allowed. */
function validateResources(resources: readonly string[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(required(path));
  const withWildcardSubresource = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  for (const [index, entry] of resources.entries()) {
    if (entry === '') {
      errors.push(required(`${path}[${index}]`));
      continue;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) {
      // As upstream, the last resource without a subresource decides.
      withoutSubresource = entry !== '*';
      continue;
    }
    const resource = entry.slice(0, slash);
    const subresource = entry.slice(slash + 1);
    if (withWildcardSubresource.has(resource)) errors.push(invalid(`${path}[${index}]`, entry, `if '${resource}/*' is present, must not specify ${entry}`));
    if (subresourcesWithWildcardResource.has(subresource))
      errors.push(invalid(`${path}[${index}]`, entry, `if '*/${subresource}' is present, must not specify ${entry}`));
    if (subresource === '*') withWildcardSubresource.add(resource);
    if (resource === '*') subresourcesWithWildcardResource.add(subresource);
  }
  if (resources.length > 1 && doubleWildcard) errors.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource) errors.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

/** validateRule checks the group, version, resource and scope part of a rule at `path`. */
function validateRule(rule: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const groups = stringsOf(rule['apiGroups']);
  if (groups.length === 0) errors.push(required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errors.push(invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = stringsOf(rule['apiVersions']);
  if (versions.length === 0) errors.push(required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*'))
    errors.push(invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  for (const [index, version] of versions.entries()) if (version === '') errors.push(required(`${path}.apiVersions[${index}]`));
  errors.push(...validateResources(stringsOf(rule['resources']), `${path}.resources`));
  const scope = stringAt(rule, 'scope');
  if (scope !== undefined && !SCOPES.includes(scope)) errors.push(notSupported(`${path}.scope`, scope, SCOPES));
  return errors;
}

/** validateRuleWithOperations checks one webhook rule (operations plus the inlined rule). */
export function validateRuleWithOperations(value: unknown, path: string): FieldError[] {
  const rule = recordOf(value) ?? {};
  const errors: FieldError[] = [];
  const operations = stringsOf(rule['operations']);
  if (operations.length === 0) errors.push(required(`${path}.operations`));
  if (operations.length > 1 && operations.includes('*'))
    errors.push(invalid(`${path}.operations`, typedStrings('OperationType', operations), "if '*' is present, must not specify other operations"));
  for (const [index, operation] of operations.entries()) {
    if (!OPERATIONS.includes(operation)) errors.push(notSupported(`${path}.operations[${index}]`, operation, OPERATIONS));
  }
  errors.push(...validateRule(rule, path));
  return errors;
}

/** validateNamedRuleWithOperations checks a policy rule: its resourceNames, then the rule. */
export function validateNamedRuleWithOperations(value: unknown, path: string): FieldError[] {
  const rule = recordOf(value) ?? {};
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const [index, name] of stringsOf(rule['resourceNames']).entries()) {
    for (const problem of isPathSegmentName(name)) errors.push(invalid(`${path}.resourceNames[${index}]`, name, problem));
    if (seen.has(name)) errors.push(duplicate(`${path}.resourceNames[${index}]`, name));
    else seen.add(name);
  }
  errors.push(...validateRuleWithOperations(rule, path));
  return errors;
}
