/**
 * The write-time read checks on a policy's params (upstream
 * `pkg/registry/admissionregistration/validatingadmissionpolicy/authz.go` and
 * `validatingadmissionpolicybinding/authz.go`, run from the strategies' Validate and
 * ValidateUpdate once the object is otherwise valid): whoever writes a ValidatingAdmissionPolicy
 * with a `paramKind` must be allowed to `get` every object of that kind, and whoever writes a
 * binding with a `paramRef` must be allowed to `get` the named param (`list` for a selector) —
 * so no one can make admission read, on their behalf, objects they cannot read themselves.
 *
 * As upstream: the kind resolves to its resource through the served kinds (the RESTMapper); an
 * apiVersion that does not parse checks every group, version and resource (`*`), one that parses
 * but does not resolve checks the group and version with resource `*`; a binding whose policy
 * is missing or has no paramKind checks `*` throughout. `system:masters` skips the checks, an
 * update that keeps the policy's paramKind skips them, and so does an update that keeps the
 * binding's paramRef and policyName — which, as in Go (the pointer fields `selector` and
 * `parameterNotFoundAction` compare by address), only a paramRef with neither field can do. The
 * refusal is a 422 with one `Forbidden` field error at `spec.paramKind` / `spec.paramRef`, the user
 * printed as Go's `%v` of a `*user.DefaultInfo` (`&{alice  [devs system:authenticated] map[]}`).
 * The server's own writes carry no requester and are not checked.
 */
import type { Transaction } from '../../../../store/index.ts';
import type { UserInfo } from '../../cluster-auth.ts';
import { forbidden, type FieldError } from '../../apimachinery/field-errors.ts';
import type { KubeObject } from '../../apimachinery/object-meta.ts';
import type { RequestScope } from '../../apimachinery/registry.ts';
import { invalidObject } from '../../apimachinery/status.ts';
import { type Authorizer, MASTERS_GROUP } from '../../rbac/authorizer.ts';
import { ADMISSION_STORE_KINDS } from '../stored-configurations.ts';
import { recordOf, stringAt } from './go-literals.ts';

/** ResourceResolver is the RESTMapper: the plural resource serving a group, version and kind, if one is served. */
export type ResourceResolver = (group: string, version: string, kind: string) => string | undefined;

/** goUserInfo is Go's `%v` of a `*user.DefaultInfo`: `&{Name UID [Groups] map[Extra]}`, the map's keys sorted. */
export function goUserInfo(user: UserInfo): string {
  const extra = Object.keys(user.extra ?? {})
    .sort()
    .map((key) => `${key}:[${(user.extra?.[key] ?? []).join(' ')}]`)
    .join(' ');
  return `&{${user.name} ${user.uid ?? ''} [${user.groups.join(' ')}] map[${extra}]}`;
}

/** parseGroupVersion is `schema.ParseGroupVersion`: undefined for more than one `/`. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** Target is what a check asks about: group, version and resource, each `*` where unknown. */
interface Target {
  readonly group: string;
  readonly resource: string;
}

function targetOf(paramKind: Record<string, unknown> | undefined, resolve: ResourceResolver): Target {
  const parsed = paramKind === undefined ? undefined : parseGroupVersion(stringAt(paramKind, 'apiVersion') ?? '');
  if (paramKind === undefined || parsed === undefined) return { group: '*', resource: '*' };
  return { group: parsed.group, resource: resolve(parsed.group, parsed.version, stringAt(paramKind, 'kind') ?? '') ?? '*' };
}

function allowed(authorizer: Authorizer, user: UserInfo, verb: string, target: Target, name: string, namespace: string): boolean {
  const apiGroup = target.group === '' || target.group === '*' ? target.group : authorizer.groups.canonical(target.group);
  return authorizer.decide(user, {
    verb,
    resourceRequest: true,
    apiGroup,
    apiGroupSpelled: target.group,
    resource: target.resource,
    subresource: '',
    name,
    namespace,
    path: '',
  }).allowed;
}

const specOf = (object: KubeObject | undefined) => recordOf((object as Record<string, unknown> | undefined)?.['spec']);

/** policyProblem is the paramKind check of a policy create (old undefined) or update. */
function policyProblem(authorizer: Authorizer, resolve: ResourceResolver, user: UserInfo, object: KubeObject, old: KubeObject | undefined): string | undefined {
  const paramKind = recordOf(specOf(object)?.['paramKind']);
  if (paramKind === undefined) return undefined;
  const oldKind = recordOf(specOf(old)?.['paramKind']);
  const apiVersion = stringAt(paramKind, 'apiVersion') ?? '';
  const kind = stringAt(paramKind, 'kind') ?? '';
  if (oldKind !== undefined && (stringAt(oldKind, 'apiVersion') ?? '') === apiVersion && (stringAt(oldKind, 'kind') ?? '') === kind) return undefined;
  if (allowed(authorizer, user, 'get', targetOf(paramKind, resolve), '*', '*')) return undefined;
  return `user ${goUserInfo(user)} must have "get" permission on all objects of the referenced paramKind (kind=${kind}, apiVersion=${apiVersion})`;
}

/** sameParamRef is Go's `*old == *new` on ParamRef: strings by value, the two pointer fields only when both are nil. */
function sameParamRef(ref: Record<string, unknown>, old: Record<string, unknown> | undefined): boolean {
  if (old === undefined) return false;
  const pointersNil = (value: Record<string, unknown>) => value['selector'] == null && value['parameterNotFoundAction'] == null;
  return (
    (stringAt(ref, 'name') ?? '') === (stringAt(old, 'name') ?? '') &&
    (stringAt(ref, 'namespace') ?? '') === (stringAt(old, 'namespace') ?? '') &&
    pointersNil(ref) &&
    pointersNil(old)
  );
}

/** bindingProblem is the paramRef check of a binding create (old undefined) or update. */
async function bindingProblem(
  tx: Transaction,
  authorizer: Authorizer,
  resolve: ResourceResolver,
  user: UserInfo,
  object: KubeObject,
  old: KubeObject | undefined,
): Promise<string | undefined> {
  const spec = specOf(object);
  const ref = recordOf(spec?.['paramRef']);
  if (ref === undefined) return undefined;
  const policyName = stringAt(spec ?? {}, 'policyName') ?? '';
  const oldSpec = specOf(old);
  if (old !== undefined && sameParamRef(ref, recordOf(oldSpec?.['paramRef'])) && (stringAt(oldSpec ?? {}, 'policyName') ?? '') === policyName) return undefined;
  const policy = (await tx.get<KubeObject>(ADMISSION_STORE_KINDS.policies, policyName))?.value;
  const target = targetOf(recordOf(specOf(policy)?.['paramKind']), resolve);
  const name = stringAt(ref, 'name') ?? '';
  const verb = name === '' ? 'list' : 'get';
  if (allowed(authorizer, user, verb, target, name, stringAt(ref, 'namespace') ?? '')) return undefined;
  return `user ${goUserInfo(user)} does not have "${verb}" permission on the object referenced by paramRef`;
}

/**
 * paramAuthorizationCheck is the registry's beforeWrite hook for the two kinds (it runs after the
 * object passed validation, as upstream's `len(errs) == 0`); `/status` writes are not checked.
 */
export function paramAuthorizationCheck(
  authorizer: Authorizer,
  resolve: ResourceResolver,
): (tx: Transaction, scope: RequestScope, object: KubeObject, old: KubeObject | undefined) => Promise<void> {
  return async (tx, { view, requester: user }, object, old) => {
    if (user === undefined || user.groups.includes(MASTERS_GROUP) || view.subresource !== undefined) return;
    let error: FieldError | undefined;
    if (view.storeKind === ADMISSION_STORE_KINDS.policies) {
      const problem = policyProblem(authorizer, resolve, user, object, old);
      if (problem !== undefined) error = forbidden('spec.paramKind', problem);
    } else if (view.storeKind === ADMISSION_STORE_KINDS.bindings) {
      const problem = await bindingProblem(tx, authorizer, resolve, user, object, old);
      if (problem !== undefined) error = forbidden('spec.paramRef', problem);
    }
    if (error !== undefined) throw invalidObject(view.strategy.invalidKind, object.metadata.name ?? '', [error]);
  };
}
