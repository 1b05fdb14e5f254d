import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext, ServiceDefinition } from '../service.ts';
import { markFault } from './applied.ts';
import { InjectedFault } from './injected-fault.ts';
import type { FaultRule } from './rule.ts';

/**
 * useFaults matches every request of the family against the server's fault rules once the
 * family's own request hooks (authentication, authorization) ran and the body was read, just
 * before the handler: a status rule answers the family's error instead (InjectedFault, phrased by
 * its renderError), latency waits on the injected timers, a reset ends the connection. Rules whose
 * effect only the handler can apply (an Operation error, a watch ending) are left on the request
 * (applied.ts). With no rule a request pays one property read.
 */
export function useFaults(app: FastifyInstance, service: ServiceDefinition, context: ServiceContext): void {
  const faults = context.faults;
  if (faults === undefined) return;
  const family = service.name;
  app.addHook('preHandler', (request, reply, done) => {
    if (faults.empty) {
      done();
      return;
    }
    const path = pathOnly(request.url);
    const rule = faults.take(family, { method: request.method, path, url: request.url, request, principal: () => principalOf(context, request) });
    if (rule === undefined) {
      done();
      return;
    }
    markFault(request, rule);
    apply(rule, request, reply, context, done);
  });
}

function apply(rule: FaultRule, request: FastifyRequest, reply: FastifyReply, context: ServiceContext, done: (error?: Error) => void): void {
  if (rule.status !== undefined) {
    done(new InjectedFault(rule));
    return;
  }
  if (rule.latencyMs !== undefined) {
    const jitter = rule.jitterMs === undefined || rule.jitterMs === 0 ? 0 : Math.floor((context.ids.bytes(4).readUInt32BE(0) / 2 ** 32) * (rule.jitterMs + 1));
    void context.timers.delay(rule.latencyMs + jitter).then(() => done());
    return;
  }
  if (rule.reset !== undefined) {
    void reply.hijack();
    const raw = reply.raw;
    if (rule.reset === 'after-headers') {
      raw.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      raw.flushHeaders();
      // The headers leave with the next write on the socket; the connection ends right after them.
      raw.write('', () => request.raw.socket.destroy());
      return;
    }
    request.raw.socket.destroy();
    return;
  }
  // operationError, watch, dropAfterBytes: the family's handler applies them (faultOf(request)).
  done();
}

function pathOnly(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? url : url.slice(0, mark);
}

function principalOf(context: ServiceContext, request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const accessToken = typeof query?.['access_token'] === 'string' ? query['access_token'] : undefined;
  const identity = context.auth.identify(request.headers.authorization, accessToken);
  return identity.kind === 'principal' ? identity.principal.email : undefined;
}
