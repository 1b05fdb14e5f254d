import { fieldSizeTooLarge, invalidFieldValue } from '../shared/errors.ts';
import {
  BAN_MAX_COUNT,
  EXCEED_DENY_STATUSES,
  INTERVAL_SECONDS,
  MAX_ENFORCE_ON_KEY_CONFIGS,
  MESSAGES,
  NAMED_KEY_TYPES,
  RATE_LIMITED_ACTIONS,
  THROTTLE_MAX_COUNT,
} from './constants.ts';
import type { SecurityPolicyRule } from './model.ts';
import { fieldOf, isGlobalCloudArmor, type RuleContext } from './rule-context.ts';
import { validateRedirectOptions } from './validate-redirect.ts';

/** RateLimitOptions is a rule's rate limiting configuration. */
export type RateLimitOptions = NonNullable<SecurityPolicyRule['rateLimitOptions']>;

/**
 * validateRateLimitOptions checks that rate limit options are present exactly for the rate
 * limited actions, then their parts: threshold, conform and exceed actions, exceed redirect,
 * keys, and the ban fields that only rate_based_ban may carry.
 */
export function validateRateLimitOptions(rule: SecurityPolicyRule, action: string, context: RuleContext): void {
  const options = rule.rateLimitOptions;
  const limited = RATE_LIMITED_ACTIONS.includes(action);
  if (limited !== (options !== undefined)) {
    throw invalidFieldValue(fieldOf(context, 'rateLimitOptions'), '', MESSAGES.rateLimitOptions);
  }
  if (options === undefined) return;
  const at = (path: string): string => fieldOf(context, `rateLimitOptions.${path}`);

  const threshold = options.rateLimitThreshold;
  if (threshold === undefined) throw invalidFieldValue(at('rateLimitThreshold'), '', MESSAGES.thresholdRequired);
  const maxCount = action === 'rate_based_ban' ? BAN_MAX_COUNT : THROTTLE_MAX_COUNT;
  validateThreshold(threshold, 'rateLimitThreshold', maxCount, at);

  if (options.conformAction !== undefined && options.conformAction !== 'allow') {
    throw invalidFieldValue(at('conformAction'), options.conformAction, MESSAGES.conformAction);
  }
  validateExceed(options, at, context);
  validateKeys(options, action, at);

  if (action !== 'rate_based_ban') {
    if (options.banThreshold !== undefined) throw invalidFieldValue(at('banThreshold'), options.banThreshold, MESSAGES.banOnlyForBan);
    if (options.banDurationSec !== undefined) throw invalidFieldValue(at('banDurationSec'), String(options.banDurationSec), MESSAGES.banOnlyForBan);
  } else if (options.banThreshold !== undefined) {
    validateThreshold(options.banThreshold, 'banThreshold', BAN_MAX_COUNT, at);
  }
}

function validateThreshold(threshold: NonNullable<RateLimitOptions['rateLimitThreshold']>, name: string, maxCount: number, at: (path: string) => string): void {
  const count = threshold.count ?? 0;
  if (count < 1 || count > maxCount) throw invalidFieldValue(at(`${name}.count`), String(count), MESSAGES.thresholdCount(maxCount));
  const interval = threshold.intervalSec ?? 0;
  if (!INTERVAL_SECONDS.includes(interval)) throw invalidFieldValue(at(`${name}.intervalSec`), String(interval), MESSAGES.intervalSec);
}

function validateExceed(options: RateLimitOptions, at: (path: string) => string, context: RuleContext): void {
  const exceed = options.exceedAction;
  if (exceed !== undefined) {
    const deny = /^deny\((\d+)\)$/.exec(exceed);
    const valid = exceed === 'redirect' || (deny !== null && EXCEED_DENY_STATUSES.includes(deny[1] ?? ''));
    if (!valid) throw invalidFieldValue(at('exceedAction'), exceed, MESSAGES.exceedAction);
    if (exceed === 'redirect' && !isGlobalCloudArmor(context)) throw invalidFieldValue(at('exceedAction'), exceed, MESSAGES.exceedRedirectGlobalOnly);
  }
  const redirect = options.exceedRedirectOptions;
  if (exceed === 'redirect' && redirect === undefined) {
    throw invalidFieldValue(at('exceedRedirectOptions'), '', MESSAGES.exceedRedirectOptionsRequired);
  }
  if (redirect !== undefined) {
    if (exceed !== 'redirect') throw invalidFieldValue(at('exceedRedirectOptions'), redirect, MESSAGES.exceedRedirectOptionsForbidden);
    validateRedirectOptions(redirect, at('exceedRedirectOptions'));
  }
}

function validateKeys(options: RateLimitOptions, action: string, at: (path: string) => string): void {
  const configs = options.enforceOnKeyConfigs;
  if (configs !== undefined && configs.length > 0) {
    if (options.enforceOnKey !== undefined) throw invalidFieldValue(at('enforceOnKey'), options.enforceOnKey, MESSAGES.enforceOnKeyWithConfigs);
    if (configs.length > MAX_ENFORCE_ON_KEY_CONFIGS) {
      throw fieldSizeTooLarge(at('enforceOnKeyConfigs'), MAX_ENFORCE_ON_KEY_CONFIGS, 'elements', configs.length);
    }
    configs.forEach((config, i) => {
      const type = config.enforceOnKeyType ?? 'ALL';
      validateKeyName(type, config.enforceOnKeyName, at(`enforceOnKeyConfigs[${i}].enforceOnKeyName`));
      if (action === 'fairshare' && type !== 'ALL') throw invalidFieldValue(at(`enforceOnKeyConfigs[${i}].enforceOnKeyType`), type, MESSAGES.fairshareKeyAll);
    });
    return;
  }
  const key = options.enforceOnKey ?? 'ALL';
  validateKeyName(key, options.enforceOnKeyName, at('enforceOnKeyName'));
  if (action === 'fairshare' && key !== 'ALL') throw invalidFieldValue(at('enforceOnKey'), key, MESSAGES.fairshareKeyAll);
}

function validateKeyName(type: string, name: string | undefined, field: string): void {
  const named = NAMED_KEY_TYPES.includes(type);
  if (named && (name === undefined || name === '')) throw invalidFieldValue(field, '', MESSAGES.enforceOnKeyNameRequired);
  if (!named && name !== undefined && name !== '') throw invalidFieldValue(field, name, MESSAGES.enforceOnKeyNameForbidden);
}
