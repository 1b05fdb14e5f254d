/**
 * The Kubernetes `format` library: named string formats (`format.dns1123Label()`,
 * `format.named('uuid')`, …) whose `validate(str)` returns `optional.none()` for a valid string or
 * an optional list of the apimachinery validation messages.
 */
import { celList } from '@bufbuild/cel';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName, maxLenError, regexError } from '../../apimachinery/name-rules.ts';
import { listOf, opaque, STRING } from './cel-types.ts';
import { optionalOf } from './library-optional.ts';
import { parseUrl } from './library-url.ts';
import { type Overload, traversal } from './overloads.ts';
import { NONE, Opaque, Optional, RuleEvalError, type Value } from './runtime-values.ts';

const FORMAT_TYPE = opaque('kubernetes.NamedFormat');

/** NamedFormat is a `format.<name>()` value. */
export class NamedFormat extends Opaque {
  readonly typeName = 'kubernetes.NamedFormat';
  constructor(
    readonly name: string,
    readonly check: (value: string) => string[],
  ) {
    super();
  }
  /** equals compares names. */
  equals(other: Opaque): boolean {
    return other instanceof NamedFormat && other.name === this.name;
  }
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';

function isDns1035Label(value: string): string[] {
  const errors: string[] = [];
  if (Buffer.byteLength(value) > 63) errors.push(maxLenError(63));
  if (!new RegExp(`^${DNS1035_LABEL_FMT}$`).test(value)) {
    errors.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errors;
}

/** maskTrailingDash lets a generateName prefix end with '-' (apimachinery's maskTrailingDash). */
function maskTrailingDash(value: string): string {
  return value.length > 1 && value.endsWith('-') ? `${value.slice(0, -1)}a` : value;
}

function single(ok: boolean, message: string): string[] {
  return ok ? [] : [message];
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const DATETIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

function uri(value: string): string[] {
  try {
    parseUrl(value);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message.replace(/^URL parse error during conversion from string: /, '') : String(error)];
  }
}

/** FORMATS are the named formats by their CEL name. */
export const FORMATS: ReadonlyMap<string, NamedFormat> = new Map(
  (
    [
      ['dns1123Label', isDns1123Label],
      ['dns1123Subdomain', isDns1123Subdomain],
      ['dns1035Label', isDns1035Label],
      ['qualifiedName', isQualifiedName],
      ['dns1123LabelPrefix', (v: string) => isDns1123Label(maskTrailingDash(v))],
      ['dns1123SubdomainPrefix', (v: string) => isDns1123Subdomain(maskTrailingDash(v))],
      ['dns1035LabelPrefix', (v: string) => isDns1035Label(maskTrailingDash(v))],
      ['labelValue', isLabelValue],
      ['uri', uri],
      ['uuid', (v: string) => single(UUID.test(v), 'does not match the UUID format')],
      ['byte', (v: string) => single(BASE64.test(v), 'invalid base64')],
      ['date', (v: string) => single(DATE.test(v), 'invalid date')],
      ['datetime', (v: string) => single(DATETIME.test(v), 'invalid datetime')],
    ] as const
  ).map(([name, check]) => [name, new NamedFormat(name, check)]),
);

function format(v: Value): NamedFormat {
  if (!(v instanceof NamedFormat)) throw new RuleEvalError('no such overload');
  return v;
}

/** FORMAT_OVERLOADS are the format library. */
export const FORMAT_OVERLOADS: readonly Overload[] = [
  ...[...FORMATS].map(([name, value]): Overload => ({ name: `format.${name}`, member: false, params: [], result: FORMAT_TYPE, impl: () => value })),
  {
    name: 'format.named',
    member: false,
    params: [STRING],
    result: optionalOf(FORMAT_TYPE),
    impl: (args) => {
      const found = FORMATS.get(String(args[0]));
      return found === undefined ? NONE : new Optional(found);
    },
  },
  {
    name: 'validate',
    member: true,
    params: [FORMAT_TYPE, STRING],
    result: optionalOf(listOf(STRING)),
    ...traversal(1),
    impl: (args) => {
      const problems = format(args[0]!).check(String(args[1]));
      return problems.length === 0 ? NONE : new Optional(celList(problems));
    },
  },
];
