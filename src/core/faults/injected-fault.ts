import type { FaultRule } from './rule.ts';

/**
 * InjectedFault is a status answer a fault rule asked for (`{"status": 429, …}`): core throws it
 * before the handler runs, and each family's renderError phrases it in its own dialect with the
 * texts the real service uses for that status (a rule's `reason` and `message` override them).
 */
export class InjectedFault extends Error {
  override readonly name = 'InjectedFault';
  /** The HTTP status to answer. */
  readonly httpStatus: number;
  /** The reason word the rule gave (the family's default for the status otherwise). */
  readonly reason: string | undefined;
  /** The message the rule gave (the family's default for the status otherwise). */
  readonly text: string | undefined;
  /** Seconds for `Retry-After` (and the cluster's `details.retryAfterSeconds`), when given. */
  readonly retryAfter: number | undefined;
  /** The id of the rule that fired. */
  readonly ruleId: string;
  constructor(rule: FaultRule) {
    super(rule.message ?? `injected fault ${rule.id}: HTTP ${String(rule.status)}`);
    this.httpStatus = rule.status ?? 500;
    this.reason = rule.reason;
    this.text = rule.message;
    this.retryAfter = rule.retryAfter;
    this.ruleId = rule.id;
  }

  /** retryAfterHeaders is the `Retry-After` header the rule asked for, or none. */
  retryAfterHeaders(): Record<string, string> {
    return this.retryAfter === undefined ? {} : { 'retry-after': String(this.retryAfter) };
  }
}
