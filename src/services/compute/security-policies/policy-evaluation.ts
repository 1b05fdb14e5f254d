/**
 * Compute's side of core/policy-evaluation.ts: the admin API's what-if evaluation and the live
 * policy stream `fogbank guard` follows, over the store's security policies. Loaded (with the
 * evaluation engine and the rules language) on the first such request, never at start-up.
 *
 * A named policy is compiled once per version (its fingerprint) and keeps one RateLimitState, so
 * counters carry over between calls and across rule changes, on the server's clock, until reset.
 * An inline policy is validated as `insert` validates a body and counts only within its call.
 */
import type { PolicyEvaluation } from '../../../core/policy-evaluation.ts';
import { PolicyEvaluationError } from '../../../core/policy-evaluation.ts';
import type { ServiceContext } from '../../../core/service.ts';
import { BoundedMap } from '../../../lib/bounded-map.ts';
import { ComputeError } from '../shared/errors.ts';
import type { Links } from '../shared/links.ts';
import { compilePolicy, type CompiledPolicy, PolicyNotEvaluableError, RateLimitState, TrafficRequestError } from './evaluation/index.ts';
import { policyKey, renderPolicy, SECURITY_POLICIES_KIND, storedPolicy, type StoredPolicy } from './policy.ts';
import { WafEngine } from './waf/waf-engine.ts';
import { badInput, parsePolicyName, type PolicyName, readWhatIfBody } from './what-if-body.ts';

/** LINKS are the links a policy read for evaluation carries: the real service's, as no request gives an address. */
const LINKS: Links = { base: 'https://compute.googleapis.com/compute/v1/' };

/** MAX_POLICIES bounds the named policies whose counters are kept (the least recently evaluated go first). */
const MAX_POLICIES = 1000;

/** Counted is one named policy's compiled version and its counters. */
interface Counted {
  readonly fingerprint: string;
  readonly compiled: CompiledPolicy;
  readonly rateLimits: RateLimitState;
}

/** wireOf is the policy as the compute API answers a GET (the scope's `region` link tells a regional one). */
function wireOf(policy: StoredPolicy): Record<string, unknown> {
  return renderPolicy(policy, LINKS);
}

/** refusal turns what compiling a policy throws into the evaluation's 400, naming the policy. */
function refusal(error: unknown, what: string): unknown {
  if (error instanceof ComputeError || error instanceof PolicyNotEvaluableError) return badInput(`${what}: ${error.message}`);
  return error;
}

/** securityPolicyEvaluation is the PolicyEvaluation over the context's store and clock. */
export function securityPolicyEvaluation(context: ServiceContext): PolicyEvaluation {
  const counted = new BoundedMap<string, Counted>(MAX_POLICIES);
  // The WAF engine's threads start with the first request a policy's WAF calls need inspected.
  let engine: WafEngine | undefined;

  const load = async (name: PolicyName): Promise<StoredPolicy | undefined> => {
    const record = await context.store.get<StoredPolicy>(SECURITY_POLICIES_KIND, policyKey(name.project, name.scope, name.name));
    return record === undefined ? undefined : storedPolicy(record.value);
  };

  const compiledNamed = (key: string, policy: StoredPolicy, wafUnknown: 'match' | 'no-match'): CompiledPolicy => {
    const cacheKey = `${wafUnknown} ${key}`;
    const known = counted.get(cacheKey);
    if (known !== undefined && known.fingerprint === policy.fingerprint) return known.compiled;
    const rateLimits = known?.rateLimits ?? new RateLimitState();
    let compiled: CompiledPolicy;
    try {
      compiled = compilePolicy(wireOf(policy), { clock: context.clock, wafUnknown, rateLimits, scope: policy.scope });
    } catch (error) {
      throw refusal(error, `The security policy '${key}' cannot be evaluated`);
    }
    counted.set(cacheKey, { fingerprint: policy.fingerprint, compiled, rateLimits });
    return compiled;
  };

  return {
    async evaluate(body) {
      const input = readWhatIfBody(body);
      let compiled: CompiledPolicy;
      if ('inline' in input.policy) {
        try {
          compiled = compilePolicy(input.policy.inline, { clock: context.clock, wafUnknown: input.wafUnknown, rateLimits: new RateLimitState() });
        } catch (error) {
          throw refusal(error, '"policy"');
        }
      } else {
        const name = input.policy;
        const path = `projects/${name.project}/${name.scope.kind === 'global' ? 'global' : `regions/${name.scope.name}`}/securityPolicies/${name.name}`;
        const policy = await load(name);
        if (policy === undefined) throw new PolicyEvaluationError(404, `The security policy '${path}' was not found.`);
        compiled = compiledNamed(path, policy, input.wafUnknown);
      }
      // Inspections run side by side on the engine's threads; decisions then go in order (rate limits count in order).
      const plan = compiled.wafPlan;
      let findings: Awaited<ReturnType<WafEngine['inspect']>>[] | undefined;
      if (plan !== undefined) {
        engine ??= new WafEngine();
        const inspector = engine;
        findings = await Promise.all(input.requests.map((request) => inspector.inspect(plan, request)));
      }
      const results = input.requests.map((request, i) => {
        try {
          return compiled.evaluate(request, findings?.[i]);
        } catch (error) {
          if (error instanceof TrafficRequestError) throw badInput(`"requests[${i}]": ${error.message}`);
          throw error;
        }
      });
      return { results };
    },

    async replay(body) {
      const { replayPolicy } = await import('./replay/replay-policy.ts');
      return replayPolicy(body, {
        load,
        wireOf,
        engine: () => {
          engine ??= new WafEngine();
          return engine;
        },
        now: () => context.clock.now(),
      });
    },

    async read(text) {
      const policy = await load(parsePolicyName(text));
      return policy === undefined ? undefined : wireOf(policy);
    },

    async follow(text, listener) {
      const name = parsePolicyName(text);
      const key = policyKey(name.project, name.scope, name.name);
      let subscription: { close(): void } | undefined;
      let stopped = false;
      // Follow from the revision read, and start over (read again) when the store's state is replaced.
      const start = async (): Promise<void> => {
        const revision = await context.store.currentRevision();
        const policy = await load(name);
        if (stopped) return;
        listener(policy === undefined ? undefined : wireOf(policy));
        subscription = await context.store.subscribe(
          revision,
          (change) => {
            if (change.key !== key || stopped) return;
            listener(change.type === 'deleted' ? undefined : wireOf(storedPolicy(change.value as StoredPolicy)));
          },
          {
            kinds: [SECURITY_POLICIES_KIND],
            onReset: () => {
              if (!stopped) void start().catch(() => undefined);
            },
          },
        );
        if (stopped) subscription.close();
      };
      await start();
      return () => {
        stopped = true;
        subscription?.close();
      };
    },

    async followBackendService(text, listener) {
      const { followAttachment } = await import('../backend-services/follow-attachment.ts');
      return followAttachment(context.store, text, LINKS, listener);
    },

    async readBackendService(text) {
      const { parseBackendServiceName, readAttachment } = await import('../backend-services/follow-attachment.ts');
      return readAttachment(context.store, parseBackendServiceName(text), LINKS);
    },

    reset() {
      counted.clear();
    },

    async close() {
      // The engine's threads would otherwise keep the process from ending after a WAF evaluation.
      await engine?.close();
      engine = undefined;
    },
  };
}
