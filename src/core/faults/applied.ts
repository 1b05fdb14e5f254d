import type { FastifyRequest } from 'fastify';
import { firedFaultOf, requestInfoOf } from '../request-info.ts';
import type { FaultRule } from './rule.ts';

/** markFault records that `rule` fired for `request`, in its one RequestInfo (the request journal reads it; a handler applies a deferred effect). */
export function markFault(request: FastifyRequest, rule: FaultRule): void {
  requestInfoOf(request).fault = rule;
}

/** faultOf is the rule that fired for `request`, if any: a handler applies effects core cannot (compute's operationError). */
export function faultOf(request: FastifyRequest): FaultRule | undefined {
  return firedFaultOf(request);
}
