import { invalidFieldValue } from './errors.ts';

/**
 * The label rules every compute resource shares (templates' properties.labels, security policies'
 * labels and setLabels): at most 64 labels; a key of 1 to 63 characters starting with a lowercase
 * letter, then lowercase letters, digits, `_` and `-`; a value of 0 to 63 of those; international
 * (non-cased) letters allowed. Messages are the real service's.
 */

const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
/** MAX_LABELS is how many labels one resource may carry. */
export const MAX_LABELS = 64;

/** checkLabels throws the real 400 for the first label that breaks the rules; `field` is the labels' path (`resource.labels`). */
export function checkLabels(labels: Readonly<Record<string, unknown>>, field: string): void {
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) throw invalidFieldValue(field, '', `At most ${MAX_LABELS} labels are allowed.`);
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key)) {
      throw invalidFieldValue(
        `${field}.key`,
        key,
        `Label key '${key}' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed.`,
      );
    }
    if (typeof value !== 'string' || !LABEL_VALUE.test(value)) {
      throw invalidFieldValue(
        `${field}.value`,
        value,
        `Label value '${String(value)}' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed.`,
      );
    }
  }
}
