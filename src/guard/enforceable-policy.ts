/**
 * A policy as the guard enforces it: compiled by compute's engine, except for rules whose header
 * action the guard cannot write into a request (a header name that is no token, a value with
 * control characters or outside ASCII, a header that frames or routes the request such as
 * Content-Length or Host). The API refuses those now, but a policy stored before it did, or
 * loaded from elsewhere, may hold one: such a rule is compiled without its header action and
 * named here, so the requests it decides to forward are answered 502 with the reason, and every
 * other request is served as the policy says.
 */
import {
  type CompiledPolicy,
  compilePolicy,
  type EvaluatorOptions,
  headerActionProblem,
  TrafficRequestError,
  type TrafficRequest,
  type WafFindings,
} from './engine.ts';
import type { Verdict } from './guard-server.ts';

/** EnforceablePolicy is a compiled policy and the rules (by priority) the guard cannot enforce, each with its reason. */
export interface EnforceablePolicy {
  readonly compiled: CompiledPolicy;
  readonly unenforceable: ReadonlyMap<number, string>;
}

/** compileEnforceable compiles `policy` (the compute API's JSON form), setting aside header actions that cannot be written. */
export function compileEnforceable(policy: Readonly<Record<string, unknown>>, options: EvaluatorOptions): EnforceablePolicy {
  const unenforceable = new Map<number, string>();
  const rules = policy['rules'];
  if (!Array.isArray(rules)) return { compiled: compilePolicy(policy, options), unenforceable };
  const kept = rules.map((rule: unknown) => {
    if (typeof rule !== 'object' || rule === null) return rule;
    const { headerAction, ...rest } = rule as Record<string, unknown>;
    const reason = headerActionReason(headerAction);
    if (reason === undefined || typeof rest['priority'] !== 'number') return rule;
    unenforceable.set(rest['priority'], `guard: the rule at priority ${rest['priority']} cannot be enforced: ${reason}`);
    return rest;
  });
  return { compiled: compilePolicy({ ...policy, rules: kept }, options), unenforceable };
}

/** headerActionReason says why a rule's header action cannot be written, or undefined when it can (or is no list to read). */
function headerActionReason(headerAction: unknown): string | undefined {
  if (typeof headerAction !== 'object' || headerAction === null) return undefined;
  const headers = (headerAction as Record<string, unknown>)['requestHeadersToAdds'];
  if (!Array.isArray(headers)) return undefined;
  for (const header of headers) {
    if (typeof header !== 'object' || header === null) continue;
    const { headerName, headerValue } = header as Record<string, unknown>;
    if (typeof headerName !== 'string' || headerName === '') continue;
    const value = typeof headerValue === 'string' ? headerValue : '';
    const problem = headerActionProblem(headerName, value);
    if (problem !== undefined)
      return `its header action adds ${JSON.stringify(headerName.slice(0, 100))}: ${JSON.stringify(value.slice(0, 100))}, which cannot be written (${problem.reason})`;
  }
  return undefined;
}

/**
 * decideOn is the guard's verdict on one request: the policy's decision, marked when its rule
 * cannot be enforced (with `waf`, the WAF engine's findings for it); a request the engine cannot read is unreadable (400). Anything else the
 * engine throws is thrown (the proxy answers it 502 and goes on).
 */
export function decideOn(policy: EnforceablePolicy, traffic: TrafficRequest, waf?: WafFindings): Verdict {
  try {
    const decision = policy.compiled.evaluate(traffic, waf);
    const unenforceable = policy.unenforceable.size === 0 ? undefined : policy.unenforceable.get(decision.rule.priority);
    return unenforceable === undefined ? { decision } : { decision, unenforceable };
  } catch (error) {
    if (error instanceof TrafficRequestError) return { unreadable: `guard: the request cannot be evaluated: ${error.message}` };
    throw error;
  }
}
