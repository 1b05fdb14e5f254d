/**
 * Security policies of the compute service (spec area A): the rule and policy model, rule
 * validation with the rules-language checker, patchRule's update-mask merge, the service that
 * turns every change into an Operation, and the routes.
 */
export * from './constants.ts';
export { RuleSchema, PolicySchema, SetLabelsSchema, type SecurityPolicyRule, type SecurityPolicyBody, type SetLabelsBody } from './model.ts';
export { prepareNewRule, preparePatchedRule, decodeRule, defaultRule, type StoredRule, type RuleScope } from './prepare-rule.ts';
export { validateRule } from './validate-rule.ts';
export type { RuleContext } from './rule-context.ts';
export { applyRulePatch, applyPatch, parseUpdateMask } from './apply-rule-patch.ts';
export { SECURITY_POLICIES_KIND, renderPolicy, policyPath, type StoredPolicy } from './policy.ts';
export { SecurityPolicyService, type PolicyChange, type PolicyRef } from './policy-service.ts';
export { registerSecurityPolicyRoutes } from './routes.ts';
