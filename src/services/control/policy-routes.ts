/**
 * Security policies through the admin API (issue 30): `POST /_fogbank/securityPolicies:evaluate`
 * (what a policy decides for given requests, without sending any) and
 * `GET /_fogbank/securityPolicies:follow?policy=NAME` (the policy as it is, and with
 * `Accept: text/event-stream` every change as it commits: what `fogbank guard` enforces). Both
 * are served by the family that keeps policies (compute), reached through
 * ServiceDefinition.policyEvaluation, so this family imports none.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import { type BackendAttachment, type PolicyEvaluation, PolicyEvaluationError } from '../../core/policy-evaluation.ts';
import type { JournalRecord } from '../../core/journal.ts';
import { namingRecorded } from '../../core/recorded-traffic/recorded-request.ts';
import { ControlError } from './errors.ts';
import { readReplaySource } from './replay-source.ts';
import type { LiveStreams } from './request-routes.ts';

/** HEARTBEAT_MS is how often a follower hears the server's time when nothing changes (it also shows a dead connection). */
const HEARTBEAT_MS = 5_000;

/** PolicyRoutes are the open policy streams and the counters' reset. */
export interface PolicyRoutes extends LiveStreams {
  /** reset forgets the what-if counters (after `POST /_fogbank/reset`), if the evaluation was ever loaded. */
  reset(): void;
  /** close ends the evaluation's WAF engine threads, if it was ever loaded. */
  close(): Promise<void>;
}

/** registerPolicyRoutes adds the evaluate and follow routes; `load` is undefined when no family keeps policies. */
export function registerPolicyRoutes(
  app: FastifyInstance,
  clock: Clock,
  load: (() => Promise<PolicyEvaluation>) & { ready(): PolicyEvaluation | undefined },
  journal: () => Iterable<JournalRecord>,
): PolicyRoutes {
  const open = new Set<ServerResponse>();
  const evaluation = async (): Promise<PolicyEvaluation> => load.ready() ?? (await load());

  app.post('/_fogbank/securityPolicies::evaluate', async (request) => {
    try {
      return await (await evaluation()).evaluate(request.body);
    } catch (error) {
      throw asControlError(error);
    }
  });

  // Replay (issue 39): recorded requests under the policy in force and a proposed one; what changes.
  app.post('/_fogbank/securityPolicies::replay', async (request) => {
    const source = readReplaySource(request.body, journal);
    if (source instanceof ControlError) throw source;
    let answer: Readonly<Record<string, unknown>>;
    try {
      answer = await (await evaluation()).replay(source.body);
    } catch (error) {
      // A recorded request the evaluation refuses is named where it was read (`line 7`), not by its place in the list.
      if (error instanceof PolicyEvaluationError && source.at !== undefined) {
        const named = namingRecorded(error.message, source.at);
        throw new ControlError(error.httpStatus, named === error.message || source.kind === 'journal' ? named : `${source.kind}: ${named}`);
      }
      throw asControlError(error);
    }
    const at = source.at;
    const changed = (answer['changed'] as readonly Record<string, unknown>[] | undefined) ?? [];
    return {
      ...answer,
      ...(at === undefined ? {} : { changed: changed.map((each) => ({ ...each, at: at[each['index'] as number] })) }),
      skipped: source.skipped,
    };
  });

  app.get('/_fogbank/securityPolicies::follow', async (request, reply) => {
    const { name, backendService } = followParameter(request.query as Record<string, unknown>);
    const stream = /\btext\/event-stream\b/i.test(request.headers.accept ?? '');
    if (!stream) {
      // One reading: the policy (or the backend service and its policy) as it is now (404 when there is none).
      let current: Readonly<Record<string, unknown>> | BackendAttachment | undefined;
      try {
        current = backendService ? await (await evaluation()).readBackendService(name) : await (await evaluation()).read(name);
      } catch (error) {
        throw asControlError(error);
      }
      if (current === undefined) throw new ControlError(404, `The ${backendService ? 'backend service' : 'security policy'} '${name}' was not found.`);
      return { now: new Date(clock.now()).toISOString(), ...(backendService ? current : { policy: current }) };
    }
    let stop: (() => void) | undefined;
    const pending: string[] = [];
    let raw: ServerResponse | undefined;
    const send = (text: string): void => {
      if (raw === undefined) pending.push(text);
      else if (!raw.writableEnded) raw.write(text);
    };
    try {
      const now = (): string => new Date(clock.now()).toISOString();
      stop = backendService
        ? await (await evaluation()).followBackendService(name, (attachment) => send(attachmentEvent(now(), name, attachment)))
        : await (await evaluation()).follow(name, (policy) => {
            send(
              policy === undefined
                ? `event: deleted\ndata: ${JSON.stringify({ now: now(), name })}\n\n`
                : `event: policy\ndata: ${JSON.stringify({ now: now(), policy })}\n\n`,
            );
          });
    } catch (error) {
      throw asControlError(error);
    }
    reply.hijack();
    raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    raw.write(`: following ${name}\n\n`);
    for (const text of pending.splice(0)) raw.write(text);
    open.add(raw);
    const heartbeat = setInterval(() => send(`event: clock\ndata: ${JSON.stringify({ now: new Date(clock.now()).toISOString() })}\n\n`), HEARTBEAT_MS);
    heartbeat.unref();
    const out = raw;
    const end = (): void => {
      clearInterval(heartbeat);
      stop?.();
      open.delete(out);
      if (!out.writableEnded) out.end();
    };
    out.once('close', end);
    request.raw.once('close', end);
    return reply;
  });

  return {
    closeAll() {
      for (const raw of [...open]) raw.end();
    },
    async close() {
      await load.ready()?.close();
    },
    reset() {
      load.ready()?.reset();
    },
  };
}

/**
 * attachmentEvent is one event of a backend service's stream: `policy` with the policy attached
 * now and the backend service, `detached` when none is attached, `deleted` while the backend
 * service does not exist.
 */
function attachmentEvent(now: string, name: string, attachment: BackendAttachment | undefined): string {
  if (attachment === undefined) return `event: deleted\ndata: ${JSON.stringify({ now, name })}\n\n`;
  if (attachment.policy === undefined) return `event: detached\ndata: ${JSON.stringify({ now, backendService: attachment.backendService })}\n\n`;
  return `event: policy\ndata: ${JSON.stringify({ now, policy: attachment.policy, backendService: attachment.backendService })}\n\n`;
}

/** followParameter reads the one `policy` or `backendService` query parameter, or throws its 400. */
function followParameter(query: Readonly<Record<string, unknown>>): { readonly name: string; readonly backendService: boolean } {
  const value = query['backendService'];
  if (value === undefined) return { name: policyParameter(query), backendService: false };
  for (const name of Object.keys(query)) {
    if (name !== 'backendService') throw new ControlError(400, `Unknown parameter ${JSON.stringify(name)}: following takes either policy or backendService.`);
  }
  if (value === '')
    throw new ControlError(400, 'Parameter "backendService" is empty: projects/P/global/backendServices/NAME or projects/P/regions/R/backendServices/NAME.');
  if (typeof value !== 'string') throw new ControlError(400, 'Parameter "backendService" is given more than once.');
  return { name: value, backendService: true };
}

/** policyParameter reads the one `policy` query parameter, or throws its 400. */
function policyParameter(query: Readonly<Record<string, unknown>>): string {
  for (const name of Object.keys(query)) {
    if (name !== 'policy') throw new ControlError(400, `Unknown parameter ${JSON.stringify(name)}: following takes only policy (or backendService).`);
  }
  const value = query['policy'];
  if (value === undefined || value === '')
    throw new ControlError(400, 'Parameter "policy" is required: projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME.');
  if (typeof value !== 'string') throw new ControlError(400, 'Parameter "policy" is given more than once.');
  return value;
}

/** asControlError phrases the evaluation's refusals in the admin API's dialect. */
function asControlError(error: unknown): unknown {
  return error instanceof PolicyEvaluationError ? new ControlError(error.httpStatus, error.message) : error;
}
