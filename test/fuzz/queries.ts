import type { Random } from './random.ts';

/** Filters that are merely malformed or odd: every engine must refuse or answer them quickly. */
const ODD_FILTERS: readonly string[] = [
  'name eq',
  'name eq "unterminated',
  '(name = "a"',
  'name = "a")',
  'name ne ""',
  '=',
  'NOT',
  'name = "a" AND AND name = "b"',
  'labels.__proto__ = "x"',
  'constructor = "x"',
  'name eq "[a-"',
  'name eq "\\\\"',
  `name eq "${'a'.repeat(5000)}"`,
  '(((((((((((((((((((((((((((((name = "a")))))))))))))))))))))))))))))',
  `${'('.repeat(2000)}name = "a"${')'.repeat(2000)}`,
  `${'NOT '.repeat(2000)}name = "a"`,
  'name = "a" OR '.repeat(500) + 'name = "b"',
];

/** Filters that blow up a backtracking regex engine (`(.|.)*Q`, `****** *Q`): list filters run on RE2, so each must answer at once. */
const HOSTILE_FILTERS: readonly string[] = [
  'description eq "(.|.)*Q"',
  'description = "****** *Q"',
  'name eq "(a+)+$"',
  'name eq "(a|aa)*b"',
  'description eq "(x+x+)+y"',
  `name eq "${'(a*)*'.repeat(20)}b"`,
  'name eq "a{1000}{1000}"',
];

/** Query parameters and hostile values for them. */
const PARAMS: readonly (readonly [string, readonly string[]])[] = [
  ['maxResults', ['-1', '0', '501', '1e99', 'abc', '', '9'.repeat(400), '1.5']],
  ['pageToken', ['garbage', '', '%00', 'eyJ4IjoxfQ==', 'a'.repeat(4000)]],
  ['orderBy', ['name desc', 'creationTimestamp', '"', 'a'.repeat(2000)]],
  ['returnPartialSuccess', ['maybe', '', 'TRUE', '1']],
  ['validateOnly', ['maybe', '', 'yes', 'true', 'false']],
  ['requestId', ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '', 'a'.repeat(1000)]],
  ['priority', ['-1', '2147483648', 'abc', '1e3', '', '99999999999999999999']],
  ['alt', ['json', 'proto', 'xml', '']],
  ['fields', ['items(name', '*', 'a'.repeat(500)]],
  ['__proto__', ['1', 'x']],
  ['constructor', ['1']],
  ['hasOwnProperty', ['1']],
  ['includeAllScopes', ['maybe', 'true']],
  ['serviceProjectNumber', ['-1', 'x']],
];

/** hostileQuery is a query string of one to three hostile parameters (sometimes repeated). */
export function hostileQuery(random: Random): string {
  const parts: string[] = [];
  const count = 1 + random.int(3);
  for (let i = 0; i < count; i++) {
    if (random.chance(0.25)) {
      const filters = random.chance(0.5) ? HOSTILE_FILTERS : ODD_FILTERS;
      parts.push(`filter=${encodeURIComponent(random.pick(filters))}`);
      continue;
    }
    const [name, values] = random.pick(PARAMS);
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(random.pick(values))}`);
    if (random.chance(0.1)) parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(random.pick(values))}`);
  }
  if (random.chance(0.1)) parts.push(random.pick(['%', '%zz', 'a=%E0%A4%A', '&&&', '=', 'x[y]=1', 'x[__proto__][z]=1']));
  return parts.join('&');
}
