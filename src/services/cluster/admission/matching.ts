/**
 * Which requests a policy, a binding or a webhook matches (1.32 `policy/matching` and
 * `webhook/predicates`): the resource rules (operations, groups, versions, resources with
 * subresources, scope, resourceNames), the exclude rules, the namespace selector (cluster-scoped
 * requests other than namespaces always match it) and the object selector (the new or the old
 * object's labels). Under `matchPolicy: Equivalent` a rule that names another served version of
 * the same group and resource matches too.
 */
import { selectorMatches } from '../resources/label-selector-object.ts';
import type { AdmissionAttributes } from './attributes.ts';

type Json = Record<string, unknown>;

/** RuleWithOperations is one `rules[]` / `resourceRules[]` entry. */
export interface RuleWithOperations {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly scope?: string;
}

/** MatchResources is a policy's `matchConstraints` or a binding's `matchResources`. */
export interface MatchResources {
  readonly namespaceSelector?: Json;
  readonly objectSelector?: Json;
  readonly resourceRules?: readonly RuleWithOperations[];
  readonly excludeResourceRules?: readonly RuleWithOperations[];
  readonly matchPolicy?: string;
}

/** MatchContext is what matching needs besides the request: a namespace's labels and the versions served for a group and resource. */
export interface MatchContext {
  namespaceLabels(namespace: string): Promise<Readonly<Record<string, string>> | undefined>;
  servedVersions(group: string, resource: string): readonly string[];
}

const has = (list: readonly string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

// resourceMatches reads `resources` as the apiserver does: `*` top-level only, `pods/*` every pods
// subresource, `*/status` every status, `*/*` everything.
function resourceMatches(resources: readonly string[] | undefined, resource: string, subresource: string): boolean {
  const wanted = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const entry of resources ?? []) {
    if (entry === '*/*' || entry === wanted) return true;
    if (entry === '*' && subresource === '') return true;
    const slash = entry.indexOf('/');
    if (slash < 0 || subresource === '') continue;
    const [r, s] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if ((r === '*' || r === resource) && (s === '*' || s === subresource)) return true;
  }
  return false;
}

function scopeMatches(scope: string | undefined, attributes: AdmissionAttributes): boolean {
  if (scope === undefined || scope === '*' || scope === '') return true;
  const isNamespaceObject = attributes.view.group === '' && attributes.view.resource === 'namespaces';
  const namespaced = attributes.namespace !== '' && !isNamespaceObject;
  return scope === 'Namespaced' ? namespaced : !namespaced;
}

/** ruleMatches checks one rule at the given version (the request's own, or an equivalent one). */
export function ruleMatches(rule: RuleWithOperations, attributes: AdmissionAttributes, version: string, withNames: boolean): boolean {
  const { view } = attributes;
  if (!has(rule.operations, attributes.operation)) return false;
  if (!has(rule.apiGroups, view.group)) return false;
  if (!has(rule.apiVersions, version)) return false;
  if (!resourceMatches(rule.resources, view.resource, view.subresource ?? '')) return false;
  if (!scopeMatches(rule.scope, attributes)) return false;
  if (withNames && rule.resourceNames !== undefined && rule.resourceNames.length > 0 && !rule.resourceNames.includes(attributes.name)) return false;
  return true;
}

function anyRuleMatches(
  rules: readonly RuleWithOperations[] | undefined,
  attributes: AdmissionAttributes,
  context: MatchContext,
  equivalent: boolean,
  withNames: boolean,
): boolean {
  for (const rule of rules ?? []) if (ruleMatches(rule, attributes, attributes.view.version, withNames)) return true;
  if (!equivalent) return false;
  for (const version of context.servedVersions(attributes.view.group, attributes.view.resource)) {
    if (version === attributes.view.version) continue;
    for (const rule of rules ?? []) if (ruleMatches(rule, attributes, version, withNames)) return true;
  }
  return false;
}

function labelsOf(object: unknown): Readonly<Record<string, string>> | undefined {
  if (object === null || typeof object !== 'object') return undefined;
  const metadata = (object as Json)['metadata'];
  if (metadata === null || typeof metadata !== 'object') return undefined;
  return ((metadata as Json)['labels'] ?? {}) as Record<string, string>;
}

function isEmptySelector(selector: Json | undefined): boolean {
  if (selector === undefined || selector === null) return true;
  return Object.keys((selector['matchLabels'] ?? {}) as Json).length === 0 && ((selector['matchExpressions'] ?? []) as unknown[]).length === 0;
}

/** objectSelectorMatches: an empty selector matches everything; else the new or the old object's labels must match. */
export function objectSelectorMatches(selector: Json | undefined, attributes: AdmissionAttributes): boolean {
  if (isEmptySelector(selector)) return true;
  for (const object of [attributes.object, attributes.oldObject]) {
    const labels = labelsOf(object);
    if (labels !== undefined && selectorMatches(selector!, labels)) return true;
  }
  return false;
}

/** namespaceSelectorMatches: cluster-scoped requests other than namespaces always match; a Namespace's create or update uses its own new labels. */
export async function namespaceSelectorMatches(selector: Json | undefined, attributes: AdmissionAttributes, context: MatchContext): Promise<boolean> {
  if (isEmptySelector(selector)) return true;
  const isNamespaceObject = attributes.view.group === '' && attributes.view.resource === 'namespaces';
  if (attributes.namespace === '' && !isNamespaceObject) return true;
  let labels: Readonly<Record<string, string>> | undefined;
  if (isNamespaceObject && attributes.view.subresource === undefined && attributes.object !== undefined) labels = labelsOf(attributes.object);
  else labels = await context.namespaceLabels(attributes.namespace);
  return selectorMatches(selector!, labels ?? {});
}

/**
 * matches checks a MatchResources against a request: rules and exclusions first (cheap, no I/O),
 * then the selectors. `requireRules`: a policy's constraints must name rules; a binding's may be
 * empty, constraining nothing.
 */
export async function matches(
  resources: MatchResources | undefined,
  attributes: AdmissionAttributes,
  context: MatchContext,
  requireRules: boolean,
): Promise<boolean> {
  if (resources === undefined) return !requireRules;
  const equivalent = resources.matchPolicy !== 'Exact';
  const rules = resources.resourceRules ?? [];
  if (rules.length > 0 || requireRules) {
    if (!anyRuleMatches(rules, attributes, context, equivalent, true)) return false;
  }
  if (anyRuleMatches(resources.excludeResourceRules, attributes, context, equivalent, true)) return false;
  if (!objectSelectorMatches(resources.objectSelector, attributes)) return false;
  return namespaceSelectorMatches(resources.namespaceSelector, attributes, context);
}
