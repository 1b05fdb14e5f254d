import { invalidFieldValue } from '../shared/errors.ts';
import { MESSAGES } from './constants.ts';
import type { SecurityPolicyRule } from './model.ts';

/** RedirectOptions is a redirect's kind and target, used by both redirectOptions and exceedRedirectOptions. */
export type RedirectOptions = NonNullable<SecurityPolicyRule['redirectOptions']>;

/** validateRedirectOptions checks a redirect: a type, and a target exactly when the type is EXTERNAL_302. */
export function validateRedirectOptions(options: RedirectOptions, field: string): void {
  if (options.type === undefined) throw invalidFieldValue(`${field}.type`, '', MESSAGES.redirectTypeRequired);
  const target = options.target ?? '';
  if (options.type === 'EXTERNAL_302' && target === '') throw invalidFieldValue(`${field}.target`, '', MESSAGES.redirectTargetRequired);
  if (options.type === 'GOOGLE_RECAPTCHA' && target !== '') throw invalidFieldValue(`${field}.target`, target, MESSAGES.redirectTargetForbidden);
}
