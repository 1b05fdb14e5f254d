import ipaddr from 'ipaddr.js';
import type { PolicyScope, PolicyType } from './constants.ts';
import type { ExpressionCache } from './expression-cache.ts';

/** RuleContext is what a rule's validity depends on besides the rule itself. */
export interface RuleContext {
  /** The policy's name, quoted by "does not contain a rule" messages. */
  readonly policyName: string;
  readonly policyType: PolicyType;
  readonly scope: PolicyScope;
  /** Whether the rule is the default rule (priority 2147483647). */
  readonly isDefaultRule: boolean;
  /** The prefix of field paths in messages: `resource` for a rule body, `resource.rules[N]` inside a policy. */
  readonly field?: string;
  /** The names of the policy's user-defined fields, which networkMatch.userDefinedFields must use. */
  readonly userDefinedFieldNames?: readonly string[];
  /** The action the rule had before a patch, for transitions the service forbids. */
  readonly previousAction?: string;
  /** Verdicts on expressions already checked, when the caller keeps them. */
  readonly expressions?: ExpressionCache;
}

/** isGlobalCloudArmor says whether the context is a global policy of type CLOUD_ARMOR, the only home of redirects and header actions. */
export function isGlobalCloudArmor(context: RuleContext): boolean {
  return context.scope === 'global' && context.policyType === 'CLOUD_ARMOR';
}

/** fieldOf prefixes a field path with the context's prefix. */
export function fieldOf(context: RuleContext, path: string): string {
  return `${context.field ?? 'resource'}.${path}`;
}

/** isIpOrCidr accepts an IPv4 or IPv6 address or CIDR prefix in standard text form (dotted-quad IPv4 only). */
export function isIpOrCidr(text: string): boolean {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!v4 && !ipaddr.IPv6.isValid(address)) return false;
  if (slash === -1) return true;
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v4 ? 32 : 128);
}
