/**
 * What the engine found in one request, and how a rule's WAF calls read it: the CRS rules that
 * fired under the rule's configuration, mapped to Google's signatures (REPORTED_AS) and filtered
 * through the call's enabled signatures. Matches Google lists in no set (921230, 921421, 921422) fall
 * out here.
 */
import type { WafResolver, WafVerdict } from '../evaluation/unevaluated-calls.ts';
import type { EngineMatch } from './modsecurity.ts';
import { isUnsupported, resolveSet } from './rule-sets.ts';
import { REPORTED_AS } from './signatures.ts';
import { enabledSignatures, type WafCall } from './waf-call.ts';
import type { PhaseMatches } from './waf-protocol.ts';

/** WafFindings are one request's engine results: without the body (header phase) and with it (body phase, when it has one). */
export interface WafFindings {
  readonly header: PhaseMatches;
  readonly body?: PhaseMatches;
  /** failure says why the engine gave no answer (timeout, busy, not installed); the calls then decide as wafUnknown says. */
  readonly failure?: string;
}

/** resolverFor answers the calls of the rule reading configuration `key` from one phase's matches. */
export function resolverFor(phase: PhaseMatches, key: string | undefined, failure: string | undefined): WafResolver {
  const fired = key === undefined ? undefined : phase[key];
  return (call: WafCall): WafVerdict => {
    const set = resolveSet(call.set);
    if (set === undefined) return { unevaluated: '' };
    if (isUnsupported(set)) return { unevaluated: `${call.set}: ${set.unsupported}` };
    if (call.unreadable !== undefined) return { unevaluated: `${call.function}('${call.set}'): ${call.unreadable}` };
    if (failure !== undefined) return { unevaluated: `${call.function}('${call.set}'): ${failure}` };
    if (fired === undefined) return { unevaluated: `${call.function}('${call.set}'): the request was not inspected` };
    const enabled = enabledSignatures(call, set);
    const signatures: string[] = [];
    const where: string[] = [];
    for (const match of fired) {
      const signature = enabled.get(REPORTED_AS.get(match.id) ?? match.id);
      if (signature === undefined || signatures.includes(signature)) continue;
      signatures.push(signature);
      where.push(match.variable === undefined ? signature : `${signature} (${match.variable})`);
    }
    const options = call.optIn !== undefined ? `opt-in ${call.optIn.length}` : `sensitivity ${call.sensitivity}`;
    const detail =
      signatures.length === 0
        ? `${call.function}('${call.set}', ${options}): no enabled signature matched`
        : `${call.function}('${call.set}', ${options}) matched ${where.join(', ')}`;
    return { signatures, detail };
  };
}

/** firedIds lists the CRS rule ids of a phase (for tests and replays). */
export function firedIds(matches: readonly EngineMatch[] | undefined): string[] {
  return (matches ?? []).map((match) => match.id);
}
