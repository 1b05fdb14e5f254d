/**
 * The cluster views' routes: kinds, objects, one object's YAML and Events for any signed-in
 * principal, as the cluster user its token acts as (the cluster's RBAC authorizer decides what it
 * sees); who-can and the subject list are the admin's (they tell about other subjects), and
 * may-do answers a non-admin about itself only (as SelfSubjectRulesReview does).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Store } from '../../store/store.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import { loadOnFirstUse } from '../../core/lazy.ts';
import { clusterUserOf } from '../../services/cluster/public.ts';
import type { SubjectRef } from './cluster-view.ts';
import { ConsoleError } from './errors.ts';
import type { Sessions } from './sessions.ts';

/** SUBJECT_KINDS are the kinds of subject RBAC binds. */
const SUBJECT_KINDS = ['User', 'Group', 'ServiceAccount'] as const;

/** registerClusterRoutes adds the cluster views' routes. */
export function registerClusterRoutes(app: FastifyInstance, store: Store, sessions: Sessions): void {
  // The cluster's views and authorizer load with the first cluster request, not with the console.
  const loaded = loadOnFirstUse(async () => new (await import('./cluster-view.ts')).ClusterView(store));
  const base = `${CONSOLE_PREFIX}/api/cluster`;
  const query = (request: { query: unknown }, names: readonly string[], required: readonly string[]): Record<string, string> => {
    const given = (request.query ?? {}) as Record<string, unknown>;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      if (!names.includes(name)) throw new ConsoleError(400, `Unknown parameter ${JSON.stringify(name)}: this view takes ${names.join(', ')}.`);
      if (typeof value !== 'string') throw new ConsoleError(400, `Parameter ${JSON.stringify(name)} is given more than once.`);
      if (value.length > 253) throw new ConsoleError(400, `Parameter ${JSON.stringify(name)} is longer than 253 characters.`);
      out[name] = value;
    }
    for (const name of required) if ((out[name] ?? '') === '') throw new ConsoleError(400, `Parameter ${JSON.stringify(name)} is required.`);
    return out;
  };

  const viewer = (request: FastifyRequest) => clusterUserOf(sessions.require(request).principal);

  app.get(`${base}/kinds`, async (request) => {
    const user = viewer(request);
    return { kinds: await (await loaded()).kinds(user) };
  });
  app.get(`${base}/objects`, async (request) => {
    const user = viewer(request);
    const q = query(request, ['group', 'resource', 'namespace'], ['resource']);
    const view = await loaded();
    return { objects: await view.objects(user, await view.view(q['group'] ?? '', q['resource'] ?? ''), q['namespace'] || undefined) };
  });
  app.get(`${base}/object`, async (request) => {
    const user = viewer(request);
    const q = query(request, ['group', 'resource', 'namespace', 'name'], ['resource', 'name']);
    const view = await loaded();
    return view.object(user, await view.view(q['group'] ?? '', q['resource'] ?? ''), q['namespace'] || undefined, q['name'] ?? '');
  });
  app.get(`${base}/events`, async (request) => {
    const user = viewer(request);
    return { events: await (await loaded()).events(user) };
  });
  app.get(`${base}/subjects`, async (request) => {
    sessions.requireAdmin(request);
    return { subjects: await (await loaded()).subjects() };
  });
  app.get(`${base}/who-can`, async (request) => {
    sessions.requireAdmin(request);
    const q = query(request, ['verb', 'group', 'resource', 'namespace'], ['verb', 'resource']);
    return { allowed: await (await loaded()).whoCan(q['verb'] ?? '', q['group'] ?? '', q['resource'] ?? '', q['namespace'] ?? '') };
  });
  app.get(`${base}/may-do`, async (request) => {
    const signedIn = sessions.require(request);
    const q = query(request, ['kind', 'name', 'namespace'], ['kind', 'name']);
    const kind = q['kind'] as SubjectRef['kind'];
    if (!SUBJECT_KINDS.includes(kind)) throw new ConsoleError(400, `"kind" must be one of ${SUBJECT_KINDS.join(', ')}, not ${JSON.stringify(q['kind'])}.`);
    if (kind === 'ServiceAccount' && (q['namespace'] ?? '') === '') throw new ConsoleError(400, 'A ServiceAccount is named with its namespace.');
    const subject: SubjectRef = { kind, name: q['name'] ?? '', ...(kind === 'ServiceAccount' ? { namespace: q['namespace'] ?? '' } : {}) };
    if (signedIn.admin) return (await loaded()).mayDo(subject);
    // Anyone else may ask about itself only, and is answered for its own identity (its groups included).
    const user = clusterUserOf(signedIn.principal);
    if (kind !== 'User' || subject.name !== user.name)
      throw new ConsoleError(
        403,
        `${signedIn.principal.email} may ask only what it may do itself (User ${JSON.stringify(user.name)}): asking about other subjects takes the admin token.`,
      );
    return (await loaded()).mayDo(subject, user);
  });
}
