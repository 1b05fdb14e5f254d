/** The DNS-1035 label rule (apimachinery `IsDNS1035Label`), which custom kinds and CRD names follow. */
import { goLength, maxLenError, regexError } from '../../apimachinery/name-rules.ts';

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** isDns1035Label returns the problems of `value` as a DNS-1035 label (empty when valid). */
export function isDns1035Label(value: string): string[] {
  const problems: string[] = [];
  if (goLength(value) > 63) problems.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) {
    problems.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return problems;
}
