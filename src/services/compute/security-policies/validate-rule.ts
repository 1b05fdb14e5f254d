import { headerActionProblem } from './check-header-action.ts';
import { fieldSizeTooLarge, invalidFieldValue, requiredField } from '../shared/errors.ts';
import { DENY_STATUSES, MAX_DESCRIPTION_LENGTH, MAX_PRIORITY, MAX_SRC_IP_RANGES, MESSAGES, MIN_PRIORITY } from './constants.ts';
import type { SecurityPolicyRule } from './model.ts';
import { fieldOf, isGlobalCloudArmor, isIpOrCidr, type RuleContext } from './rule-context.ts';
import { validateExpression } from './validate-expression.ts';
import { validateNetworkMatch } from './validate-network-match.ts';
import { validateRateLimitOptions } from './validate-rate-limit.ts';
import { validateRedirectOptions } from './validate-redirect.ts';

/**
 * validateRule checks a whole rule (as it would be stored: for patchRule, the merged rule)
 * against the rules of spec area A and its Errors section, throwing the first problem as a
 * ComputeError naming the field. It is pure: it reads only the rule and the context.
 * Order: priority, description, action, preview, match, networkMatch, rate limits, redirect,
 * header action, so the message a client sees for several problems is stable.
 */
export function validateRule(rule: SecurityPolicyRule, context: RuleContext): void {
  validatePriority(rule, context);
  if (rule.description !== undefined && rule.description.length > MAX_DESCRIPTION_LENGTH) {
    throw invalidFieldValue(fieldOf(context, 'description'), rule.description, MESSAGES.descriptionTooLong);
  }
  const action = validateAction(rule, context);
  if (context.isDefaultRule && rule.preview === true) {
    throw invalidFieldValue(fieldOf(context, 'preview'), 'true', MESSAGES.previewDefaultRule);
  }
  validateMatch(rule, context);
  if (rule.networkMatch !== undefined) {
    if (context.policyType !== 'CLOUD_ARMOR_NETWORK')
      throw invalidFieldValue(fieldOf(context, 'networkMatch'), rule.networkMatch, MESSAGES.networkMatchOnlyNetwork);
    validateNetworkMatch(rule.networkMatch, context);
  }
  validateRateLimitOptions(rule, action, context);
  validateRuleRedirect(rule, action, context);
  if (rule.headerAction !== undefined) {
    if (!isGlobalCloudArmor(context)) throw invalidFieldValue(fieldOf(context, 'headerAction'), rule.headerAction, MESSAGES.headerActionGlobalOnly);
    (rule.headerAction.requestHeadersToAdds ?? []).forEach((header, i) => {
      if (header.headerName === undefined || header.headerName === '') {
        throw requiredField(fieldOf(context, `headerAction.requestHeadersToAdds[${i}].headerName`));
      }
      const problem = headerActionProblem(header.headerName, header.headerValue ?? '');
      if (problem !== undefined) {
        const shown = problem.part === 'headerName' ? header.headerName : (header.headerValue ?? '');
        throw invalidFieldValue(fieldOf(context, `headerAction.requestHeadersToAdds[${i}].${problem.part}`), shown, problem.reason);
      }
    });
  }
}

function validatePriority(rule: SecurityPolicyRule, context: RuleContext): void {
  if (rule.priority === undefined) throw requiredField(fieldOf(context, 'priority'));
  if (rule.priority < MIN_PRIORITY || rule.priority > MAX_PRIORITY) {
    throw invalidFieldValue(fieldOf(context, 'priority'), String(rule.priority), MESSAGES.priorityRange);
  }
}

/** validateAction checks the action grammar and where each action may be used; returns the action. */
function validateAction(rule: SecurityPolicyRule, context: RuleContext): string {
  const action = rule.action;
  const field = fieldOf(context, 'action');
  if (action === undefined || action === '') throw requiredField(field);
  const deny = /^deny\((\d+)\)$/.exec(action);
  const known = ['allow', 'deny', 'rate_based_ban', 'redirect', 'throttle', 'fairshare'].includes(action);
  if (!known && !(deny !== null && DENY_STATUSES.includes(deny[1] ?? ''))) throw invalidFieldValue(field, action, MESSAGES.action);
  if (action === 'redirect' && !isGlobalCloudArmor(context)) throw invalidFieldValue(field, action, MESSAGES.redirectGlobalOnly);
  if (action === 'fairshare' && context.policyType !== 'CLOUD_ARMOR_INTERNAL_SERVICE') throw invalidFieldValue(field, action, MESSAGES.fairshareInternalOnly);
  if (context.previousAction === 'rate_based_ban' && action === 'throttle') throw invalidFieldValue(field, action, MESSAGES.banToThrottle);
  return action;
}

function validateMatch(rule: SecurityPolicyRule, context: RuleContext): void {
  const match = rule.match;
  if (match === undefined) {
    // Network policies match packets with networkMatch; every other policy needs a match.
    if (context.policyType !== 'CLOUD_ARMOR_NETWORK') throw invalidFieldValue(fieldOf(context, 'match'), '', MESSAGES.matchRequired);
    return;
  }
  const hasVersioned = match.versionedExpr !== undefined;
  if (hasVersioned && match.expr !== undefined) throw invalidFieldValue(fieldOf(context, 'match'), match, MESSAGES.exprAndVersionedExpr);
  if (hasVersioned && match.config === undefined) throw invalidFieldValue(fieldOf(context, 'match.config'), '', MESSAGES.versionedExprWithoutConfig);
  if (!hasVersioned && match.config !== undefined) throw invalidFieldValue(fieldOf(context, 'match.config'), match.config, MESSAGES.configWithoutVersionedExpr);
  if (!hasVersioned && match.expr === undefined) throw invalidFieldValue(fieldOf(context, 'match'), match, MESSAGES.matchRequired);

  const ranges = match.config?.srcIpRanges ?? [];
  const rangesField = fieldOf(context, 'match.config.srcIpRanges');
  if (ranges.length > MAX_SRC_IP_RANGES) throw fieldSizeTooLarge(rangesField, MAX_SRC_IP_RANGES, 'elements', ranges.length);
  if (hasVersioned && ranges.length === 0) throw requiredField(rangesField);
  ranges.forEach((range, i) => {
    if (range !== '*' && !isIpOrCidr(range)) throw invalidFieldValue(`${rangesField}[${i}]`, range, MESSAGES.ipRange);
  });

  if (context.isDefaultRule && (match.expr !== undefined || ranges.length !== 1 || ranges[0] !== '*')) {
    throw invalidFieldValue(fieldOf(context, 'match'), match, MESSAGES.defaultRuleMatchAll);
  }
  if (match.expr !== undefined) {
    const text = match.expr.expression ?? '';
    if (text.trim() === '') throw requiredField(fieldOf(context, 'match.expr.expression'));
    validateExpression(match.expr, text, fieldOf(context, 'match.expr'), context, context.expressions);
  }
}

function validateRuleRedirect(rule: SecurityPolicyRule, action: string, context: RuleContext): void {
  const options = rule.redirectOptions;
  const field = fieldOf(context, 'redirectOptions');
  if (options !== undefined && !isGlobalCloudArmor(context)) throw invalidFieldValue(field, options, MESSAGES.redirectOptionsGlobalOnly);
  if (action === 'redirect' && options === undefined) throw invalidFieldValue(field, '', MESSAGES.redirectOptionsRequired);
  if (options === undefined) return;
  if (action !== 'redirect') throw invalidFieldValue(field, options, MESSAGES.redirectOptionsForbidden);
  validateRedirectOptions(options, field);
}
