/**
 * What the apiextensions-apiserver's controllers write into a CRD's status, computed at once
 * because fogbank runs no controller loop: the naming controller (`controller/status`: names
 * accepted unless another CRD of the same group holds them, `NamesAccepted` with its conflict
 * reasons), the establishing controller (`controller/establish`: a single apiserver establishes
 * as soon as names are accepted), the API approval controller (`controller/apiapproval`:
 * `KubernetesAPIApprovalPolicyConformant` for protected groups) and the stored versions the
 * registry's strategy records.
 */
import type { CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames, CustomResourceDefinitionStatus } from '../types.ts';
import { apiApprovalState, isProtectedCommunityGroup } from './api-approval.ts';
import { caBundleProblem } from './ca-bundle.ts';

/**
 * acceptNames is the CRD's status after its controllers have run: accepted names and the
 * `NamesAccepted`, `Established` (and, for protected groups, `KubernetesAPIApprovalPolicyConformant`)
 * conditions, given the other CRDs stored; `now` (RFC 3339) stamps changed conditions.
 */
export function acceptNames(input: CustomResourceDefinition, others: readonly CustomResourceDefinition[], now: string): CustomResourceDefinitionStatus {
  // Names as v1 defaulting leaves them (singular, listKind), should the caller not have defaulted the spec.
  const crd = { ...input, spec: { ...input.spec, names: defaultedNames(input.spec.names) } };
  const status = crd.status ?? {};
  let conditions = (status.conditions ?? []).map((condition) => ({ ...condition }));
  let acceptedNames: CustomResourceDefinitionNames = status.acceptedNames ?? { plural: '', kind: '' };

  if (!sameNames(crd.spec.names, status.acceptedNames)) {
    const result = calculateNamesAndConditions(crd, others, conditions);
    const namesCondition = conditions.find((condition) => condition.type === 'NamesAccepted');
    if (!sameNames(acceptedNames, result.names) || !equivalent(result.namesAccepted, namesCondition)) {
      acceptedNames = result.names;
      conditions = setCondition(conditions, result.namesAccepted, now);
      conditions = setCondition(conditions, result.established, now);
    }
  }

  if (isTrue(conditions, 'NamesAccepted') && !isTrue(conditions, 'Established')) {
    // The establishing controller; a conversion webhook whose CA bundle client-go cannot load keeps the CRD unestablished.
    const clientConfig = crd.spec.conversion?.webhook?.clientConfig as { caBundle?: unknown } | undefined | null;
    const caBundle = typeof clientConfig?.caBundle === 'string' ? clientConfig.caBundle : undefined;
    conditions = setCondition(
      conditions,
      clientConfig !== undefined && clientConfig !== null && caBundleProblem(caBundle) !== undefined
        ? { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' }
        : { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
      now,
    );
  }

  const approval = approvalCondition(crd);
  if (approval !== undefined) conditions = setCondition(conditions, approval, now);

  return { conditions, acceptedNames, storedVersions: storedVersions(crd) };
}

function defaultedNames(names: CustomResourceDefinitionNames): CustomResourceDefinitionNames {
  const kind = typeof names.kind === 'string' ? names.kind : '';
  return {
    ...names,
    ...(names.singular === undefined || names.singular === '' ? { singular: kind.toLowerCase() } : {}),
    ...((names.listKind === undefined || names.listKind === '') && kind !== '' ? { listKind: `${kind}List` } : {}),
  };
}

/** storedVersions keeps every version ever stored and adds the current storage version. */
function storedVersions(crd: CustomResourceDefinition): string[] {
  const stored = [...(crd.status?.storedVersions ?? [])];
  const storage = crd.spec.versions.find((version) => version.storage);
  if (storage !== undefined && !stored.includes(storage.name)) stored.push(storage.name);
  return stored;
}

interface Calculated {
  readonly names: CustomResourceDefinitionNames;
  readonly namesAccepted: CustomResourceDefinitionCondition;
  readonly established: CustomResourceDefinitionCondition;
}

/** calculateNamesAndConditions is the naming controller's decision for one CRD. */
function calculateNamesAndConditions(
  crd: CustomResourceDefinition,
  others: readonly CustomResourceDefinition[],
  conditions: readonly CustomResourceDefinitionCondition[],
): Calculated {
  // The controller lists every CRD of the group, this one (with its current accepted names) included.
  const group = [crd, ...others.filter((other) => other.metadata.name !== crd.metadata.name)].filter((other) => other.spec.group === crd.spec.group);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const item of group) {
    const accepted = item.status?.acceptedNames;
    resources.add(accepted?.plural ?? '');
    resources.add(accepted?.singular ?? '');
    for (const shortName of accepted?.shortNames ?? []) resources.add(shortName);
    kinds.add(accepted?.kind ?? '');
    kinds.add(accepted?.listKind ?? '');
  }

  const requested = crd.spec.names;
  const accepted: Partial<CustomResourceDefinitionNames> = crd.status?.acceptedNames ?? {};
  const names: CustomResourceDefinitionNames = { plural: accepted.plural ?? '', kind: accepted.kind ?? '' };
  copyOptional(names, accepted);
  let namesAccepted: CustomResourceDefinitionCondition = { type: 'NamesAccepted', status: 'Unknown' };
  const conflict = (reason: string, message: string): void => {
    namesAccepted = { type: 'NamesAccepted', status: 'False', reason, message };
  };

  const plural = conflictOf(requested.plural, accepted.plural ?? '', resources);
  if (plural !== undefined) conflict('PluralConflict', plural);
  else names.plural = requested.plural;
  const singular = conflictOf(requested.singular ?? '', accepted.singular ?? '', resources);
  if (singular !== undefined) conflict('SingularConflict', singular);
  else setName(names, 'singular', requested.singular);
  if (!sameList(requested.shortNames, accepted.shortNames)) {
    const owned = new Set(accepted.shortNames ?? []);
    const problems = (requested.shortNames ?? [])
      .filter((shortName) => !owned.has(shortName))
      .flatMap((shortName) => conflictOf(shortName, '', resources) ?? []);
    if (problems.length > 0) conflict('ShortNamesConflict', problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    else setName(names, 'shortNames', requested.shortNames);
  }
  const kind = conflictOf(requested.kind, accepted.kind ?? '', kinds);
  if (kind !== undefined) conflict('KindConflict', kind);
  else names.kind = requested.kind;
  const listKind = conflictOf(requested.listKind ?? '', accepted.listKind ?? '', kinds);
  if (listKind !== undefined) conflict('ListKindConflict', listKind);
  else setName(names, 'listKind', requested.listKind);
  setName(names, 'categories', requested.categories);

  if (namesAccepted.status === 'Unknown') namesAccepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  // Established starts False and only the establishing controller turns it True.
  let established: CustomResourceDefinitionCondition = conditions.find((condition) => condition.type === 'Established') ?? {
    type: 'Established',
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
  };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { names, namesAccepted, established };
}

/** conflictOf is the naming controller's equalToAcceptedOrFresh: a name is fine if already ours or unused. */
function conflictOf(requested: string, accepted: string, used: ReadonlySet<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

/** approvalCondition is the API approval controller's condition, for protected groups only. */
function approvalCondition(crd: CustomResourceDefinition): CustomResourceDefinitionCondition | undefined {
  if (!isProtectedCommunityGroup(crd.spec.group)) return undefined;
  const { state, reason } = apiApprovalState(crd.metadata.annotations);
  const type = 'KubernetesAPIApprovalPolicyConformant';
  switch (state) {
    case 'invalid':
      return { type, status: 'False', reason: 'InvalidAnnotation', message: reason };
    case 'missing':
      return { type, status: 'False', reason: 'MissingAnnotation', message: reason };
    case 'approved':
      return { type, status: 'True', reason: 'ApprovedAnnotation', message: reason };
    case 'bypassed':
      return { type, status: 'False', reason: 'UnapprovedAnnotation', message: reason };
  }
}

/** setCondition is apihelpers.SetCRDCondition: replace in place, keeping lastTransitionTime unless the status changed. */
function setCondition(
  conditions: readonly CustomResourceDefinitionCondition[],
  condition: CustomResourceDefinitionCondition,
  now: string,
): CustomResourceDefinitionCondition[] {
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  const fresh: CustomResourceDefinitionCondition = { type: condition.type, status: condition.status, lastTransitionTime: now };
  if (condition.reason !== undefined) fresh.reason = condition.reason;
  if (condition.message !== undefined) fresh.message = condition.message;
  if (index === -1) return [...conditions, fresh];
  const existing = conditions[index]!;
  if (existing.status === condition.status && existing.lastTransitionTime !== undefined && existing.lastTransitionTime !== '') {
    fresh.lastTransitionTime = existing.lastTransitionTime;
  }
  return conditions.map((item, at) => (at === index ? fresh : item));
}

function isTrue(conditions: readonly CustomResourceDefinitionCondition[], type: string): boolean {
  return conditions.some((condition) => condition.type === type && condition.status === 'True');
}

/** equivalent is apihelpers.IsCRDConditionEquivalent: same type, status, reason and message. */
function equivalent(a: CustomResourceDefinitionCondition, b: CustomResourceDefinitionCondition | undefined): boolean {
  return b !== undefined && a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}

/** sameNames compares names as equality.Semantic does (an empty list equals an absent one). */
function sameNames(a: CustomResourceDefinitionNames | undefined, b: CustomResourceDefinitionNames | undefined): boolean {
  return (
    (a?.plural ?? '') === (b?.plural ?? '') &&
    (a?.singular ?? '') === (b?.singular ?? '') &&
    (a?.kind ?? '') === (b?.kind ?? '') &&
    (a?.listKind ?? '') === (b?.listKind ?? '') &&
    sameList(a?.shortNames, b?.shortNames) &&
    sameList(a?.categories, b?.categories)
  );
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((item, index) => item === right[index]);
}

function copyOptional(target: CustomResourceDefinitionNames, source: Partial<CustomResourceDefinitionNames>): void {
  setName(target, 'singular', source.singular);
  setName(target, 'shortNames', source.shortNames);
  setName(target, 'listKind', source.listKind);
  setName(target, 'categories', source.categories);
}

function setName<K extends 'singular' | 'shortNames' | 'listKind' | 'categories'>(
  target: CustomResourceDefinitionNames,
  key: K,
  value: CustomResourceDefinitionNames[K],
): void {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) delete target[key];
  else target[key] = value;
}
