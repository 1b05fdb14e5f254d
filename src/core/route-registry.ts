/** RegisteredRoute is one route as a family's Fastify app registered it, and the family that registered it. */
export interface RegisteredRoute {
  readonly method: string;
  /** The route's URL pattern with its prefix, e.g. `/compute/v1/projects/:project/global/instanceTemplates/:name`. */
  readonly url: string;
  /** The ServiceDefinition name, or undefined for core's own routes (`/healthz`). */
  readonly family: string | undefined;
}

const routesByServer = new WeakMap<object, () => readonly RegisteredRoute[]>();

/**
 * recordRoutes ties a server (built by buildServer) to what lists its routes: core's own, then each
 * family's, as its app recorded them while it was built (an `onRoute` hook). Tests walk the list,
 * so a new route is covered by being registered, never by being listed by hand.
 */
export function recordRoutes(server: object, list: () => readonly RegisteredRoute[]): void {
  routesByServer.set(server, list);
}

/**
 * registeredRoutes lists every route of a server built by buildServer, in registration order: of
 * the families built so far (each is built by its first request, or all at once by `warmUp`).
 */
export function registeredRoutes(server: object): readonly RegisteredRoute[] {
  return routesByServer.get(server)?.() ?? [];
}
