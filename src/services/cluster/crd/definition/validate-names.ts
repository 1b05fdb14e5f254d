/** Checks of a CRD's names (`spec.names`, `status.acceptedNames`): ValidateCustomResourceDefinitionNames. */
import { type FieldError, invalid } from '../../apimachinery/field-errors.ts';
import type { CustomResourceDefinitionNames } from '../types.ts';
import { isDns1035Label } from '../../apimachinery/name-rules.ts';

/** validateNames checks each name that is set: plural, singular, short names and categories are DNS-1035 labels, kinds are too once lower-cased. */
export function validateNames(names: Partial<CustomResourceDefinitionNames> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const plural = stringOr(names?.plural);
  const singular = stringOr(names?.singular);
  const kind = stringOr(names?.kind);
  const listKind = stringOr(names?.listKind);
  const label = (field: string, value: string, prefix = ''): void => {
    const problems = isDns1035Label(prefix === '' ? value : value.toLowerCase());
    if (value !== '' && problems.length > 0) errors.push(invalid(field, value, `${prefix}${problems.join(',')}`));
  };
  label(`${path}.plural`, plural);
  label(`${path}.singular`, singular);
  label(`${path}.kind`, kind, 'may have mixed case, but should otherwise match: ');
  label(`${path}.listKind`, listKind, 'may have mixed case, but should otherwise match: ');
  for (const [index, shortName] of listOf(names?.shortNames).entries()) {
    const problems = isDns1035Label(shortName);
    if (problems.length > 0) errors.push(invalid(`${path}.shortNames[${index}]`, shortName, problems.join(',')));
  }
  if (kind !== '' && kind === listKind) errors.push(invalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  for (const [index, category] of listOf(names?.categories).entries()) {
    const problems = isDns1035Label(category);
    if (problems.length > 0) errors.push(invalid(`${path}.categories[${index}]`, category, problems.join(',')));
  }
  return errors;
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function listOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : String(item))) : [];
}
