/**
 * The Kubernetes `authz` library (k8s.io/apiserver/pkg/cel/library/authz.go): the `authorizer`
 * variable of admission expressions builds a check — `authorizer.group('apps').resource('deployments')
 * .subresource('status').namespace('default').name('x').check('create')`, `authorizer.path('/healthz')
 * .check('get')`, `authorizer.serviceAccount('ns', 'sa')` to ask for another user — and a check's
 * Decision answers `allowed()`, `reason()`, `errored()`, `error()`. Checks are answered by the
 * function an Authorizer value carries (fogbank's RBAC), synchronously. A check costs 350,000,
 * as the library's cost estimator prices it.
 */
import { BOOL, opaque, STRING } from './cel-types.ts';
import { fixed, type Overload } from './overloads.ts';
import { Opaque, type Value } from './runtime-values.ts';

const AUTHORIZER = opaque('kubernetes.authorization.Authorizer');
const PATH_CHECK = opaque('kubernetes.authorization.PathCheck');
const GROUP_CHECK = opaque('kubernetes.authorization.GroupCheck');
const RESOURCE_CHECK = opaque('kubernetes.authorization.ResourceCheck');
const DECISION = opaque('kubernetes.authorization.Decision');

/** AUTHORIZER_TYPE is the declared type of the `authorizer` variable. */
export const AUTHORIZER_TYPE = AUTHORIZER;

/** AUTHZ_CHECK_COST is the cost of one `check` (the library's estimate and run-time cost). */
export const AUTHZ_CHECK_COST = 350_000;

/** AuthzRequest is one check: a resource request (group, resource, …) or a non-resource path. */
export interface AuthzRequest {
  readonly verb: string;
  readonly path?: string;
  readonly group?: string;
  readonly resource?: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** AuthzDecision is what the authorizer answers. */
export interface AuthzDecision {
  readonly allowed: boolean;
  readonly reason: string;
  readonly error?: string;
}

/** AuthorizerValue is the `authorizer` variable: who asks, and how checks are answered. */
export class AuthorizerValue extends Opaque {
  readonly typeName = 'kubernetes.authorization.Authorizer';
  constructor(
    readonly user: string,
    readonly decide: (user: string, request: AuthzRequest) => AuthzDecision,
  ) {
    super();
  }
  equals(other: Opaque): boolean {
    return other === this;
  }
}

class PathCheck extends Opaque {
  readonly typeName = 'kubernetes.authorization.PathCheck';
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly path: string,
  ) {
    super();
  }
  equals(other: Opaque): boolean {
    return other === this;
  }
}

class GroupCheck extends Opaque {
  readonly typeName = 'kubernetes.authorization.GroupCheck';
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly group: string,
  ) {
    super();
  }
  equals(other: Opaque): boolean {
    return other === this;
  }
}

class ResourceCheck extends Opaque {
  readonly typeName = 'kubernetes.authorization.ResourceCheck';
  constructor(
    readonly authorizer: AuthorizerValue,
    readonly request: Omit<AuthzRequest, 'verb'>,
  ) {
    super();
  }
  with(member: 'subresource' | 'namespace' | 'name', value: string): ResourceCheck {
    return new ResourceCheck(this.authorizer, { ...this.request, [member]: value });
  }
  equals(other: Opaque): boolean {
    return other === this;
  }
}

class Decision extends Opaque {
  readonly typeName = 'kubernetes.authorization.Decision';
  constructor(readonly decision: AuthzDecision) {
    super();
  }
  equals(other: Opaque): boolean {
    return other === this;
  }
}

const method = (name: string, params: Overload['params'], result: Overload['result'], impl: (args: readonly Value[]) => Value, cost = 1): Overload => ({
  name,
  member: true,
  params,
  result,
  estimate: () => ({ cost: fixed(cost) }),
  cost: () => cost,
  impl,
});

const str = (value: Value | undefined): string => String(value);

/** AUTHZ_OVERLOADS are the library's functions. */
export const AUTHZ_OVERLOADS: readonly Overload[] = [
  method('path', [AUTHORIZER, STRING], PATH_CHECK, (args) => new PathCheck(args[0] as AuthorizerValue, str(args[1]))),
  method('group', [AUTHORIZER, STRING], GROUP_CHECK, (args) => new GroupCheck(args[0] as AuthorizerValue, str(args[1]))),
  method('serviceAccount', [AUTHORIZER, STRING, STRING], AUTHORIZER, (args) => {
    const authorizer = args[0] as AuthorizerValue;
    return new AuthorizerValue(`system:serviceaccount:${str(args[1])}:${str(args[2])}`, authorizer.decide);
  }),
  method('resource', [GROUP_CHECK, STRING], RESOURCE_CHECK, (args) => {
    const check = args[0] as GroupCheck;
    return new ResourceCheck(check.authorizer, { group: check.group, resource: str(args[1]) });
  }),
  method('subresource', [RESOURCE_CHECK, STRING], RESOURCE_CHECK, (args) => (args[0] as ResourceCheck).with('subresource', str(args[1]))),
  method('namespace', [RESOURCE_CHECK, STRING], RESOURCE_CHECK, (args) => (args[0] as ResourceCheck).with('namespace', str(args[1]))),
  method('name', [RESOURCE_CHECK, STRING], RESOURCE_CHECK, (args) => (args[0] as ResourceCheck).with('name', str(args[1]))),
  method(
    'check',
    [PATH_CHECK, STRING],
    DECISION,
    (args) => {
      const check = args[0] as PathCheck;
      return new Decision(check.authorizer.decide(check.authorizer.user, { verb: str(args[1]), path: check.path }));
    },
    AUTHZ_CHECK_COST,
  ),
  method(
    'check',
    [RESOURCE_CHECK, STRING],
    DECISION,
    (args) => {
      const check = args[0] as ResourceCheck;
      return new Decision(check.authorizer.decide(check.authorizer.user, { ...check.request, verb: str(args[1]) }));
    },
    AUTHZ_CHECK_COST,
  ),
  method('allowed', [DECISION], BOOL, (args) => (args[0] as Decision).decision.allowed),
  method('reason', [DECISION], STRING, (args) => (args[0] as Decision).decision.reason),
  method('errored', [DECISION], BOOL, (args) => (args[0] as Decision).decision.error !== undefined),
  method('error', [DECISION], STRING, (args) => (args[0] as Decision).decision.error ?? ''),
];
