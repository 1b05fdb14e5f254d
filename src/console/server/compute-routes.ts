/** The compute views' routes: policies (one with rules and history), instance templates, Operations. */
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import { ComputeView } from './compute-view.ts';
import type { Sessions } from './sessions.ts';

/** registerComputeRoutes adds the compute views' routes. */
export function registerComputeRoutes(app: FastifyInstance, store: Store, sessions: Sessions): void {
  const view = new ComputeView(store);
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
}
