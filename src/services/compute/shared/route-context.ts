import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../../core/auth.ts';
import { authorize, type AccessCheck } from './authorize.ts';
import { linksFor, type Links } from './links.ts';
import { GLOBAL, regionScope, type Scope } from './locations.ts';

/** Params are a compute route's path parameters. */
export type Params = Record<string, string>;

/** RouteContext bundles what every compute handler reads from its request. */
export interface RouteContext {
  readonly params: Params;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly links: Links;
  readonly request: FastifyRequest;
  /** authorize checks scopes and one permission and returns the caller. */
  authorize(check: AccessCheck): Principal;
}

/** routeContext reads a request into a RouteContext. */
export function routeContext(request: FastifyRequest): RouteContext {
  return {
    params: request.params as Params,
    query: (request.query ?? {}) as Record<string, unknown>,
    body: request.body,
    links: linksFor(request),
    request,
    authorize: (check) => authorize(request, check),
  };
}

/** LocationRoute is one home of a collection: the URL segment before it and how to read its scope from the path. */
export interface LocationRoute {
  readonly path: string;
  readonly scopeOf: (params: Params) => Scope;
}

/** GLOBAL_AND_REGIONAL_ROUTES are the homes of collections that exist globally and per region. */
export const GLOBAL_AND_REGIONAL_ROUTES: readonly LocationRoute[] = [
  { path: 'global', scopeOf: () => GLOBAL },
  { path: 'regions/:region', scopeOf: (p) => regionScope(p['region']!) },
];
