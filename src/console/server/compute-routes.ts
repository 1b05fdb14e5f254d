/**
 * The compute views' routes: policies (one with rules, history and the backend services attaching
 * it), instance templates, Operations, VM instances, managed instance groups and backend services
 * (each one in detail), and the actions on the last three (compute-actions.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../core/service.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import { ComputeActions } from './compute-actions.ts';
import { ComputeView } from './compute-view.ts';
import { registerWorkloadRoutes } from './compute-workload-routes.ts';
import type { Sessions } from './sessions.ts';

/** registerComputeRoutes adds the compute views' routes. */
export function registerComputeRoutes(app: FastifyInstance, context: ServiceContext, sessions: Sessions): void {
  const view = new ComputeView(context.store);
  const base = `${CONSOLE_PREFIX}/api/compute`;
  app.get(`${base}/policies`, async (request) => {
    view.check(sessions.require(request), 'policies');
    return { policies: await view.policies() };
  });
  // The key (`project/global/name`, `project/regions/r/name`) travels as one encoded segment.
  app.get<{ Params: { key: string } }>(`${base}/policies/:key`, async (request) => {
    view.check(sessions.require(request), 'policies');
    return view.policy(request.params.key);
  });
  app.get(`${base}/templates`, async (request) => {
    view.check(sessions.require(request), 'templates');
    return { templates: await view.templates() };
  });
  app.get(`${base}/operations`, async (request) => {
    view.check(sessions.require(request), 'operations');
    return { operations: await view.operations() };
  });
  registerWorkloadRoutes(app, base, view, new ComputeActions(context.dispatch), sessions);
}
