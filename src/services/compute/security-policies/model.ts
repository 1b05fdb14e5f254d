import { PBool, PEnum, PInt32, PMap, PMessage, PRepeated, PString, PUint32, type Decoded } from '../shared/proto-schema.ts';
import { ENFORCE_ON_KEY_TYPES, EXCLUSION_OPS, POLICY_TYPE_SPELLINGS, REDIRECT_TYPES, VERSIONED_EXPRS } from './constants.ts';

/**
 * The SecurityPolicy and SecurityPolicyRule messages of compute v1 as proto-annotated schemas:
 * `decodeResource` reads request bodies against them (JSON types, enum values, integer widths,
 * unknown names, in the front end's words), the update-mask merge walks them to check paths,
 * and the static types come from them. Output-only members (`kind`, `id`, …) are accepted, as
 * clients echo them back, and replaced by the server.
 */

const Expr = PMessage('Expr', { expression: PString(), title: PString(), description: PString(), location: PString() });

const Threshold = PMessage('SecurityPolicyRuleRateLimitOptionsThreshold', { count: PInt32(), intervalSec: PInt32() });

const RedirectOptions = PMessage('SecurityPolicyRuleRedirectOptions', {
  type: PEnum('SecurityPolicyRuleRedirectOptions.Type', REDIRECT_TYPES),
  target: PString(),
});

const ExclusionFieldParams = PMessage('SecurityPolicyRulePreconfiguredWafConfigExclusionFieldParams', {
  val: PString(),
  op: PEnum('SecurityPolicyRulePreconfiguredWafConfigExclusionFieldParams.Op', EXCLUSION_OPS),
});

const Matcher = PMessage('SecurityPolicyRuleMatcher', {
  expr: Expr,
  exprOptions: PMessage('SecurityPolicyRuleMatcherExprOptions', {
    recaptchaOptions: PMessage('SecurityPolicyRuleMatcherExprOptionsRecaptchaOptions', {
      actionTokenSiteKeys: PRepeated(PString()),
      sessionTokenSiteKeys: PRepeated(PString()),
    }),
  }),
  versionedExpr: PEnum('SecurityPolicyRuleMatcher.VersionedExpr', VERSIONED_EXPRS),
  config: PMessage('SecurityPolicyRuleMatcherConfig', { srcIpRanges: PRepeated(PString()) }),
});

const NetworkMatcher = PMessage('SecurityPolicyRuleNetworkMatcher', {
  userDefinedFields: PRepeated(PMessage('SecurityPolicyRuleNetworkMatcherUserDefinedFieldMatch', { name: PString(), values: PRepeated(PString()) })),
  srcIpRanges: PRepeated(PString()),
  destIpRanges: PRepeated(PString()),
  ipProtocols: PRepeated(PString()),
  srcPorts: PRepeated(PString()),
  destPorts: PRepeated(PString()),
  srcRegionCodes: PRepeated(PString()),
  srcAsns: PRepeated(PUint32()),
});

const RateLimitOptions = PMessage('SecurityPolicyRuleRateLimitOptions', {
  rateLimitThreshold: Threshold,
  conformAction: PString(),
  exceedAction: PString(),
  exceedRedirectOptions: RedirectOptions,
  enforceOnKey: PEnum('SecurityPolicyRuleRateLimitOptions.EnforceOnKey', ENFORCE_ON_KEY_TYPES),
  enforceOnKeyName: PString(),
  enforceOnKeyConfigs: PRepeated(
    PMessage('SecurityPolicyRuleRateLimitOptionsEnforceOnKeyConfig', {
      enforceOnKeyType: PEnum('SecurityPolicyRuleRateLimitOptionsEnforceOnKeyConfig.EnforceOnKeyType', ENFORCE_ON_KEY_TYPES),
      enforceOnKeyName: PString(),
    }),
  ),
  banThreshold: Threshold,
  banDurationSec: PInt32(),
});

/** RuleSchema is a SecurityPolicyRule (request body of addRule and patchRule). */
export const RuleSchema = PMessage('SecurityPolicyRule', {
  kind: PString(),
  description: PString(),
  priority: PInt32(),
  action: PString(),
  preview: PBool(),
  match: Matcher,
  networkMatch: NetworkMatcher,
  rateLimitOptions: RateLimitOptions,
  headerAction: PMessage('SecurityPolicyRuleHttpHeaderAction', {
    requestHeadersToAdds: PRepeated(PMessage('SecurityPolicyRuleHttpHeaderActionHttpHeaderOption', { headerName: PString(), headerValue: PString() })),
  }),
  redirectOptions: RedirectOptions,
  preconfiguredWafConfig: PMessage('SecurityPolicyRulePreconfiguredWafConfig', {
    exclusions: PRepeated(
      PMessage('SecurityPolicyRulePreconfiguredWafConfigExclusion', {
        targetRuleSet: PString(),
        targetRuleIds: PRepeated(PString()),
        requestHeadersToExclude: PRepeated(ExclusionFieldParams),
        requestCookiesToExclude: PRepeated(ExclusionFieldParams),
        requestQueryParamsToExclude: PRepeated(ExclusionFieldParams),
        requestUrisToExclude: PRepeated(ExclusionFieldParams),
      }),
    ),
  }),
});

/** SecurityPolicyRule is a decoded rule. */
export type SecurityPolicyRule = Decoded<typeof RuleSchema>;

/** UserDefinedFieldSchema is one packet field a network policy defines for its rules to match. */
const UserDefinedField = PMessage('SecurityPolicyUserDefinedField', {
  name: PString(),
  base: PEnum('SecurityPolicyUserDefinedField.Base', ['IPV4', 'IPV6', 'TCP', 'UDP']),
  offset: PInt32(),
  size: PInt32(),
  mask: PString(),
});

/** PolicySchema is a SecurityPolicy (request body of insert and patch). */
export const PolicySchema = PMessage('SecurityPolicy', {
  kind: PString(),
  id: PString(),
  creationTimestamp: PString(),
  selfLink: PString(),
  region: PString(),
  name: PString(),
  description: PString(),
  // Either spelling of a type (CLOUD_ARMOR or the spec's EDGEGUARD); the service reads it canonically.
  type: PEnum('SecurityPolicy.Type', POLICY_TYPE_SPELLINGS),
  fingerprint: PString(),
  labels: PMap(PString()),
  labelFingerprint: PString(),
  rules: PRepeated(RuleSchema),
  adaptiveProtectionConfig: PMessage('SecurityPolicyAdaptiveProtectionConfig', {
    layer7DdosDefenseConfig: PMessage('SecurityPolicyAdaptiveProtectionConfigLayer7DdosDefenseConfig', {
      enable: PBool(),
      ruleVisibility: PEnum('SecurityPolicyAdaptiveProtectionConfigLayer7DdosDefenseConfig.RuleVisibility', ['PREMIUM', 'STANDARD']),
    }),
  }),
  advancedOptionsConfig: PMessage('SecurityPolicyAdvancedOptionsConfig', {
    jsonParsing: PEnum('SecurityPolicyAdvancedOptionsConfig.JsonParsing', ['DISABLED', 'STANDARD', 'STANDARD_WITH_GRAPHQL']),
    jsonCustomConfig: PMessage('SecurityPolicyAdvancedOptionsConfigJsonCustomConfig', { contentTypes: PRepeated(PString()) }),
    logLevel: PEnum('SecurityPolicyAdvancedOptionsConfig.LogLevel', ['NORMAL', 'VERBOSE']),
    requestBodyInspectionSize: PString(),
    userIpRequestHeaders: PRepeated(PString()),
  }),
  ddosProtectionConfig: PMessage('SecurityPolicyDdosProtectionConfig', {
    ddosProtection: PEnum('SecurityPolicyDdosProtectionConfig.DdosProtection', ['ADVANCED', 'ADVANCED_PREVIEW', 'STANDARD']),
  }),
  recaptchaOptionsConfig: PMessage('SecurityPolicyRecaptchaOptionsConfig', { redirectSiteKey: PString() }),
  userDefinedFields: PRepeated(UserDefinedField),
});

/** SecurityPolicyBody is a decoded policy request body. */
export type SecurityPolicyBody = Decoded<typeof PolicySchema>;

/** SetLabelsSchema is the body of setLabels (RegionSetLabelsRequest and GlobalSetLabelsRequest share it). */
export const SetLabelsSchema = PMessage('RegionSetLabelsRequest', { labels: PMap(PString()), labelFingerprint: PString() });

/** SetLabelsBody is a decoded setLabels body. */
export type SetLabelsBody = Decoded<typeof SetLabelsSchema>;

/** OUTPUT_ONLY_RULE_FIELDS are rule members the server sets, dropped from request bodies. */
export const OUTPUT_ONLY_RULE_FIELDS: readonly string[] = ['kind'];
/** OUTPUT_ONLY_POLICY_FIELDS are policy members the server sets, dropped from request bodies. */
export const OUTPUT_ONLY_POLICY_FIELDS: readonly string[] = ['kind', 'id', 'creationTimestamp', 'selfLink', 'region'];
