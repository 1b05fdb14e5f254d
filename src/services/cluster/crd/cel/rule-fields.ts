/**
 * The checks the apiserver makes on each `x-kubernetes-validations` entry's own fields before
 * compiling it: rule present, message non-empty without line breaks (and required when the rule
 * spans lines), messageExpression non-empty, reason supported, fieldPath non-empty, single-line
 * and valid for the schema. Texts from apiextensions `validation.go`.
 */
import { type FieldError, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import type { JSONSchemaProps, ValidationRule } from '../types.ts';
import { validFieldPath } from './field-path.ts';

/** SUPPORTED_REASONS are the accepted `reason` values, sorted as the apiserver lists them. */
export const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

const NEWLINES = /[\n\r]+/;

/** validateRuleFields checks one rule's fields; `path` is the rule's path (`…x-kubernetes-validations[0]`). */
export function validateRuleFields(rule: ValidationRule, path: string, schema: JSONSchemaProps): FieldError[] {
  const errors: FieldError[] = [];
  const text = typeof rule.rule === 'string' ? rule.rule : '';
  const message = typeof rule.message === 'string' ? rule.message : '';
  const trimmedRule = text.trim();
  const trimmedMsg = message.trim();
  if (trimmedRule.length === 0) errors.push(required(`${path}.rule`, 'rule is not specified'));
  else if (message.length > 0 && trimmedMsg.length === 0) errors.push(invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (NEWLINES.test(trimmedMsg)) errors.push(invalid(`${path}.message`, message, 'message must not contain line breaks'));
  else if (NEWLINES.test(trimmedRule) && trimmedMsg.length === 0)
    errors.push(required(`${path}.message`, 'message must be specified if rule contains line breaks'));
  const messageExpression = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
  if (messageExpression.length > 0 && messageExpression.trim().length === 0) {
    errors.push(required(`${path}.messageExpression`, 'messageExpression must be non-empty if specified'));
  }
  if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason)) errors.push(notSupported(`${path}.reason`, rule.reason, SUPPORTED_REASONS));
  const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
  if (fieldPath.length > 0 && fieldPath.trim().length === 0) errors.push(invalid(`${path}.fieldPath`, fieldPath, 'fieldPath must be non-empty if specified'));
  if (NEWLINES.test(fieldPath)) errors.push(invalid(`${path}.fieldPath`, fieldPath, 'fieldPath must not contain line breaks'));
  if (fieldPath.length > 0 && 'error' in validFieldPath(fieldPath, schema))
    errors.push(invalid(`${path}.fieldPath`, fieldPath, 'fieldPath must be a valid path'));
  return errors;
}
