/**
 * The string formats a custom resource's schema can check: the apiserver keeps only the formats
 * of its allow-list (everything else, `int32` and `int64` included, is stripped and never
 * checked), and checks those with kube-openapi's default registry (strfmt).
 */
import ipaddr from 'ipaddr.js';
import { RE2JS } from 're2js';

/** normalizeFormat is go-openapi's name normalization: `date-time` and `datetime` are one format. */
export function normalizeFormat(format: string): string {
  return format.replaceAll('-', '');
}

const re = (pattern: string, flags = 0): ((text: string) => boolean) => {
  const compiled = RE2JS.compile(pattern, flags);
  return (text) => compiled.matches(text);
};

const HOSTNAME = re(
  '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$',
);
const UUID = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$');
const UUID3 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$');
const UUID4 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$');
const UUID5 = re('(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$');
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const BYTE_255 = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const RGB_COLOR = new RegExp(`^rgb\\(${BYTE_255},${BYTE_255},${BYTE_255}\\)$`);
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const GO_DURATION = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const SCALA_DURATION_UNITS: readonly (readonly string[])[] = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** isDate is Go's `time.Parse("2006-01-02", s)` succeeding. */
export function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** isDateTime is strfmt's IsDateTime: a date, a `t`, and a time of day with a zone. */
export function isDateTime(text: string): boolean {
  if (text.length < 4) return false;
  const parts = text.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const match = TIME_OF_DAY.exec(parts[1]!);
  if (match === null) return false;
  return match[1]! <= '23' && match[2]! <= '59' && match[3]! <= '59';
}

/** isDuration is strfmt's ParseDuration: Go's time.ParseDuration, else any `<n> <unit>` it finds (Scala style). */
export function isDuration(text: string): boolean {
  if (text === '0' || text === '+0' || text === '-0' || GO_DURATION.test(text)) return true;
  for (const match of text.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = match[2]!.trim().toLowerCase();
    for (const variants of SCALA_DURATION_UNITS) {
      const last = variants.length - 1;
      if (variants.some((variant, index) => (index === last && unit.startsWith(variant)) || variant === unit)) return true;
    }
  }
  return false;
}

/** isIPv4 is Go's sloppy ParseIP (leading zeros tolerated) on a text containing a dot. */
function isIPv4(text: string): boolean {
  if (!text.includes('.')) return false;
  if (/^(\d{1,3})(\.\d{1,3}){3}$/.test(text)) return text.split('.').every((part) => Number(part) <= 255);
  return isIPv6(text);
}

/** isIPv6 is Go's ParseIP succeeding on a text containing a colon (no zone). */
function isIPv6(text: string): boolean {
  return text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text);
}

/** isCIDR is Go's sloppy ParseCIDR. */
function isCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (/^(\d{1,3})(\.\d{1,3}){3}$/.test(address)) return address.split('.').every((part) => Number(part) <= 255) && bits <= 32;
  return isIPv6(address) && bits <= 128;
}

/** isMAC is Go's net.ParseMAC: 6, 8 or 20 octets as `xx:xx…`, `xx-xx…` or `xxxx.xxxx…`. */
function isMAC(text: string): boolean {
  for (const separator of [':', '-']) {
    const groups = text.split(separator);
    if ([6, 8, 20].includes(groups.length) && groups.every((group) => /^[0-9a-fA-F]{2}$/.test(group))) return true;
  }
  const dotted = text.split('.');
  return [3, 4, 10].includes(dotted.length) && dotted.every((group) => /^[0-9a-fA-F]{4}$/.test(group));
}

/** isRequestURI is Go's url.ParseRequestURI succeeding: an absolute URI or an absolute path. */
function isRequestURI(text: string): boolean {
  if (text === '' || [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)) return false;
  if (text.startsWith('/')) return true;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(text);
  if (scheme === null) return false;
  const rest = text.slice(scheme[0].length);
  if (!rest.startsWith('//')) return true;
  const authority = rest.slice(2).split(/[/?#]/, 1)[0]!;
  const host = authority.slice(authority.lastIndexOf('@') + 1);
  return !/[\s<>"{}|\\^`]/.test(host);
}

/** isEmail is Go's mail.ParseAddress yielding an address: `a@b` or `Name <a@b>`. */
function isEmail(text: string): boolean {
  const atom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
  const dotAtom = `${atom}(?:\\.${atom})*`;
  const address = `${dotAtom}@${dotAtom}`;
  return new RegExp(`^(?:${address}|[^<>]*<${address}>)$`).test(text.trim());
}

function isbn10(text: string): boolean {
  const clean = text.replace(/[\s-]/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(clean)) return false;
  let sum = 0;
  for (let index = 0; index < 9; index++) sum += (index + 1) * Number(clean[index]);
  sum += clean[9] === 'X' ? 100 : 10 * Number(clean[9]);
  return sum % 11 === 0;
}

function isbn13(text: string): boolean {
  const clean = text.replace(/[\s-]/g, '');
  if (!/^[0-9]{13}$/.test(clean)) return false;
  let sum = 0;
  for (let index = 0; index < 12; index++) sum += Number(clean[index]) * (index % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(clean[12]);
}

function isCreditCard(text: string): boolean {
  const clean = text.replace(/[^0-9]/g, '');
  if (!CREDIT_CARD.test(clean)) return false;
  let sum = 0;
  let double = false;
  for (let index = clean.length - 1; index >= 0; index--) {
    let digit = Number(clean[index]);
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

function isHostname(text: string): boolean {
  return HOSTNAME(text) && Buffer.byteLength(text) <= 255 && text.split('.').every((label) => Buffer.byteLength(label) <= 63);
}

/** FORMAT_CHECKS are the apiserver's supported formats (normalized names) and their checks. */
const FORMAT_CHECKS: ReadonlyMap<string, (text: string) => boolean> = new Map([
  ['bsonobjectid', (text: string) => /^[0-9a-fA-F]{24}$/.test(text)],
  ['uri', isRequestURI],
  ['email', isEmail],
  ['hostname', isHostname],
  ['ipv4', isIPv4],
  ['ipv6', isIPv6],
  ['cidr', isCIDR],
  ['mac', isMAC],
  ['uuid', UUID],
  ['uuid3', UUID3],
  ['uuid4', UUID4],
  ['uuid5', UUID5],
  ['isbn', (text: string) => isbn10(text) || isbn13(text)],
  ['isbn10', isbn10],
  ['isbn13', isbn13],
  ['creditcard', isCreditCard],
  ['ssn', (text: string) => SSN.test(text)],
  ['hexcolor', (text: string) => HEX_COLOR.test(text)],
  ['rgbcolor', (text: string) => RGB_COLOR.test(text)],
  ['byte', (text: string) => BASE64.test(text)],
  ['password', () => true],
  ['date', isDate],
  ['duration', isDuration],
  ['datetime', isDateTime],
]);

/** supportedFormat is the format the apiserver keeps for validation, or '' when it strips it. */
export function supportedFormat(format: string | undefined): string {
  if (format === undefined || format === '') return '';
  return FORMAT_CHECKS.has(normalizeFormat(format)) ? format : '';
}

/** formatValid checks a string against a supported format. */
export function formatValid(format: string, text: string): boolean {
  const check = FORMAT_CHECKS.get(normalizeFormat(format));
  return check === undefined || check(text);
}
