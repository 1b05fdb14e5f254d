/**
 * The result of evaluating one request against a policy, in the words of Cloud Armor's request
 * log (`jsonPayload.enforcedSecurityPolicy`, `previewSecurityPolicy`; docs: request-logging)
 * plus what a proxy needs to act on it and a per-rule explanation.
 */

/** ConfiguredAction is the log's `configuredAction`: the rule's action, redirects by their type. */
export type ConfiguredAction = 'ALLOW' | 'DENY' | 'THROTTLE' | 'RATE_BASED_BAN' | 'EXTERNAL_302' | 'GOOGLE_RECAPTCHA' | 'FAIRSHARE';

/**
 * Outcome is the log's `outcome`: ACCEPT (forwarded to the backend), DENY (answered with an error
 * status), REDIRECT (answered with a redirect; the reference marks this value unverified).
 */
export type Outcome = 'ACCEPT' | 'DENY' | 'REDIRECT';

/** RateLimitOutcome is the log's `rateLimitAction.outcome`. */
export type RateLimitOutcome = 'RATE_LIMIT_THRESHOLD_CONFORM' | 'RATE_LIMIT_THRESHOLD_EXCEED' | 'BAN_THRESHOLD_EXCEED';

/** RateLimitAction is the log's `rateLimitAction`; `key` is omitted for the ALL bucket, as the log omits it. */
export interface RateLimitAction {
  /** key is the rate-limit key as the log shows it: at most 36 bytes. */
  readonly key?: string;
  readonly outcome: RateLimitOutcome;
}

/** SecurityPolicyRecord is `enforcedSecurityPolicy` / `previewSecurityPolicy` of the request log. */
export interface SecurityPolicyRecord {
  /** name is the policy's name (not a URL). */
  readonly name: string;
  readonly priority: number;
  readonly configuredAction: ConfiguredAction;
  readonly outcome: Outcome;
  /** preconfiguredExprIds names the WAF signatures that matched (`owasp-crs-v030301-id942100-sqli`), and sets decided by wafUnknown=match. */
  readonly preconfiguredExprIds?: readonly string[];
  readonly rateLimitAction?: RateLimitAction;
}

/** DecidingRule is the rule that decided the request (the enforced one). */
export interface DecidingRule {
  readonly priority: number;
  /** action is the rule's action as stored (`deny(403)`, `throttle`, …). */
  readonly action: string;
  readonly preview: boolean;
}

/**
 * ProxyResponse is what a proxy does with the request: forward it (adding headersToAdd), answer
 * with a deny status (the page is `denyPage(status)`), or answer 302 with a Location. A
 * GOOGLE_RECAPTCHA redirect has no location: Google's assessment page cannot run locally, so
 * `location` is absent and `recaptcha` is true (a proxy answers as it documents).
 */
export type ProxyResponse =
  | { readonly kind: 'forward' }
  | { readonly kind: 'deny'; readonly status: number }
  | { readonly kind: 'redirect'; readonly status: 302; readonly location?: string; readonly recaptcha?: true };

/** HeaderToAdd is one header `headerAction.requestHeadersToAdds` adds to (or overwrites in) the forwarded request. */
export interface HeaderToAdd {
  readonly name: string;
  readonly value: string;
}

/** RateLimitReport is the counter state of the deciding rate-limited rule after this request. */
export interface RateLimitReport {
  /** key is the full bucket key (up to 128 bytes per component); `''` is the ALL bucket. */
  readonly key: string;
  /** keyType says how the key was derived, after fallbacks (`IP`, `HTTP_HEADER`, `ALL`, …; composite keys joined by `+`). */
  readonly keyType: string;
  /** count is the requests counted in the current window, this one included. */
  readonly count: number;
  readonly threshold: number;
  readonly intervalSec: number;
  /** windowStart is when the current window began (ms since the epoch, on the injected clock). */
  readonly windowStart: number;
  readonly banned?: boolean;
  /** banUntil is when the ban ends (ms since the epoch). */
  readonly banUntil?: number;
}

/** RuleExplanation says what one evaluated rule did with the request. */
export interface RuleExplanation {
  readonly priority: number;
  readonly preview: boolean;
  readonly matched: boolean;
  /** notEvaluatedLocally: a WAF/threat-intelligence/address-group call decided as `wafUnknown` says. */
  readonly notEvaluatedLocally?: boolean;
  /** error is the run-time error that made the rule not match (missing header, bad IP, …). */
  readonly error?: string;
  /** detail says which part of the match decided, in words. */
  readonly detail: string;
}

/** SecurityPolicyRequestData is the log's `securityPolicyRequestData`: what the policy read about the client. */
export interface SecurityPolicyRequestData {
  readonly remoteIpInfo: { readonly ipAddress: string; readonly regionCode?: string; readonly asn?: number };
  /** userIpInfo is set when the address came from one of the policy's userIpRequestHeaders (`source` is that header). */
  readonly userIpInfo?: { readonly source: string; readonly ipAddress: string };
  readonly tlsJa3Fingerprint?: string;
  readonly tlsJa4Fingerprint?: string;
}

/** Decision is the verdict on one request. */
export interface Decision {
  readonly enforcedSecurityPolicy: SecurityPolicyRecord;
  /** previewSecurityPolicy is the first preview rule that matched above the enforced one. */
  readonly previewSecurityPolicy?: SecurityPolicyRecord;
  readonly rule: DecidingRule;
  readonly response: ProxyResponse;
  /** statusDetails is the log's `statusDetails` when the policy answered (`denied_by_security_policy`, `redirected_by_security_policy`). */
  readonly statusDetails?: string;
  readonly securityPolicyRequestData: SecurityPolicyRequestData;
  readonly headersToAdd: readonly HeaderToAdd[];
  readonly rateLimit?: RateLimitReport;
  /** previewRateLimit is the counter state of a preview rate-limited rule reported in previewSecurityPolicy. */
  readonly previewRateLimit?: RateLimitReport;
  /** explanation lists every rule evaluated, in priority order, ending with the deciding one. */
  readonly explanation: readonly RuleExplanation[];
}
