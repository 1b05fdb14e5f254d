import type { FastifyRequest } from 'fastify';
import type { FaultRule } from './rule.ts';

const applied = new WeakMap<FastifyRequest, FaultRule>();

/** markFault records that `rule` fired for `request` (the request journal reads it; a handler applies a deferred effect). */
export function markFault(request: FastifyRequest, rule: FaultRule): void {
  applied.set(request, rule);
}

/** faultOf is the rule that fired for `request`, if any: a handler applies effects core cannot (compute's operationError). */
export function faultOf(request: FastifyRequest): FaultRule | undefined {
  return applied.get(request);
}
