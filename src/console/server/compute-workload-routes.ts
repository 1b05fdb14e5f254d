/**
 * The routes of the instances, managed instance groups and backend services views: lists, one
 * of each in detail (the key, `project/zones/z/name`, as one encoded segment), and their actions.
 * An action names its resource by key and is carried out by the compute API's own method on the
 * resource's path (compute-actions.ts), after the console's checks of a change (Origin, CSRF).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiOperation, ComputeActions } from './compute-actions.ts';
import type { ComputeView } from './compute-view.ts';
import { ConsoleError } from './errors.ts';
import type { Sessions, SignedIn } from './sessions.ts';

/** INSTANCE_METHODS are the lifecycle methods the instance view offers. */
const INSTANCE_METHODS = ['start', 'stop', 'reset', 'suspend', 'resume'] as const;

/** POLICY_SLOTS are a backend service's two policy fields and the API method setting each. */
const POLICY_SLOTS = { securityPolicy: 'setSecurityPolicy', edgeSecurityPolicy: 'setEdgeSecurityPolicy' } as const;

/** POLICY_KEY is a security policy's key as the policies view names it: project, `global` or `regions/r`, name. */
const POLICY_KEY = /^([^/]+)\/(global|regions\/[^/]+)\/([^/]+)$/;

type KeyParams = { Params: { key: string } };

/** registerWorkloadRoutes adds the instances, groups and backend services views' routes under `base`. */
export function registerWorkloadRoutes(app: FastifyInstance, base: string, view: ComputeView, actions: ComputeActions, sessions: Sessions): void {
  /** changer checks a change (Origin, CSRF) and the principal's right to see the view, before anything of the body is read. */
  const changer = (request: FastifyRequest, what: Parameters<ComputeView['check']>[1]): SignedIn => {
    const signedIn = sessions.requireMutation(request, false);
    view.check(signedIn, what);
    return signedIn;
  };
  /** act calls the API method (`suffix` after the resource's path) on the resource `locate` finds (its 404 when there is none). */
  const act = async (
    signedIn: SignedIn,
    request: FastifyRequest,
    locate: Promise<{ readonly path: string }>,
    method: 'POST' | 'DELETE',
    suffix: string,
    body?: unknown,
  ): Promise<{ operation: ApiOperation }> => {
    const { path } = await locate;
    return { operation: await actions.call(signedIn, request, method, `${path}${suffix}`, body) };
  };

  app.get(`${base}/instances`, async (request) => {
    view.check(sessions.require(request), 'instances');
    return { instances: await view.instances() };
  });
  app.get<KeyParams>(`${base}/instances/:key`, async (request) => {
    view.check(sessions.require(request), 'instances');
    return view.instance(request.params.key);
  });
  app.post<{ Params: { key: string; method: string } }>(`${base}/instances/:key/:method`, async (request) => {
    const signedIn = changer(request, 'instances');
    const method = request.params.method;
    if (!(INSTANCE_METHODS as readonly string[]).includes(method))
      throw new ConsoleError(404, `No instance action ${JSON.stringify(method)}: the console offers ${INSTANCE_METHODS.join(', ')}.`);
    noBody(request.body);
    return act(signedIn, request, view.instance(request.params.key), 'POST', `/${method}`);
  });
  app.delete<KeyParams>(`${base}/instances/:key`, async (request) =>
    act(changer(request, 'instances'), request, view.instance(request.params.key), 'DELETE', ''),
  );

  app.get(`${base}/groups`, async (request) => {
    view.check(sessions.require(request), 'groups');
    return { groups: await view.groups() };
  });
  app.get<KeyParams>(`${base}/groups/:key`, async (request) => {
    view.check(sessions.require(request), 'groups');
    return view.group(request.params.key);
  });
  app.post<KeyParams>(`${base}/groups/:key/resize`, async (request) => {
    const signedIn = changer(request, 'groups');
    const { size } = objectBody(request.body, ['size'], 'Send {"size": <the new target size>}.');
    if (typeof size !== 'number' || !Number.isSafeInteger(size)) throw new ConsoleError(400, '"size" must be a whole number.');
    // The API decides what a size may be (its own message for a negative one).
    return act(signedIn, request, view.group(request.params.key), 'POST', `/resize?size=${size}`);
  });
  app.delete<KeyParams>(`${base}/groups/:key`, async (request) => act(changer(request, 'groups'), request, view.group(request.params.key), 'DELETE', ''));

  app.get(`${base}/backend-services`, async (request) => {
    view.check(sessions.require(request), 'backend services');
    return { backendServices: await view.backendServices() };
  });
  app.get<KeyParams>(`${base}/backend-services/:key`, async (request) => {
    view.check(sessions.require(request), 'backend services');
    return view.backendService(request.params.key);
  });
  // Attach (`policy` a policy's key) or detach (`policy` null) the backend or the edge security policy.
  app.post<KeyParams>(`${base}/backend-services/:key/security-policy`, async (request) => {
    const signedIn = changer(request, 'backend services');
    const usage = 'Send {"slot": "securityPolicy" or "edgeSecurityPolicy", "policy": "<a policy\'s key>" or null}.';
    const { slot, policy } = objectBody(request.body, ['slot', 'policy'], usage);
    if (slot !== 'securityPolicy' && slot !== 'edgeSecurityPolicy')
      throw new ConsoleError(400, `"slot" must be securityPolicy or edgeSecurityPolicy. ${usage}`);
    if (policy !== null && typeof policy !== 'string') throw new ConsoleError(400, `"policy" must be a policy's key or null. ${usage}`);
    const match = policy === null ? null : POLICY_KEY.exec(policy);
    if (policy !== null && match === null)
      throw new ConsoleError(400, `${JSON.stringify(policy)} is not a security policy's key (project/global/name, project/regions/r/name).`);
    const securityPolicy = match === null ? null : `projects/${match[1]}/${match[2]}/securityPolicies/${match[3]}`;
    return act(signedIn, request, view.backendService(request.params.key), 'POST', `/${POLICY_SLOTS[slot]}`, securityPolicy === null ? {} : { securityPolicy });
  });
  app.delete<KeyParams>(`${base}/backend-services/:key`, async (request) =>
    act(changer(request, 'backend services'), request, view.backendService(request.params.key), 'DELETE', ''),
  );
}

/** objectBody reads a JSON object body holding only `fields` (each given), or throws 400 with `usage`. */
function objectBody(body: unknown, fields: readonly string[], usage: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ConsoleError(400, usage);
  const given = body as Record<string, unknown>;
  for (const name of Object.keys(given)) if (!fields.includes(name)) throw new ConsoleError(400, `Unknown field ${JSON.stringify(name)}. ${usage}`);
  for (const name of fields) if (!Object.hasOwn(given, name)) throw new ConsoleError(400, `${JSON.stringify(name)} is required. ${usage}`);
  return given;
}

/** noBody refuses a body on an action that takes none. */
function noBody(body: unknown): void {
  if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0)) return;
  throw new ConsoleError(400, 'This action takes no body.');
}
