import type { Random } from './random.ts';

/**
 * Numbers at and beyond the bounds the real services parse query parameters with: the apiserver
 * reads `limit`, `timeoutSeconds`, `gracePeriodSeconds` as int64 and `resourceVersion` as uint64;
 * Google's front end reads `maxResults` and friends as int32/uint32, `priority` as int32.
 */

/** NUMBER_VALUES are the values every numeric query parameter is tried with. */
export const NUMBER_VALUES: readonly string[] = [
  '9223372036854775807', // 2^63 - 1: the largest int64
  '9223372036854775808', // 2^63
  '-9223372036854775808',
  '-9223372036854775809',
  '18446744073709551615', // 2^64 - 1: the largest uint64
  '18446744073709551616', // 2^64
  '9'.repeat(200),
  '-1',
  '0',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e3',
  '1E3',
  '1.5',
  '0x10',
  '+1',
  ' 1',
  '',
  '\uff11',
  `0${'0'.repeat(30)}1`,
];

/** NUMERIC_PARAMS are each family's numeric query parameters. */
export const NUMERIC_PARAMS: Readonly<Record<string, readonly string[]>> = {
  cluster: ['limit', 'resourceVersion', 'timeoutSeconds', 'gracePeriodSeconds'],
  compute: ['maxResults', 'priority'],
  mail: ['maxResults', 'startHistoryId'],
  publisher: ['maxResults', 'uploadType'],
};

/** numericQuery is one or two numeric parameters of `family` with bound-breaking values. */
export function numericQuery(family: string, random: Random): string {
  const names = NUMERIC_PARAMS[family] ?? ['maxResults'];
  const one = (): string => {
    const name = random.pick(names);
    let value = random.pick(NUMBER_VALUES);
    // A valid uint64 far ahead of the store is a faithful 3 s wait for the apiserver ("Too large
    // resource version"), not bad input: tried, but seldom, so the run stays short.
    if (name === 'resourceVersion' && FUTURE_REVISIONS.has(value) && random.chance(0.9)) value = random.pick(['-1', '9'.repeat(200), 'Infinity']);
    return `${name}=${encodeURIComponent(value)}`;
  };
  const parts = [one()];
  if (random.chance(0.3)) parts.push(one());
  return parts.join('&');
}

/** FUTURE_REVISIONS are the NUMBER_VALUES that are valid resourceVersions far ahead of any store. */
const FUTURE_REVISIONS = new Set(['9223372036854775807', '9223372036854775808', '18446744073709551615']);
