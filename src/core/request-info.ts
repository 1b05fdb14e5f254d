import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FaultRule } from './faults/rule.ts';

/**
 * One record per request of what is known about it, as the apiserver's WithRequestInfo fills one
 * for the filters after it: made by the first reader that needs it, then read by every other one
 * (authentication, authorization, fault injection, the handler, the request journal), so no fact
 * about a request is worked out twice. It holds only what was read from the request, never the
 * request itself.
 */
export class RequestInfo {
  /** The fault rule that fired on this request (faults/hook.ts): the handler applies a deferred effect from it, the journal records it. */
  fault: FaultRule | undefined = undefined;
  /**
   * The family's own reading of the request, made once by whichever of the family's readers comes
   * first: the cluster's `ClusterRequestInfo` (principal, verb, group, version, resource,
   * subresource, namespace, name). Each family reads it through its one accessor.
   */
  family: unknown = undefined;
  /** What the family noted for the request's journal entry `jsonPayload` (the cluster's admission audit annotations). */
  journalPayload: Record<string, unknown> | undefined = undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's RequestInfo once a reader made it (core/request-info.ts). */
    requestInfo: RequestInfo | null;
  }
}

/** useRequestInfo gives every request of the app its (empty) slot, so setting it keeps the request's shape. */
export function useRequestInfo(app: FastifyInstance): void {
  app.decorateRequest('requestInfo', null);
}

/** requestInfoOf is the request's RequestInfo, made on first use. */
export function requestInfoOf(request: FastifyRequest): RequestInfo {
  let info = request.requestInfo;
  if (info === null || info === undefined) {
    info = new RequestInfo();
    request.requestInfo = info;
  }
  return info;
}

/** firedFaultOf is the fault rule that fired on the request, if any, without making its RequestInfo. */
export function firedFaultOf(request: FastifyRequest): FaultRule | undefined {
  return request.requestInfo?.fault;
}

/** noteJournalPayload adds members to the request's journal `jsonPayload`. */
export function noteJournalPayload(request: FastifyRequest, members: Readonly<Record<string, unknown>>): void {
  const info = requestInfoOf(request);
  info.journalPayload = { ...info.journalPayload, ...members };
}

/** journalPayloadOf is what was noted for the request's journal entry, as the record's optional member. */
export function journalPayloadOf(request: FastifyRequest): { jsonPayload?: unknown } {
  const payload = request.requestInfo?.journalPayload;
  return payload === undefined ? {} : { jsonPayload: payload };
}
