import { SECURITY_POLICY_TYPES, SECURITY_PRODUCT } from '../identifiers.ts';

/**
 * Limits, enumerations and message texts of security policies and their rules, in one place so
 * validation and tests share them. Texts quoted from the real service are marked "(real)". Types
 * and texts use the real words (CLOUD_ARMOR, Cloud Armor); the spec's neutral spellings
 * (EDGEGUARD…) are read and written through SECURITY_POLICY_TYPES in compute/identifiers.ts.
 */

/** POLICY_TYPES are the security policy types in their canonical (real) spelling; the first is the server default. */
export const POLICY_TYPES = ['CLOUD_ARMOR', 'CLOUD_ARMOR_EDGE', 'CLOUD_ARMOR_NETWORK', 'CLOUD_ARMOR_INTERNAL_SERVICE'] as const;
/** PolicyType is one of POLICY_TYPES. */
export type PolicyType = (typeof POLICY_TYPES)[number];
/** POLICY_TYPE_SPELLINGS are the values a request's `type` may take: every type in either spelling. */
export const POLICY_TYPE_SPELLINGS = [...POLICY_TYPES, ...POLICY_TYPES.map((type) => SECURITY_POLICY_TYPES.spell(type, 'spec'))] as [string, ...string[]];
/** DEFAULT_POLICY_TYPE is what the server fills when `type` is omitted (a backend policy). */
export const DEFAULT_POLICY_TYPE: PolicyType = 'CLOUD_ARMOR';
/** REGIONAL_POLICY_TYPES are the types a regional policy may have: the edge type is global only. */
export const REGIONAL_POLICY_TYPES: readonly PolicyType[] = ['CLOUD_ARMOR', 'CLOUD_ARMOR_NETWORK', 'CLOUD_ARMOR_INTERNAL_SERVICE'];

/** PRODUCT is the product's name as the real service's messages write it. */
export const PRODUCT = SECURITY_PRODUCT.real;

/** PolicyScope says whether a policy lives under `global/` or under `regions/{region}/`. */
export type PolicyScope = 'global' | 'regional';

/** MIN_PRIORITY and MAX_PRIORITY bound rule priorities; MAX_PRIORITY is the default rule's. */
export const MIN_PRIORITY = 0;
/** MAX_PRIORITY is the lowest priority, held by the default rule. */
export const MAX_PRIORITY = 2147483647;

/** MAX_SRC_IP_RANGES bounds `match.config.srcIpRanges`. */
export const MAX_SRC_IP_RANGES = 10;
/** MAX_ENFORCE_ON_KEY_CONFIGS bounds `rateLimitOptions.enforceOnKeyConfigs`. */
export const MAX_ENFORCE_ON_KEY_CONFIGS = 3;
/** MAX_SUBEXPRESSIONS bounds the terms joined by && and || in one expression. */
export const MAX_SUBEXPRESSIONS = 5;
/** MAX_DESCRIPTION_LENGTH bounds a rule description (docs: "limited to 64 characters"). */
export const MAX_DESCRIPTION_LENGTH = 64;
/** EXPR_JSON_SHOWN is how much of the expr JSON the real service quotes before cutting it with `...`. */
export const EXPR_JSON_SHOWN = 100;

/** THROTTLE_MAX_COUNT and BAN_MAX_COUNT bound `rateLimitThreshold.count` (docs, rate limiting overview). */
export const THROTTLE_MAX_COUNT = 1_000_000;
/** BAN_MAX_COUNT bounds `rateLimitThreshold.count` of a rate_based_ban rule. */
export const BAN_MAX_COUNT = 10_000;
/** INTERVAL_SECONDS are the only intervals a rate limit threshold accepts (docs). */
export const INTERVAL_SECONDS: readonly number[] = [10, 30, 60, 120, 180, 240, 300, 600, 900, 1200, 1800, 2700, 3600];

/** ENFORCE_ON_KEY_TYPES are the rate limit key types (v1 enum). */
export const ENFORCE_ON_KEY_TYPES = [
  'ALL',
  'HTTP_COOKIE',
  'HTTP_HEADER',
  'HTTP_PATH',
  'IP',
  'REGION_CODE',
  'SNI',
  'TLS_JA3_FINGERPRINT',
  'TLS_JA4_FINGERPRINT',
  'USER_IP',
  'XFF_IP',
] as const;
/** NAMED_KEY_TYPES are the key types that read a header or cookie named by enforceOnKeyName. */
export const NAMED_KEY_TYPES: readonly string[] = ['HTTP_HEADER', 'HTTP_COOKIE'];

/** REDIRECT_TYPES are the redirect kinds; the captcha kind redirects to a challenge page. */
export const REDIRECT_TYPES = ['EXTERNAL_302', 'GOOGLE_RECAPTCHA'] as const;
/** EXCLUSION_OPS are the match operators of WAF exclusions. */
export const EXCLUSION_OPS = ['CONTAINS', 'ENDS_WITH', 'EQUALS', 'EQUALS_ANY', 'STARTS_WITH'] as const;
/** VERSIONED_EXPRS are the preconfigured versioned expressions. */
export const VERSIONED_EXPRS = ['SRC_IPS_V1'] as const;

/** RULE_ACTIONS_TEXT lists the action grammar for messages. */
const RULE_ACTIONS_TEXT = 'allow, deny, deny(403), deny(404), deny(502), rate_based_ban, redirect, throttle, fairshare';
/** DENY_STATUSES are the statuses of `deny(STATUS)` as a rule action. */
export const DENY_STATUSES: readonly string[] = ['403', '404', '502'];
/** EXCEED_DENY_STATUSES are the statuses of `deny(STATUS)` as an exceed action. */
export const EXCEED_DENY_STATUSES: readonly string[] = ['403', '404', '429', '502'];
/** RATE_LIMITED_ACTIONS need rateLimitOptions; every other action forbids them. */
export const RATE_LIMITED_ACTIONS: readonly string[] = ['rate_based_ban', 'throttle', 'fairshare'];

/** IP_PROTOCOL_NAMES are the names networkMatch.ipProtocols accepts besides numbers. */
export const IP_PROTOCOL_NAMES: readonly string[] = ['tcp', 'udp', 'icmp', 'esp', 'ah', 'ipip', 'sctp'];

/** ISO_REGION_CODES are the ISO 3166-1 alpha-2 codes networkMatch.srcRegionCodes accepts. */
export const ISO_REGION_CODES: ReadonlySet<string> = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** PRECONFIGURED_EXPRESSION_SETS are the sets evaluatePreconfiguredExpr knows (as listPreconfiguredExpressionSets shows them). */
export const PRECONFIGURED_EXPRESSION_SETS: readonly string[] = [
  'sqli-stable',
  'sqli-canary',
  'xss-stable',
  'xss-canary',
  'lfi-stable',
  'lfi-canary',
  'rfi-stable',
  'rfi-canary',
  'rce-stable',
  'rce-canary',
  'methodenforcement-stable',
  'methodenforcement-canary',
  'scannerdetection-stable',
  'scannerdetection-canary',
  'protocolattack-stable',
  'protocolattack-canary',
  'php-stable',
  'php-canary',
  'sessionfixation-stable',
  'sessionfixation-canary',
  'java-stable',
  'java-canary',
  'nodejs-stable',
  'nodejs-canary',
  'cve-canary',
  'json-sqli-canary',
];
/** WAF_RULE_SETS are the versioned sets evaluatePreconfiguredWaf (and evaluatePreconfiguredExpr) accept. */
export const WAF_RULE_SETS: readonly string[] = ['v33', 'v422'].flatMap((version) =>
  ['sqli', 'xss', 'lfi', 'rfi', 'rce', 'methodenforcement', 'scannerdetection', 'protocolattack', 'php', 'sessionfixation', 'java', 'nodejs'].flatMap(
    (family) => [`${family}-${version}-stable`, `${family}-${version}-canary`],
  ),
);
/** SOURCE_IP_LISTS are the named source IP lists (enterprise, global policies only). */
export const SOURCE_IP_LISTS: readonly string[] = ['sourceiplist-fastly', 'sourceiplist-cloudflare', 'sourceiplist-imperva'];
/** SOURCE_IP_LIST_PREFIX marks the named source IP lists among preconfigured expression sets. */
export const SOURCE_IP_LIST_PREFIX = 'sourceiplist-';
/** THREAT_INTELLIGENCE_LISTS are the lists evaluateThreatIntelligence accepts. */
export const THREAT_INTELLIGENCE_LISTS: readonly string[] = [
  'iplist-known-malicious-ips',
  'iplist-tor-exit-nodes',
  'iplist-search-engines-crawlers',
  'iplist-public-clouds',
  'iplist-public-clouds-aws',
  'iplist-public-clouds-azure',
  'iplist-public-clouds-gcp',
  'iplist-crypto-miners',
  'iplist-vpn-providers',
  'iplist-anon-proxies',
];
/** WAF_OPTION_KEYS are the keys of evaluatePreconfiguredWaf's options map. */
export const WAF_OPTION_KEYS: readonly string[] = ['sensitivity', 'opt_out_rule_ids', 'opt_in_rule_ids'];
/** MAX_WAF_SENSITIVITY bounds the `sensitivity` option (0 enables nothing by default). */
export const MAX_WAF_SENSITIVITY = 4;

/** MESSAGES are the reasons and free texts, functions where they quote values. */
export const MESSAGES = {
  /** (real) addRule with a priority already taken. */
  samePriority: 'Cannot have rules with the same priorities.',
  /** (real) patchRule/getRule/removeRule at a priority without a rule. */
  noRuleAtPriority: (policy: string, priority: number | string) => `${policy} does not contain a rule at priority ${priority}.`,
  /** (real) previewing the default rule. */
  previewDefaultRule: 'Cannot preview the default rule, consider creating another rule that matches all to simulate the default rule.',
  /** moving the default rule to another priority. */
  moveDefaultRule: 'The priority of the default rule cannot be changed.',
  /** removing the default rule. */
  removeDefaultRule: 'The default rule cannot be removed.',
  /** the default rule must keep matching everything. */
  defaultRuleMatchAll: "The default rule must match all traffic: use versionedExpr SRC_IPS_V1 with srcIpRanges ['*'].",
  /** (real) rateLimitOptions present or missing against the action. */
  rateLimitOptions:
    "Rate limit options must be specified if the action is 'fairshare', 'rate_based_ban' or 'throttle'. It cannot be specified for any other actions",
  priorityRange: `Priority must be between ${MIN_PRIORITY} and ${MAX_PRIORITY}.`,
  action: `Action must be one of ${RULE_ACTIONS_TEXT}.`,
  redirectGlobalOnly: 'The redirect action is only supported in global security policies of type CLOUD_ARMOR.',
  fairshareInternalOnly: 'The fairshare action is only supported in security policies of type CLOUD_ARMOR_INTERNAL_SERVICE.',
  redirectOptionsRequired: 'Redirect options must be specified if the action is redirect.',
  redirectOptionsForbidden: 'Redirect options can only be specified if the action is redirect.',
  redirectTargetRequired: 'A redirect target must be specified for redirect type EXTERNAL_302.',
  redirectTargetForbidden: 'A redirect target cannot be specified for redirect type GOOGLE_RECAPTCHA.',
  redirectTypeRequired: 'A redirect type must be specified.',
  headerActionGlobalOnly: 'Header actions are only supported in global security policies of type CLOUD_ARMOR.',
  redirectOptionsGlobalOnly: 'Redirect options are only supported in global security policies of type CLOUD_ARMOR.',
  conformAction: "Conform action must be 'allow'.",
  exceedAction: 'Exceed action must be one of deny(403), deny(404), deny(429), deny(502), redirect.',
  exceedRedirectGlobalOnly: 'The redirect exceed action is only supported in global security policies of type CLOUD_ARMOR.',
  exceedRedirectOptionsForbidden: 'Exceed redirect options can only be specified if the exceed action is redirect.',
  exceedRedirectOptionsRequired: 'Exceed redirect options must be specified if the exceed action is redirect.',
  enforceOnKeyNameRequired: 'Enforce on key name must be specified if the enforce on key type is HTTP_HEADER or HTTP_COOKIE.',
  enforceOnKeyNameForbidden: 'Enforce on key name can only be specified if the enforce on key type is HTTP_HEADER or HTTP_COOKIE.',
  enforceOnKeyWithConfigs: 'Enforce on key cannot be specified together with enforce on key configs.',
  fairshareKeyAll: 'Only enforce on key type ALL is supported for the fairshare action.',
  banOnlyForBan: "Ban threshold and ban duration can only be specified if the action is 'rate_based_ban'.",
  thresholdRequired: 'A rate limit threshold must be specified.',
  thresholdCount: (max: number) => `Rate limit threshold count must be between 1 and ${max}.`,
  intervalSec: `Interval must be one of ${INTERVAL_SECONDS.join(', ')} seconds.`,
  banToThrottle: "A rule with action 'rate_based_ban' cannot be changed to action 'throttle'.",
  versionedExprWithoutConfig: 'Config must be specified if versionedExpr is set.',
  configWithoutVersionedExpr: 'Config can only be specified if versionedExpr is set.',
  exprAndVersionedExpr: 'Exactly one of expr and versionedExpr may be set.',
  matchRequired: 'A match condition must be specified.',
  ipRange: 'Must be a valid IPv4 or IPv6 address or CIDR range, or *.',
  networkMatchOnlyNetwork: 'Network match can only be specified in security policies of type CLOUD_ARMOR_NETWORK.',
  udfValue: 'Must be a 32-bit unsigned decimal or 0x-prefixed hexadecimal number, or a range of two such numbers joined by a dash.',
  udfName: (name: string) => `The security policy does not define a user-defined field named ${name}.`,
  ipProtocol: `Must be an 8-bit unsigned decimal, a range of two decimals, or one of ${IP_PROTOCOL_NAMES.join(', ')}.`,
  port: 'Must be a 16-bit unsigned decimal or a range of two such numbers joined by a dash.',
  regionCode: 'Must be a two-letter ISO 3166-1 alpha-2 region code.',
  descriptionTooLong: `Description must be at most ${MAX_DESCRIPTION_LENGTH} characters.`,
  typeChange: 'The type of a security policy cannot be changed.',
  nameChange: 'The name of a security policy cannot be changed.',
  invalidLabelFingerprint: 'Labels fingerprint either invalid or resource labels have changed',
  regionalType: 'Regional security policies must be of type CLOUD_ARMOR, CLOUD_ARMOR_NETWORK or CLOUD_ARMOR_INTERNAL_SERVICE.',
  invalidFingerprint: 'Invalid fingerprint.',
} as const;
