/**
 * The name and label syntax rules of the Kubernetes API (apimachinery `util/validation` and
 * `api/validation/path`), each returning the real server's problem texts (empty when valid).
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** regexError words a pattern failure with examples, as apimachinery's RegexError does. */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  let text = `${message} (e.g. `;
  examples.forEach((example, index) => {
    if (index > 0) text += ' or ';
    text += `'${example}', `;
  });
  return `${text}regex used for validation is '${format}')`;
}

/** goLength is a string's length as Go's `len()` counts it: UTF-8 bytes (every limit here is in bytes). */
export function goLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** maxLenError is `must be no more than N characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** isDns1123Label checks an RFC 1123 label (namespace names). */
export function isDns1123Label(value: string): string[] {
  const errors: string[] = [];
  if (goLength(value) > 63) errors.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    if (DNS1123_SUBDOMAIN.test(value)) errors.push('must not contain dots');
    else
      errors.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errors;
}

/** isDns1123Subdomain checks an RFC 1123 subdomain (event names and namespaces). */
export function isDns1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (goLength(value) > 253) errors.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errors;
}

/** isQualifiedName checks a label key or other qualified name: an optional DNS-subdomain prefix, `/`, a name of at most 63. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix === '') errors.push('prefix part must be non-empty');
    else for (const problem of isDns1123Subdomain(prefix)) errors.push(`prefix part ${problem}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name === '') errors.push('name part must be non-empty');
  else if (goLength(name) > 63) errors.push(`name part ${maxLenError(63)}`);
  if (name !== '' && !QUALIFIED_NAME.test(name)) errors.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

/** isLabelValue checks a label value: empty, or at most 63 of the qualified-name charset. */
export function isLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (goLength(value) > 63) errors.push(maxLenError(63));
  if (!LABEL_VALUE.test(value)) {
    errors.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errors;
}

/** isPathSegmentName checks the minimal name rule (ClusterRole): usable as one URL path segment. */
export function isPathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errors: string[] = [];
  for (const bad of ['/', '%']) if (value.includes(bad)) errors.push(`may not contain '${bad}'`);
  return errors;
}

/** isPathSegmentPrefix checks a generateName under the minimal name rule (a prefix may be `.`-free). */
export function isPathSegmentPrefix(value: string): string[] {
  const errors: string[] = [];
  for (const bad of ['/', '%']) if (value.includes(bad)) errors.push(`may not contain '${bad}'`);
  return errors;
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** isDns1035Label returns the problems of `value` as a DNS-1035 label (apimachinery `IsDNS1035Label`; CRD names, versions and custom kinds), empty when valid. */
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
