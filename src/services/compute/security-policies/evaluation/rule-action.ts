import type { ConfiguredAction, Outcome, ProxyResponse } from './decision.ts';

/**
 * What an action string does to a request (API doc `SecurityPolicyRule.action`, the reference's
 * §5): its log `configuredAction`, its `outcome`, what the client gets and the log's
 * `statusDetails`. Used for a rule's action and for a rate limit's exceed action alike.
 */

/** RedirectOptions are a rule's `redirectOptions` / `exceedRedirectOptions`. */
export interface RedirectOptions {
  readonly type?: string;
  readonly target?: string;
}

/** Effect is the result of an action that answers or forwards a request. */
export interface Effect {
  readonly configuredAction: ConfiguredAction;
  readonly outcome: Outcome;
  readonly response: ProxyResponse;
  readonly statusDetails?: string;
}

/** DEFAULT_DENY_STATUS answers a bare `deny` (its no-status form closes connections on proxy load balancers; HTTP gets 403). */
export const DEFAULT_DENY_STATUS = 403;

const FORWARD: ProxyResponse = { kind: 'forward' };

/** allowEffect forwards the request. */
export function allowEffect(configuredAction: ConfiguredAction): Effect {
  return { configuredAction, outcome: 'ACCEPT', response: FORWARD };
}

/** denyStatus reads the status of `deny(STATUS)` (or a bare `deny`), or undefined when `action` is not a deny. */
export function denyStatus(action: string): number | undefined {
  if (action === 'deny') return DEFAULT_DENY_STATUS;
  const match = /^deny\((\d{3})\)$/.exec(action);
  return match === null ? undefined : Number(match[1]);
}

/** blockEffect is what a deny or redirect action does; `configuredAction` is the rule's when it is a rate limit's exceed action. */
export function blockEffect(action: string, redirect: RedirectOptions | undefined, configuredAction?: ConfiguredAction): Effect | undefined {
  const status = denyStatus(action);
  if (status !== undefined) {
    return { configuredAction: configuredAction ?? 'DENY', outcome: 'DENY', response: { kind: 'deny', status }, statusDetails: 'denied_by_security_policy' };
  }
  if (action !== 'redirect') return undefined;
  const recaptcha = redirect?.type === 'GOOGLE_RECAPTCHA';
  const response: ProxyResponse = recaptcha
    ? { kind: 'redirect', status: 302, recaptcha: true }
    : { kind: 'redirect', status: 302, ...(redirect?.target === undefined ? {} : { location: redirect.target }) };
  return {
    configuredAction: configuredAction ?? (recaptcha ? 'GOOGLE_RECAPTCHA' : 'EXTERNAL_302'),
    outcome: 'REDIRECT',
    response,
    statusDetails: 'redirected_by_security_policy',
  };
}

/** RATE_LIMIT_ACTIONS maps the rate-limited actions to their log `configuredAction`. */
export const RATE_LIMIT_ACTIONS: Readonly<Record<string, ConfiguredAction>> = {
  throttle: 'THROTTLE',
  rate_based_ban: 'RATE_BASED_BAN',
  fairshare: 'FAIRSHARE',
};
