/**
 * Security policies of the compute service (spec area A): the rule and policy model, rule
 * validation with the rules-language checker, patchRule's update-mask merge, the service that
 * turns every change into an Operation, and the routes.
 *
 * What the family needs at start-up is exported here: the service and the routes. The schemas,
 * validation and the rules language (`model.ts`, `validate-rule.ts`, `policy-mutations.ts`) load
 * with the first policy change (start-up time and idle memory); import them from their modules.
 */
export * from './constants.ts';
export type { SecurityPolicyRule, SecurityPolicyBody, SetLabelsBody } from './model.ts';
export type { StoredRule, RuleScope } from './prepare-rule.ts';
export type { RuleContext } from './rule-context.ts';
export { SECURITY_POLICIES_KIND, renderPolicy, policyPath, type StoredPolicy } from './policy.ts';
export { SecurityPolicyService, type PolicyChange, type PolicyRef } from './policy-service.ts';
export { registerSecurityPolicyRoutes } from './routes.ts';
