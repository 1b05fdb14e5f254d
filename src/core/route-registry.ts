import type { FastifyInstance } from 'fastify';

/** RegisteredRoute is one route as Fastify registered it, and the family whose `register` added it. */
export interface RegisteredRoute {
  readonly method: string;
  /** The route's URL pattern with its prefix, e.g. `/compute/v1/projects/:project/global/instanceTemplates/:name`. */
  readonly url: string;
  /** The ServiceDefinition name, or undefined for core's own routes (`/healthz`). */
  readonly family: string | undefined;
}

const routesByApp = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * RouteRecorder collects every route registered on an app (an `onRoute` hook), tagged with the
 * family being registered at the time. Tests walk the list, so a new route is covered by being
 * registered, never by being listed by hand.
 */
export class RouteRecorder {
  private family: string | undefined;
  private readonly routes: RegisteredRoute[] = [];

  constructor(app: FastifyInstance) {
    routesByApp.set(app, this.routes);
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) this.routes.push({ method: String(method), url: route.url, family: this.family });
    });
  }

  /** during tags the routes registered while `work` runs with the family's name. */
  async during(family: string, work: () => Promise<void>): Promise<void> {
    this.family = family;
    try {
      await work();
    } finally {
      this.family = undefined;
    }
  }
}

/** registeredRoutes lists every route of a server built by buildServer, in registration order. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return routesByApp.get(app) ?? [];
}
