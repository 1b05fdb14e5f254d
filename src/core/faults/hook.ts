import { Readable, Transform, pipeline } from 'node:stream';
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
 * (applied.ts: the rule is kept in the request's RequestInfo, the one record of what fired, which the
 * journal reads too). With no rule a request pays one property read.
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
  if (rule.dropAfterBytes !== undefined && dropAfter(request, reply, rule.dropAfterBytes)) return;
  // operationError, watch: the family's handler applies them (faultOf(request)).
  done();
}

/**
 * dropAfter lets the handler read the first `limit` bytes of a streamed body (an upload's media
 * or chunk), then drops the connection, as a network that fails mid-upload does: what arrived
 * before is the handler's to keep, and the client learns how much by asking (a resumable
 * session's status query). A body already read in full (JSON) that reached the limit loses its
 * connection before the handler sees it, so nothing of it is applied; a shorter one is served.
 * Answers whether the connection is gone (then the request goes no further).
 */
function dropAfter(request: FastifyRequest, reply: FastifyReply, limit: number): boolean {
  const source = request.body;
  if (!(source instanceof Readable)) {
    const declared = request.headers['content-length'];
    const received = declared !== undefined ? Number(declared) : source === undefined || source === null ? 0 : Number.POSITIVE_INFINITY;
    if (received < limit) return false;
    void reply.hijack();
    request.raw.socket.destroy();
    return true;
  }
  let seen = 0;
  const cut = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const room = limit - seen;
      if (chunk.length < room) {
        seen += chunk.length;
        callback(null, chunk);
        return;
      }
      seen = limit;
      if (room > 0) this.push(chunk.subarray(0, room));
      callback();
      // After the handler had the bytes: the socket goes, and the source's abort ends this stream too.
      setImmediate(() => request.raw.socket.destroy());
    },
  });
  pipeline(source, cut, () => undefined);
  request.body = cut;
  return false;
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
