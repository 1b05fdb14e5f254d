import type { PolicyScope, PolicyType } from '../constants.ts';
import { HEADER_ACTION_MESSAGES } from '../check-header-action.ts';

/**
 * RULE_VALIDATION_CASES is the table of rejected patchRule calls, one row per validation rule,
 * shared by the unit tests (decode → merge → validate) and the HTTP tests (which also prove the
 * policy and its fingerprint are unchanged). Each row patches the rule at `priority` (default
 * 1000, created from `base`) of a policy named `pol` with the given type and scope.
 */
export interface RuleValidationCase {
  readonly name: string;
  readonly policyType?: PolicyType;
  readonly scope?: PolicyScope;
  /** The rule stored before the patch; ALLOW_RULE when omitted. */
  readonly base?: Record<string, unknown>;
  /** The priority patched; 1000 (the base rule) unless the row targets the default rule. */
  readonly priority?: number;
  readonly body: Record<string, unknown>;
  readonly updateMask?: string;
  readonly message: string;
}

/** ALLOW_RULE is the usual stored rule. */
export const ALLOW_RULE = { priority: 1000, action: 'allow', match: { expr: { expression: "request.path.startsWith('/a')" } } };
/** THROTTLE_RULE is a valid rate limited rule. */
export const THROTTLE_RULE = {
  priority: 1000,
  action: 'throttle',
  match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['*'] } },
  rateLimitOptions: { rateLimitThreshold: { count: 10, intervalSec: 60 }, conformAction: 'allow', exceedAction: 'deny(429)', enforceOnKey: 'IP' },
};
/** BAN_RULE is a valid rate_based_ban rule. */
export const BAN_RULE = { ...THROTTLE_RULE, action: 'rate_based_ban', rateLimitOptions: { ...THROTTLE_RULE.rateLimitOptions, banDurationSec: 600 } };
/** NETWORK_RULE is a valid rule of an CLOUD_ARMOR_NETWORK policy. */
export const NETWORK_RULE = { priority: 1000, action: 'allow', networkMatch: { srcIpRanges: ['10.0.0.0/8'] } };

const expr = (expression: string): Record<string, unknown> => ({ priority: 1000, match: { expr: { expression } } });
/** exprError is the real service's message: the expr as one-line JSON, cut after 100 characters. */
const exprError = (expression: string, detail: string): string => {
  const json = `{ "expression": ${JSON.stringify(expression).replaceAll("'", '\\u0027')}}`;
  const shown = json.length > 100 ? `${json.slice(0, 100)}...` : json;
  return `Invalid value for field 'resource.match.expr': '${shown}'. Error parsing Cloud Armor rule matcher expression: ${detail}`;
};
const RLO =
  "Invalid value for field 'resource.rateLimitOptions': ''. Rate limit options must be specified if the action is 'fairshare', 'rate_based_ban' or 'throttle'. It cannot be specified for any other actions";

/** RULE_VALIDATION_CASES: see the interface. */
export const RULE_VALIDATION_CASES: readonly RuleValidationCase[] = [
  // Decoding (the shared front-end decoder): JSON types, enum values, integer widths, unknown names.
  { name: 'priority of the wrong JSON type', body: { priority: 'high' }, message: `Invalid value at 'resource.priority' (TYPE_INT32), "high"` },
  { name: 'preview of the wrong JSON type', body: { priority: 1000, preview: 'yes' }, message: `Invalid value at 'resource.preview' (TYPE_BOOL), "yes"` },
  {
    name: 'unknown field',
    body: { priority: 1000, match: { exprr: {} } },
    message: `Invalid JSON payload received. Unknown name "exprr" at 'resource.match': Cannot find field.`,
  },
  {
    name: 'unknown enforceOnKey value',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { enforceOnKey: 'FOO' } },
    message: `Invalid value at 'resource.rate_limit_options.enforce_on_key' (type.googleapis.com/google.cloud.compute.v1.SecurityPolicyRuleRateLimitOptions.EnforceOnKey), "FOO"`,
  },
  {
    name: 'unknown versionedExpr value',
    body: { priority: 1000, match: { versionedExpr: 'SRC_IPS_V9' } },
    message: `Invalid value at 'resource.match.versioned_expr' (type.googleapis.com/google.cloud.compute.v1.SecurityPolicyRuleMatcher.VersionedExpr), "SRC_IPS_V9"`,
  },
  {
    name: 'srcAsns beyond uint32',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { srcAsns: [4294967296] } },
    message: "Invalid value at 'resource.network_match.src_asns[0]' (TYPE_UINT32), 4294967296",
  },
  {
    name: 'unknown update mask path',
    body: { priority: 1000 },
    updateMask: 'rate_limit_options,bogus_field',
    message: "Invalid value for field 'updateMask': 'bogus_field'. The field path 'bogus_field' does not name a field of SecurityPolicyRule.",
  },
  // Required parts, cleared through the mask.
  { name: 'action cleared by the mask', body: { priority: 1000 }, updateMask: 'action', message: "Required field 'resource.action' not specified" },
  {
    name: 'match cleared by the mask',
    body: { priority: 1000 },
    updateMask: 'match',
    message: "Invalid value for field 'resource.match': ''. A match condition must be specified.",
  },
  {
    name: 'threshold cleared by the mask',
    base: THROTTLE_RULE,
    body: { priority: 1000 },
    updateMask: 'rate_limit_options.rate_limit_threshold',
    message: "Invalid value for field 'resource.rateLimitOptions.rateLimitThreshold': ''. A rate limit threshold must be specified.",
  },
  // Priority and description.
  {
    name: 'negative priority',
    body: { priority: -1 },
    message: "Invalid value for field 'resource.priority': '-1'. Priority must be between 0 and 2147483647.",
  },
  {
    name: 'description too long',
    body: { priority: 1000, description: 'd'.repeat(65) },
    message: `Invalid value for field 'resource.description': '${'d'.repeat(65)}'. Description must be at most 64 characters.`,
  },
  // Action grammar and where each action may be used.
  {
    name: 'deny with an unsupported status',
    body: { priority: 1000, action: 'deny(451)' },
    message:
      "Invalid value for field 'resource.action': 'deny(451)'. Action must be one of allow, deny, deny(403), deny(404), deny(502), rate_based_ban, redirect, throttle, fairshare.",
  },
  {
    name: 'unknown action',
    body: { priority: 1000, action: 'block' },
    message:
      "Invalid value for field 'resource.action': 'block'. Action must be one of allow, deny, deny(403), deny(404), deny(502), rate_based_ban, redirect, throttle, fairshare.",
  },
  {
    name: 'redirect in a regional policy',
    body: { priority: 1000, action: 'redirect', redirectOptions: { type: 'GOOGLE_RECAPTCHA' } },
    message: "Invalid value for field 'resource.action': 'redirect'. The redirect action is only supported in global security policies of type CLOUD_ARMOR.",
  },
  {
    name: 'redirect in a global network policy',
    policyType: 'CLOUD_ARMOR_NETWORK',
    scope: 'global',
    base: NETWORK_RULE,
    body: { priority: 1000, action: 'redirect' },
    message: "Invalid value for field 'resource.action': 'redirect'. The redirect action is only supported in global security policies of type CLOUD_ARMOR.",
  },
  {
    name: 'fairshare outside internal service policies',
    body: { priority: 1000, action: 'fairshare', rateLimitOptions: THROTTLE_RULE.rateLimitOptions },
    message:
      "Invalid value for field 'resource.action': 'fairshare'. The fairshare action is only supported in security policies of type CLOUD_ARMOR_INTERNAL_SERVICE.",
  },
  {
    name: 'rate_based_ban changed to throttle',
    base: BAN_RULE,
    body: { priority: 1000, action: 'throttle' },
    updateMask: 'rate_limit_options.ban_duration_sec',
    message: "Invalid value for field 'resource.action': 'throttle'. A rule with action 'rate_based_ban' cannot be changed to action 'throttle'.",
  },
  // Rate limit options.
  { name: 'throttle without rateLimitOptions', body: { priority: 1000, action: 'throttle' }, message: RLO },
  { name: 'rateLimitOptions with allow', base: THROTTLE_RULE, body: { priority: 1000, action: 'allow' }, message: RLO },
  {
    name: 'rate_based_ban without rateLimitOptions',
    base: THROTTLE_RULE,
    body: { priority: 1000, action: 'rate_based_ban' },
    updateMask: 'rate_limit_options',
    message: RLO,
  },
  {
    name: 'threshold count above the throttle limit',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { rateLimitThreshold: { count: 1000001 } } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.rateLimitThreshold.count': '1000001'. Rate limit threshold count must be between 1 and 1000000.",
  },
  {
    name: 'threshold interval not offered',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { rateLimitThreshold: { intervalSec: 45 } } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.rateLimitThreshold.intervalSec': '45'. Interval must be one of 10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600 seconds.",
  },
  {
    name: 'conformAction other than allow',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { conformAction: 'deny(403)' } },
    message: "Invalid value for field 'resource.rateLimitOptions.conformAction': 'deny(403)'. Conform action must be 'allow'.",
  },
  {
    name: 'exceedAction with an unsupported status',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { exceedAction: 'deny(401)' } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.exceedAction': 'deny(401)'. Exceed action must be one of deny(403), deny(404), deny(429), deny(502), redirect.",
  },
  {
    name: 'exceedAction redirect in a regional policy',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { exceedAction: 'redirect' } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.exceedAction': 'redirect'. The redirect exceed action is only supported in global security policies of type CLOUD_ARMOR.",
  },
  {
    name: 'exceedRedirectOptions without exceedAction redirect',
    scope: 'global',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { exceedRedirectOptions: { type: 'GOOGLE_RECAPTCHA' } } },
    message: `Invalid value for field 'resource.rateLimitOptions.exceedRedirectOptions': '{"type":"GOOGLE_RECAPTCHA"}'. Exceed redirect options can only be specified if the exceed action is redirect.`,
  },
  {
    name: 'exceedAction redirect without exceedRedirectOptions',
    scope: 'global',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { exceedAction: 'redirect' } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.exceedRedirectOptions': ''. Exceed redirect options must be specified if the exceed action is redirect.",
  },
  {
    name: 'enforceOnKeyName with key IP',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { enforceOnKeyName: 'x-user' } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.enforceOnKeyName': 'x-user'. Enforce on key name can only be specified if the enforce on key type is HTTP_HEADER or HTTP_COOKIE.",
  },
  {
    name: 'HTTP_HEADER key without a name',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { enforceOnKey: 'HTTP_HEADER' } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.enforceOnKeyName': ''. Enforce on key name must be specified if the enforce on key type is HTTP_HEADER or HTTP_COOKIE.",
  },
  {
    name: 'enforceOnKey together with enforceOnKeyConfigs',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { enforceOnKeyConfigs: [{ enforceOnKeyType: 'IP' }] } },
    message: "Invalid value for field 'resource.rateLimitOptions.enforceOnKey': 'IP'. Enforce on key cannot be specified together with enforce on key configs.",
  },
  {
    name: 'more than 3 enforceOnKeyConfigs',
    base: THROTTLE_RULE,
    body: {
      priority: 1000,
      rateLimitOptions: {
        enforceOnKeyConfigs: [{ enforceOnKeyType: 'IP' }, { enforceOnKeyType: 'SNI' }, { enforceOnKeyType: 'HTTP_PATH' }, { enforceOnKeyType: 'REGION_CODE' }],
      },
    },
    updateMask: 'rate_limit_options.enforce_on_key',
    message: "Value for field 'resource.rateLimitOptions.enforceOnKeyConfigs' is too large: maximum size 3 elements; actual size 4.",
  },
  {
    name: 'HTTP_COOKIE key config without a name',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { enforceOnKeyConfigs: [{ enforceOnKeyType: 'HTTP_COOKIE' }] } },
    updateMask: 'rateLimitOptions.enforceOnKey',
    message:
      "Invalid value for field 'resource.rateLimitOptions.enforceOnKeyConfigs[0].enforceOnKeyName': ''. Enforce on key name must be specified if the enforce on key type is HTTP_HEADER or HTTP_COOKIE.",
  },
  {
    name: 'fairshare keyed on IP',
    policyType: 'CLOUD_ARMOR_INTERNAL_SERVICE',
    base: THROTTLE_RULE,
    body: { priority: 1000, action: 'fairshare' },
    message: "Invalid value for field 'resource.rateLimitOptions.enforceOnKey': 'IP'. Only enforce on key type ALL is supported for the fairshare action.",
  },
  {
    name: 'banThreshold with throttle',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { banThreshold: { count: 100, intervalSec: 60 } } },
    message: `Invalid value for field 'resource.rateLimitOptions.banThreshold': '{"count":100,"intervalSec":60}'. Ban threshold and ban duration can only be specified if the action is 'rate_based_ban'.`,
  },
  {
    name: 'banDurationSec with throttle',
    base: THROTTLE_RULE,
    body: { priority: 1000, rateLimitOptions: { banDurationSec: 60 } },
    message:
      "Invalid value for field 'resource.rateLimitOptions.banDurationSec': '60'. Ban threshold and ban duration can only be specified if the action is 'rate_based_ban'.",
  },
  // Match: versionedExpr and config, source ranges.
  {
    name: 'versionedExpr without config',
    body: { priority: 1000, match: { versionedExpr: 'SRC_IPS_V1' } },
    updateMask: 'match.expr',
    message: "Invalid value for field 'resource.match.config': ''. Config must be specified if versionedExpr is set.",
  },
  {
    name: 'config without versionedExpr',
    body: { priority: 1000, match: { config: { srcIpRanges: ['1.2.3.4'] } } },
    message: `Invalid value for field 'resource.match.config': '{"srcIpRanges":["1.2.3.4"]}'. Config can only be specified if versionedExpr is set.`,
  },
  {
    name: 'more than 10 srcIpRanges',
    body: { priority: 1000, match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: Array.from({ length: 11 }, (_, i) => `10.0.${i}.0/24`) } } },
    updateMask: 'match.expr',
    message: "Value for field 'resource.match.config.srcIpRanges' is too large: maximum size 10 elements; actual size 11.",
  },
  {
    name: 'srcIpRanges entry not a CIDR',
    body: { priority: 1000, match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['1.2.3.4/33'] } } },
    updateMask: 'match.expr',
    message: "Invalid value for field 'resource.match.config.srcIpRanges[0]': '1.2.3.4/33'. Must be a valid IPv4 or IPv6 address or CIDR range, or *.",
  },
  // Redirects and header actions.
  {
    name: 'redirect to EXTERNAL_302 without target',
    scope: 'global',
    body: { priority: 1000, action: 'redirect', redirectOptions: { type: 'EXTERNAL_302' } },
    message: "Invalid value for field 'resource.redirectOptions.target': ''. A redirect target must be specified for redirect type EXTERNAL_302.",
  },
  {
    name: 'captcha redirect with a target',
    scope: 'global',
    body: { priority: 1000, action: 'redirect', redirectOptions: { type: 'GOOGLE_RECAPTCHA', target: 'https://x.example' } },
    message:
      "Invalid value for field 'resource.redirectOptions.target': 'https://x.example'. A redirect target cannot be specified for redirect type GOOGLE_RECAPTCHA.",
  },
  {
    name: 'redirectOptions with action allow',
    scope: 'global',
    body: { priority: 1000, redirectOptions: { type: 'GOOGLE_RECAPTCHA' } },
    message: `Invalid value for field 'resource.redirectOptions': '{"type":"GOOGLE_RECAPTCHA"}'. Redirect options can only be specified if the action is redirect.`,
  },
  {
    name: 'redirectOptions in a regional policy',
    body: { priority: 1000, redirectOptions: { type: 'GOOGLE_RECAPTCHA' } },
    message: `Invalid value for field 'resource.redirectOptions': '{"type":"GOOGLE_RECAPTCHA"}'. Redirect options are only supported in global security policies of type CLOUD_ARMOR.`,
  },
  {
    name: 'headerAction in a regional policy',
    body: { priority: 1000, headerAction: { requestHeadersToAdds: [{ headerName: 'x', headerValue: 'y' }] } },
    message: `Invalid value for field 'resource.headerAction': '{"requestHeadersToAdds":[{"headerName":"x","headerValue":"y"}]}'. Header actions are only supported in global security policies of type CLOUD_ARMOR.`,
  },
  {
    name: 'redirect without redirectOptions',
    scope: 'global',
    body: { priority: 1000, action: 'redirect' },
    message: "Invalid value for field 'resource.redirectOptions': ''. Redirect options must be specified if the action is redirect.",
  },
  {
    name: 'header to add without a name',
    scope: 'global',
    body: { priority: 1000, headerAction: { requestHeadersToAdds: [{ headerValue: 'v' }] } },
    message: "Required field 'resource.headerAction.requestHeadersToAdds[0].headerName' not specified",
  },
  // Headers a proxy cannot write, or that would reframe the forwarded request (issue 44).
  ...(
    [
      ['a header name with a space', 'X Team', 'v', 'headerName', 'X Team', 'name'],
      ['a header name with a colon', 'X-Team:', 'v', 'headerName', 'X-Team:', 'name'],
      ['a non-ASCII header name', 'X-Équipe', 'v', 'headerName', 'X-Équipe', 'name'],
      ['a header action setting Content-Length', 'Content-Length', '0', 'headerName', 'Content-Length', 'reserved'],
      ['a header action setting Transfer-Encoding', 'transfer-encoding', 'chunked', 'headerName', 'transfer-encoding', 'reserved'],
      ['a header action setting Host', 'Host', 'admin.local', 'headerName', 'Host', 'reserved'],
      ['a header action setting Connection', 'Connection', 'close', 'headerName', 'Connection', 'reserved'],
      ['a header value outside ASCII', 'X-Team', 'café €', 'headerValue', 'café €', 'value'],
      ['a header value with CR LF', 'X-Team', 'a\r\nX-Admin: 1', 'headerValue', 'a\r\nX-Admin: 1', 'value'],
      ['a header value with a control character', 'X-Team', 'a\u0000b', 'headerValue', 'a\u0000b', 'value'],
      ['a header value ending in a space', 'X-Team', 'a ', 'headerValue', 'a ', 'value'],
    ] as const
  ).map(([name, headerName, headerValue, part, shown, reason]) => ({
    name,
    scope: 'global' as const,
    body: { priority: 1000, headerAction: { requestHeadersToAdds: [{ headerName, headerValue }] } },
    message: `Invalid value for field 'resource.headerAction.requestHeadersToAdds[0].${part}': '${shown}'. ${HEADER_ACTION_MESSAGES[reason]}`,
  })),
  // Network match.
  {
    name: 'networkMatch outside network policies',
    body: { priority: 1000, networkMatch: { srcPorts: ['80'] } },
    message: `Invalid value for field 'resource.networkMatch': '{"srcPorts":["80"]}'. Network match can only be specified in security policies of type CLOUD_ARMOR_NETWORK.`,
  },
  {
    name: 'user-defined value beyond 32 bits',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { userDefinedFields: [{ name: 'f1', values: ['0x100000000'] }] } },
    message:
      "Invalid value for field 'resource.networkMatch.userDefinedFields[0].values[0]': '0x100000000'. Must be a 32-bit unsigned decimal or 0x-prefixed hexadecimal number, or a range of two such numbers joined by a dash.",
  },
  {
    name: 'user-defined field the policy does not define',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { userDefinedFields: [{ name: 'f9', values: ['1'] }] } },
    message:
      "Invalid value for field 'resource.networkMatch.userDefinedFields[0].name': 'f9'. The security policy does not define a user-defined field named f9.",
  },
  {
    name: 'IP protocol beyond 8 bits',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { ipProtocols: ['tcp', '256'] } },
    message:
      "Invalid value for field 'resource.networkMatch.ipProtocols[1]': '256'. Must be an 8-bit unsigned decimal, a range of two decimals, or one of tcp, udp, icmp, esp, ah, ipip, sctp.",
  },
  {
    name: 'port range upside down',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { destPorts: ['443', '9000-8000'] } },
    message:
      "Invalid value for field 'resource.networkMatch.destPorts[1]': '9000-8000'. Must be a 16-bit unsigned decimal or a range of two such numbers joined by a dash.",
  },
  {
    name: 'port beyond 16 bits',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { srcPorts: ['65536'] } },
    message:
      "Invalid value for field 'resource.networkMatch.srcPorts[0]': '65536'. Must be a 16-bit unsigned decimal or a range of two such numbers joined by a dash.",
  },
  {
    name: 'region code not ISO 3166-1',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { srcRegionCodes: ['US', 'UK'] } },
    message: "Invalid value for field 'resource.networkMatch.srcRegionCodes[1]': 'UK'. Must be a two-letter ISO 3166-1 alpha-2 region code.",
  },
  {
    name: 'network source range not a CIDR',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: { priority: 1000, networkMatch: { srcIpRanges: ['10.0.0.0/8', '300.1.1.1'] } },
    message: "Invalid value for field 'resource.networkMatch.srcIpRanges[1]': '300.1.1.1'. Must be a valid IPv4 or IPv6 address or CIDR range, or *.",
  },
  // The default rule.
  {
    name: 'preview on the default rule',
    priority: 2147483647,
    body: { priority: 2147483647, preview: true },
    message:
      "Invalid value for field 'resource.preview': 'true'. Cannot preview the default rule, consider creating another rule that matches all to simulate the default rule.",
  },
  {
    name: 'default rule narrowed',
    priority: 2147483647,
    body: { priority: 2147483647, match: { config: { srcIpRanges: ['10.0.0.0/8'] } } },
    message: `Invalid value for field 'resource.match': '{"versionedExpr":"SRC_IPS_V1","config":{"srcIpRanges":["10.0.0.0/8"]}}'. The default rule must match all traffic: use versionedExpr SRC_IPS_V1 with srcIpRanges ['*'].`,
  },
  // Expressions.
  {
    name: 'expression syntax error',
    body: expr("request.path.startsWith('/a'"),
    message: exprError("request.path.startsWith('/a'", '<input>:1:13: found . but expecting end of input'),
  },
  {
    name: 'expression undeclared attribute',
    body: expr("request.verb == 'GET'"),
    message: exprError("request.verb == 'GET'", "<input>:1:8: undeclared reference to 'request.verb' (in container '')"),
  },
  {
    name: 'expression not boolean',
    body: expr('origin.asn + 1'),
    message: exprError('origin.asn + 1', "expression must evaluate to a boolean value, found 'int'"),
  },
  {
    name: 'expression overload mismatch',
    body: expr("evaluatePreconfiguredExpr('xss-stable', {'a': 'b'})"),
    message: exprError(
      "evaluatePreconfiguredExpr('xss-stable', {'a': 'b'})",
      "<input>:1:1: found no matching overload for 'evaluatePreconfiguredExpr' applied to '(string, map(string, string))' (candidates: (string),(string, list(string)))",
    ),
  },
  {
    name: 'expression equality across types',
    body: expr("origin.asn == '15169'"),
    message: exprError(
      "origin.asn == '15169'",
      "<input>:1:12: found no matching overload for '_==_' applied to '(int, string)' (candidates: (bool, bool),(double, double),(int, int),(string, string))",
    ),
  },
  {
    name: 'expression with a disabled macro',
    body: expr("['a'].exists(x, x == request.path)"),
    message: exprError("['a'].exists(x, x == request.path)", "<input>:1:6: undeclared reference to 'exists' (in container '')"),
  },
  {
    name: 'expression with six subexpressions',
    body: expr(
      "origin.ip == '1.1.1.1' || origin.ip == '1.1.1.2' || origin.ip == '1.1.1.3' || origin.ip == '1.1.1.4' || origin.ip == '1.1.1.5' || origin.ip == '1.1.1.6'",
    ),
    message: exprError(
      "origin.ip == '1.1.1.1' || origin.ip == '1.1.1.2' || origin.ip == '1.1.1.3' || origin.ip == '1.1.1.4' || origin.ip == '1.1.1.5' || origin.ip == '1.1.1.6'",
      'The expression has too many subexpressions (maximum 5)',
    ),
  },
  {
    name: 'unknown preconfigured expression set',
    body: expr("evaluatePreconfiguredExpr('xss-unstable')"),
    message: exprError("evaluatePreconfiguredExpr('xss-unstable')", "xss-unstable isn't a valid preconfigured expression set."),
  },
  {
    name: 'source IP list in a regional policy',
    body: expr("evaluatePreconfiguredExpr('sourceiplist-fastly')"),
    message: exprError("evaluatePreconfiguredExpr('sourceiplist-fastly')", "sourceiplist-fastly isn't a valid preconfigured expression set."),
  },
  {
    name: 'unknown source IP list in a global policy',
    scope: 'global',
    body: expr("evaluatePreconfiguredExpr('sourceiplist-example')"),
    message: exprError("evaluatePreconfiguredExpr('sourceiplist-example')", "sourceiplist-example isn't a valid preconfigured expression set."),
  },
  {
    name: 'threat intelligence in a regional policy',
    body: expr("evaluateThreatIntelligence('iplist-tor-exit-nodes')"),
    message: exprError("evaluateThreatIntelligence('iplist-tor-exit-nodes')", 'Threat intelligence is not supported in regional security policies.'),
  },
  {
    name: 'threat intelligence in an edge policy',
    scope: 'global',
    policyType: 'CLOUD_ARMOR_EDGE',
    body: expr("evaluateThreatIntelligence('iplist-tor-exit-nodes')"),
    message: exprError(
      "evaluateThreatIntelligence('iplist-tor-exit-nodes')",
      'Threat intelligence is not supported in security policies of type CLOUD_ARMOR_EDGE.',
    ),
  },
  {
    name: 'unknown WAF rule set',
    body: expr("evaluatePreconfiguredWaf('sqli-v99-stable')"),
    message: exprError("evaluatePreconfiguredWaf('sqli-v99-stable')", "sqli-v99-stable isn't a valid preconfigured WAF rule set."),
  },
  {
    name: 'WAF sensitivity out of range',
    body: expr("evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 5})"),
    message: exprError(
      "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 5})",
      'The sensitivity option of evaluatePreconfiguredWaf must be an integer between 0 and 4.',
    ),
  },
  {
    name: 'regex with a capture group',
    body: expr("request.path.matches('/v2/(a|b)/x')"),
    message: exprError("request.path.matches('/v2/(a|b)/x')", 'Invalid regular expression: /v2/(a|b)/x, Capture Groups are not allowed.'),
  },
  {
    name: 'regex that does not compile',
    body: expr("request.path.matches('/v2/[a-')"),
    message: exprError("request.path.matches('/v2/[a-')", 'Invalid regular expression: /v2/[a-, missing closing ]: [a-.'),
  },
  {
    name: 'regex with lookahead',
    body: expr("request.path.matches('/a(?=b)')"),
    message: exprError("request.path.matches('/a(?=b)')", 'Invalid regular expression: /a(?=b), invalid or unsupported Perl syntax: (?=.'),
  },
  {
    name: 'expr quoted in field order with its title',
    body: { priority: 1000, match: { expr: { title: 'ban', expression: 'bogus' } } },
    message: `Invalid value for field 'resource.match.expr': '{ "expression": "bogus", "title": "ban"}'. Error parsing Cloud Armor rule matcher expression: <input>:1:1: undeclared reference to 'bogus' (in container '')`,
  },
  { name: 'empty expression', body: expr('  '), message: "Required field 'resource.match.expr.expression' not specified" },
];

/** ACCEPTED_PATCHES are patches every policy of the given kind accepts (the happy side of the same rules). */
export const ACCEPTED_PATCHES: readonly Omit<RuleValidationCase, 'message'>[] = [
  {
    name: 'header actions a proxy can write (tokens, visible ASCII with inner spaces, an empty value)',
    scope: 'global',
    body: {
      priority: 1000,
      headerAction: {
        requestHeadersToAdds: [
          { headerName: 'X-Goog-Team', headerValue: 'edge team; v=1' },
          { headerName: "x-a!#$%&'*+.^_`|~", headerValue: '' },
        ],
      },
    },
  },
  { name: 'deny-403 as gcloud sends it', body: { priority: 1000, action: 'deny(403)' }, updateMask: 'redirect_options,rate_limit_options' },
  { name: 'output-only kind is ignored', body: { priority: 1000, kind: 'compute#somethingElse', description: 'd' } },
  {
    name: 'src ranges as gcloud sends them',
    body: { priority: 1000, match: { versionedExpr: 'SRC_IPS_V1', config: { srcIpRanges: ['1.2.3.4/32', '2001:db8::/32'] } } },
    updateMask: 'match.expr',
  },
  { name: 'throttle with its options', body: THROTTLE_RULE },
  {
    name: 'rich expression',
    body: expr(
      "request.headers['user-agent'].lower().contains('bot') && has(request.headers['x-a']) && origin.asn == 15169 && token.recaptcha_action.score > 0.5 && evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 2, 'opt_out_rule_ids': ['owasp-crs-v030301-id942350-sqli']})",
    ),
  },
  {
    name: 'throttle becomes rate_based_ban',
    base: THROTTLE_RULE,
    body: { priority: 1000, action: 'rate_based_ban', rateLimitOptions: { banDurationSec: 300, banThreshold: { count: 100, intervalSec: 60 } } },
  },
  {
    name: 'redirect in a global CLOUD_ARMOR policy',
    scope: 'global',
    body: { priority: 1000, action: 'redirect', redirectOptions: { type: 'EXTERNAL_302', target: 'https://x.example' } },
  },
  { name: 'source IP list in a global policy', scope: 'global', body: expr("evaluatePreconfiguredExpr('sourceiplist-fastly')") },
  {
    name: 'fairshare in an internal service policy',
    policyType: 'CLOUD_ARMOR_INTERNAL_SERVICE',
    base: THROTTLE_RULE,
    body: { priority: 1000, action: 'fairshare', rateLimitOptions: { enforceOnKey: 'ALL' } },
  },
  {
    name: 'network match formats',
    policyType: 'CLOUD_ARMOR_NETWORK',
    base: NETWORK_RULE,
    body: {
      priority: 1000,
      networkMatch: {
        ipProtocols: ['udp', '6', '0-255'],
        destPorts: ['53', '8000-9000'],
        srcRegionCodes: ['US', 'DE'],
        srcAsns: [4294967295],
        userDefinedFields: [{ name: 'f1', values: ['0x1F', '10-20', '4294967295'] }],
      },
    },
  },
  { name: 'default rule action changed', priority: 2147483647, body: { priority: 2147483647, action: 'deny(404)' } },
];
