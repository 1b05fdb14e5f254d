/**
 * kube-openapi errors as the apiserver reports them (apiextensions `apiserver/validation`
 * kubeOpenAPIResultToFieldErrors): Required, Unsupported value (enum), Too long, Too many (items
 * and properties), type errors as `Invalid value` with reason FieldValueTypeInvalid, everything
 * else `Invalid value: <value>: <kube-openapi text>`; composite texts (anyOf…) at the nil path (`<nil>`).
 */
import { type FieldError, invalid, notSupported, required, tooMany, typeInvalid } from '../../apimachinery/field-errors.ts';
import { canonicalJson } from './json-values.ts';
import { goFieldValue } from './list-types.ts';
import type { OpenApiError } from './openapi-validator.ts';

/** joinPath appends a kube-openapi error name (dotted, maybe with a leading dot) to a field path. */
function joinPath(prefix: string, name: string): string {
  const trimmed = name.startsWith('.') ? name.slice(1) : name;
  if (trimmed === '') return prefix;
  return prefix === '' ? trimmed : `${prefix}.${trimmed}`;
}

/** printable makes a value print as Go prints the decoded one: int64 and float64 (`1e+06`) numbers, `%#v` maps and slices. */
const printable = goFieldValue;

/** toFieldErrors converts kube-openapi errors found under `prefix` (`''` for an object, `…default` for a schema default). */
export function toFieldErrors(prefix: string, errors: readonly OpenApiError[]): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    if (error.kind === 'plain') {
      // The apiserver reports these at its nil field path, which prints as `<nil>`.
      out.push(invalid(prefix === '' ? '<nil>' : prefix, '', error.message));
      continue;
    }
    // An error at the document's own root has the nil path too.
    const joined = error.name === '.' ? prefix : joinPath(prefix, error.name);
    const path = joined === '' ? '<nil>' : joined;
    switch (error.code) {
      case 'Required':
        out.push(required(path));
        break;
      case 'Enum': {
        // Non-string values are JSON-marshalled, as Go does (map keys sorted).
        const values = (error.values ?? []).map((value) => (typeof value === 'string' ? value : canonicalJson(value)));
        out.push(notSupported(path, printable(error.value), values));
        break;
      }
      case 'TooLong':
        out.push({ type: 'FieldValueTooLong', field: path, detail: `may not be more than ${error.valid ?? -1} bytes` });
        break;
      case 'MaxItems':
      case 'TooManyProperties':
        out.push(tooMany(path, typeof error.value === 'number' ? error.value : -1, error.valid ?? -1));
        break;
      case 'InvalidType':
        out.push(typeInvalid(path, error.value ?? '', error.message));
        break;
      default:
        out.push(invalid(path, printable(error.value ?? ''), error.message));
    }
  }
  return out;
}
