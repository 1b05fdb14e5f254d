/**
 * Security policies of the compute service (spec area A): the rule and policy model, strict
 * decoding, rule validation with the rules-language checker, and patchRule's update-mask merge.
 */
export * from './constants.ts';
export { RuleSchema, PolicySchema, SetLabelsSchema, type SecurityPolicyRule, type SecurityPolicyBody, type SetLabelsBody } from './model.ts';
export { prepareNewRule, preparePatchedRule, decodeRule, defaultRule, type StoredRule, type RuleScope } from './prepare-rule.ts';
export { validateRule } from './validate-rule.ts';
export type { RuleContext } from './rule-context.ts';
export { applyRulePatch, parseUpdateMask } from './apply-rule-patch.ts';
