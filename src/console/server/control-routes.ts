/**
 * The activity and control views' routes, for the admin's session: the request journal, fault
 * rules, the clock, snapshot download and restore, reset. The same operations as the admin API
 * (`/_fogbank/...`), reached with the session cookie (and, for changes, the page's Origin and
 * CSRF token) instead of a bearer token, and validated by the admin API's own readers (its face,
 * services/control/public.ts).
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ControlPlane } from '../../core/control-plane.ts';
import { FaultRuleError } from '../../core/faults/rule.ts';
import { SnapshotError } from '../../store/snapshot-format.ts';
import { clockState, ControlError, readClockChange, readRequestsQuery } from '../../services/control/public.ts';
import { CONSOLE_PREFIX } from '../index.ts';
import type { Sessions } from './sessions.ts';

/** JOURNALED_FAMILIES are the families the journal filter may name. */
const JOURNALED_FAMILIES = ['compute', 'cluster', 'mail', 'publisher', 'discovery'];

/** registerControlRoutes adds the admin's activity and control routes. */
export function registerControlRoutes(app: FastifyInstance, control: ControlPlane, sessions: Sessions): void {
  const base = `${CONSOLE_PREFIX}/api`;
  app.addContentTypeParser(['application/gzip', 'application/octet-stream'], (_request, payload, done) => done(null, payload));

  app.get(`${base}/requests`, async (request) => {
    sessions.requireAdmin(request);
    const filter = readRequestsQuery(request.query as Record<string, unknown>, JOURNALED_FAMILIES);
    if (filter instanceof ControlError) throw filter;
    return { requests: await control.requests.read(filter) };
  });

  app.get(`${base}/faults`, async (request) => {
    sessions.requireAdmin(request);
    return { faults: control.faults.list() };
  });
  app.post(`${base}/faults`, async (request, reply) => {
    sessions.requireMutation(request, true);
    try {
      return reply.code(201).send(await control.faults.add(request.body));
    } catch (error) {
      if (error instanceof FaultRuleError) throw new ControlError(400, error.message);
      throw error;
    }
  });
  app.delete<{ Params: { id: string } }>(`${base}/faults/:id`, async (request, reply) => {
    sessions.requireMutation(request, true);
    if (!control.faults.remove(request.params.id)) throw new ControlError(404, `No fault rule with id '${request.params.id}'.`);
    return reply.code(204).send();
  });

  app.get(`${base}/clock`, async (request) => {
    sessions.requireAdmin(request);
    return clockState(control);
  });
  app.post(`${base}/clock`, async (request) => {
    sessions.requireMutation(request, true);
    const change = readClockChange(request.body);
    if (change instanceof ControlError) throw change;
    if ('advance' in change) await control.advance(change.advance);
    else if ('set' in change) control.clock.set(change.set);
    else if (change.freeze) control.clock.freeze();
    else control.clock.unfreeze();
    return clockState(control);
  });

  // A download is a navigation (no custom header): the session and its SameSite=Strict cookie suffice for a read.
  app.get(`${base}/snapshot`, async (request, reply) => {
    sessions.requireAdmin(request);
    const chunks: Buffer[] = [];
    const { PassThrough } = await import('node:stream');
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => chunks.push(chunk));
    await control.snapshots.save(sink);
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', 'attachment; filename="fogbank-snapshot.gz"')
      .send(Buffer.concat(chunks));
  });
  app.put(`${base}/snapshot`, async (request) => {
    sessions.requireMutation(request, true);
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type !== 'application/gzip' && type !== 'application/octet-stream')
      throw new ControlError(415, `a snapshot is sent as application/gzip or application/octet-stream, not '${type || 'no content type'}'`);
    try {
      return await control.snapshots.restore(request.body as Readable);
    } catch (error) {
      if (error instanceof SnapshotError) throw new ControlError(400, error.message);
      throw error;
    }
  });
  app.post(`${base}/reset`, async (request) => {
    sessions.requireMutation(request, true);
    return { revision: await control.snapshots.reset() };
  });
}
