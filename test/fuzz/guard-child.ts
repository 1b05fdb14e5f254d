// The fuzzed guard, in a process of its own (as `fogbank guard` runs): a request that kills it is
// a crash the guard lane counts and survives. It enforces GUARD_FUZZ_POLICY in front of the
// upstream named on its command line, and tells the lane over IPC its port once it listens and,
// for every decision, the request's fuzz tag, the URL decided on and what the policy said.
import type { TrafficRequest } from '../../src/guard/engine.ts';
import type { Verdict } from '../../src/guard/guard-server.ts';
import { startInlineGuard } from '../../src/guard/testing/inline-guard.ts';
import { GUARD_FUZZ_LIMITS, GUARD_FUZZ_POLICY, TAG_HEADER } from './guard-attacks.ts';

const upstream = new URL(process.argv[2] ?? 'http://127.0.0.1:1');
const tagOf = (request: TrafficRequest): string => request.headers[TAG_HEADER] ?? '';
const guard = await startInlineGuard({
  policy: GUARD_FUZZ_POLICY,
  upstream,
  limits: GUARD_FUZZ_LIMITS,
  wrapDecide: (decide) => (request) => {
    const told = (verdict: Verdict): Verdict => {
      const outcome = 'decision' in verdict ? (verdict.unenforceable === undefined ? verdict.decision.response.kind : 'unenforceable') : 'guard';
      process.send?.({ decided: { tag: tagOf(request), url: request.url, host: request.headers['host'] ?? '', outcome } });
      return verdict;
    };
    // A policy calling preconfigured WAF sets decides once the engine has inspected the request.
    const decided = decide(request);
    return decided instanceof Promise ? decided.then(told) : told(decided);
  },
  failed: (error) => process.send?.({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
});
process.send?.({ port: guard.port });
