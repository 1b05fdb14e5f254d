/**
 * The admissionregistration.k8s.io/v1 kinds' part of the generic strategy: the apiserver's Go
 * validation of ValidatingWebhookConfiguration, MutatingWebhookConfiguration,
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding on create and update (upstream
 * `pkg/apis/admissionregistration/validation`), so a broken configuration is a 422 Invalid with
 * its field errors instead of a stored object that admission cannot use.
 */
import type { KindBehaviour } from '../../builtin/behaviour.ts';
import { validateBinding } from './binding-rules.ts';
import { policyUpdateIgnoresMatchConditions, validatePolicy, validatePolicyStatus } from './policy-rules.ts';
import { CREATE_OPTIONS, updateOptions, validateWebhookConfiguration } from './webhook-rules.ts';

function webhookConfigurationBehaviour(mutating: boolean): KindBehaviour {
  return {
    validate: (configuration) => validateWebhookConfiguration(configuration, mutating, CREATE_OPTIONS),
    validateOnUpdate: (configuration, old) => validateWebhookConfiguration(configuration, mutating, updateOptions(configuration, old)),
  };
}

export const validatingWebhookConfigurationBehaviour = webhookConfigurationBehaviour(false);
export const mutatingWebhookConfigurationBehaviour = webhookConfigurationBehaviour(true);

export const validatingAdmissionPolicyBehaviour: KindBehaviour = {
  validate: (policy) => validatePolicy(policy),
  validateOnUpdate: (policy, old) => validatePolicy(policy, policyUpdateIgnoresMatchConditions(policy, old)),
  validateStatusUpdate: (policy) => validatePolicyStatus(policy),
};

export const validatingAdmissionPolicyBindingBehaviour: KindBehaviour = {
  validate: (binding) => validateBinding(binding),
};
