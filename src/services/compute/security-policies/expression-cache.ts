import { BoundedMap } from '../../../lib/bounded-map.ts';
import type { ExpressionContext } from './check-expression-semantics.ts';

/**
 * ExpressionCache remembers the verdict on expressions already checked, keyed by text, scope and
 * policy type (all a verdict depends on). Parsing dominates a rule change's cost and clients send
 * the same expressions again and again (every `rules update` resends the rule), so the service
 * owns one and hands it to validation. Bounded: the oldest entry goes first.
 */
export class ExpressionCache {
  readonly #verdicts: BoundedMap<string, string | undefined>;

  constructor(capacity = 2048) {
    this.#verdicts = new BoundedMap(capacity);
  }

  /** verdict returns the problem with `text` (undefined when it is fine), computing it with `check` once. */
  verdict(text: string, context: ExpressionContext, check: () => string | undefined): string | undefined {
    const key = `${context.scope}\u0000${context.policyType}\u0000${text}`;
    if (this.#verdicts.has(key)) return this.#verdicts.get(key);
    const verdict = check();
    this.#verdicts.set(key, verdict);
    return verdict;
  }
}
