import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { ENFORCE_ON_KEY_TYPES, EXCLUSION_OPS, POLICY_TYPES, REDIRECT_TYPES, VERSIONED_EXPRS } from './constants.ts';

/**
 * The SecurityPolicy and SecurityPolicyRule resources as TypeBox schemas. The schemas are the one
 * description of the wire shape: `decode-json.ts` walks them to decode request bodies strictly
 * (JSON types, enum values, integer widths, unknown names), and the static types come from them.
 * Integer schemas carry a `format` (int32, uint32, int64) because proto JSON bounds them by width;
 * `outputOnly` members are accepted and dropped, as the real service ignores them.
 */

const int32 = (): ReturnType<typeof Type.Integer> => Type.Integer({ format: 'int32' });
const enumOf = <const V extends readonly string[]>(values: V): TUnion<TLiteral<V[number]>[]> =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<TLiteral<V[number]>[]>;
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const outputString = () => Type.Optional(Type.String({ outputOnly: true }));

/** ExprSchema is a user-defined CEL expression. */
export const ExprSchema = Type.Object({
  expression: opt(Type.String()),
  title: opt(Type.String()),
  description: opt(Type.String()),
  location: opt(Type.String()),
});

/** ThresholdSchema is a request count over an interval. */
export const ThresholdSchema = Type.Object({ count: opt(int32()), intervalSec: opt(int32()) });

/** RedirectOptionsSchema says where a redirect action (or exceed action) sends the client. */
export const RedirectOptionsSchema = Type.Object({ type: opt(enumOf(REDIRECT_TYPES)), target: opt(Type.String()) });

const exclusionField = () => opt(Type.Array(Type.Object({ val: opt(Type.String()), op: opt(enumOf(EXCLUSION_OPS)) })));

/** RuleSchema is a SecurityPolicyRule (request body of addRule and patchRule). */
export const RuleSchema = Type.Object({
  kind: outputString(),
  description: opt(Type.String()),
  priority: opt(int32()),
  action: opt(Type.String()),
  preview: opt(Type.Boolean()),
  match: opt(
    Type.Object({
      expr: opt(ExprSchema),
      exprOptions: opt(
        Type.Object({
          recaptchaOptions: opt(
            Type.Object({ actionTokenSiteKeys: opt(Type.Array(Type.String())), sessionTokenSiteKeys: opt(Type.Array(Type.String())) }),
          ),
        }),
      ),
      versionedExpr: opt(enumOf(VERSIONED_EXPRS)),
      config: opt(Type.Object({ srcIpRanges: opt(Type.Array(Type.String())) })),
    }),
  ),
  networkMatch: opt(
    Type.Object({
      userDefinedFields: opt(Type.Array(Type.Object({ name: opt(Type.String()), values: opt(Type.Array(Type.String())) }))),
      srcIpRanges: opt(Type.Array(Type.String())),
      destIpRanges: opt(Type.Array(Type.String())),
      ipProtocols: opt(Type.Array(Type.String())),
      srcPorts: opt(Type.Array(Type.String())),
      destPorts: opt(Type.Array(Type.String())),
      srcRegionCodes: opt(Type.Array(Type.String())),
      srcAsns: opt(Type.Array(Type.Integer({ format: 'uint32' }))),
    }),
  ),
  rateLimitOptions: opt(
    Type.Object({
      rateLimitThreshold: opt(ThresholdSchema),
      conformAction: opt(Type.String()),
      exceedAction: opt(Type.String()),
      exceedRedirectOptions: opt(RedirectOptionsSchema),
      enforceOnKey: opt(enumOf(ENFORCE_ON_KEY_TYPES)),
      enforceOnKeyName: opt(Type.String()),
      enforceOnKeyConfigs: opt(Type.Array(Type.Object({ enforceOnKeyType: opt(enumOf(ENFORCE_ON_KEY_TYPES)), enforceOnKeyName: opt(Type.String()) }))),
      banThreshold: opt(ThresholdSchema),
      banDurationSec: opt(int32()),
    }),
  ),
  headerAction: opt(
    Type.Object({ requestHeadersToAdds: opt(Type.Array(Type.Object({ headerName: opt(Type.String()), headerValue: opt(Type.String()) }))) }),
  ),
  redirectOptions: opt(RedirectOptionsSchema),
  preconfiguredWafConfig: opt(
    Type.Object({
      exclusions: opt(
        Type.Array(
          Type.Object({
            targetRuleSet: opt(Type.String()),
            targetRuleIds: opt(Type.Array(Type.String())),
            requestHeadersToExclude: exclusionField(),
            requestCookiesToExclude: exclusionField(),
            requestQueryParamsToExclude: exclusionField(),
            requestUrisToExclude: exclusionField(),
          }),
        ),
      ),
    }),
  ),
});

/** SecurityPolicyRule is a decoded rule. */
export type SecurityPolicyRule = Static<typeof RuleSchema>;

/** PolicySchema is a SecurityPolicy (request body of insert and patch). */
export const PolicySchema = Type.Object({
  kind: outputString(),
  id: outputString(),
  creationTimestamp: outputString(),
  selfLink: outputString(),
  region: outputString(),
  name: opt(Type.String()),
  description: opt(Type.String()),
  type: opt(enumOf(POLICY_TYPES)),
  fingerprint: opt(Type.String()),
  labels: opt(Type.Record(Type.String(), Type.String())),
  labelFingerprint: opt(Type.String()),
  rules: opt(Type.Array(RuleSchema)),
  adaptiveProtectionConfig: opt(
    Type.Object({
      layer7DdosDefenseConfig: opt(
        Type.Object({ enable: opt(Type.Boolean()), ruleVisibility: opt(enumOf(['STANDARD', 'PREMIUM'] as const)) }),
      ),
    }),
  ),
  advancedOptionsConfig: opt(
    Type.Object({
      jsonParsing: opt(enumOf(['DISABLED', 'STANDARD', 'STANDARD_WITH_GRAPHQL'] as const)),
      jsonCustomConfig: opt(Type.Object({ contentTypes: opt(Type.Array(Type.String())) })),
      logLevel: opt(enumOf(['NORMAL', 'VERBOSE'] as const)),
      userIpRequestHeaders: opt(Type.Array(Type.String())),
    }),
  ),
  ddosProtectionConfig: opt(Type.Object({ ddosProtection: opt(enumOf(['ADVANCED', 'ADVANCED_PREVIEW', 'STANDARD'] as const)) })),
  recaptchaOptionsConfig: opt(Type.Object({ redirectSiteKey: opt(Type.String()) })),
  userDefinedFields: opt(
    Type.Array(
      Type.Object({
        name: opt(Type.String()),
        base: opt(enumOf(['IPV4', 'IPV6', 'TCP', 'UDP'] as const)),
        offset: opt(int32()),
        size: opt(int32()),
        mask: opt(Type.String()),
      }),
    ),
  ),
});

/** SecurityPolicyBody is a decoded policy request body. */
export type SecurityPolicyBody = Static<typeof PolicySchema>;

/** SetLabelsSchema is the body of setLabels (RegionSetLabelsRequest / GlobalSetLabelsRequest). */
export const SetLabelsSchema = Type.Object({
  labels: opt(Type.Record(Type.String(), Type.String())),
  labelFingerprint: opt(Type.String()),
});

/** SetLabelsBody is a decoded setLabels body. */
export type SetLabelsBody = Static<typeof SetLabelsSchema>;
