/**
 * Scalar query values read as the apiserver's parameter decoder reads them (apimachinery
 * `runtime/conversion.go`, strconv): booleans, int64 and uint64 numbers, with Go's error texts.
 * Numbers are checked as decimal strings and BigInt, never through `Number()`, so a value past
 * 2^53 is neither rounded nor mistaken for a valid one.
 */
import { badRequest } from './status.ts';

/** INT64_MAX and INT64_MIN bound what strconv.ParseInt(s, 10, 64) accepts. */
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** UINT64_MAX bounds what strconv.ParseUint(s, 10, 64) accepts. */
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * goQuote quotes text as Go's strconv.Quote does, which is how strconv's errors print the
 * offending value: printable characters as they are, `"` and `\` escaped, control characters as
 * `\n`, `\t`, … or `\xNN`, other unprintable ones as `\uNNNN` / `\UNNNNNNNN`.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code < 0x20 || code === 0x7f) out += SHORT_ESCAPES[code] ?? `\\x${code.toString(16).padStart(2, '0')}`;
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(char)) out += char;
    else if (code > 0xffff) out += `\\U${code.toString(16).padStart(8, '0')}`;
    else out += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `${out}"`;
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/**
 * queryFlag reads a boolean query parameter as the apiserver's decoder does
 * (Convert_Slice_string_To_bool and its pointer form): absent is undefined; `0` and `false` in
 * any case are false; any other value, the empty one (`?watch`) included, is true. Go compares
 * with strings.EqualFold, under which `ſ` (U+017F) is an `s`.
 */
export function queryFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return !(value === '0' || value.toLowerCase().replaceAll('ſ', 's') === 'false');
}

/**
 * goParseBool is Go's strconv.ParseBool: the only spellings it knows, undefined for any other
 * (the apiserver reads `pretty` with it and takes an error as false).
 */
export function goParseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/**
 * parseInt64 reads a value as strconv.ParseInt(value, 10, 64): an optional sign and decimal
 * digits, within int64; otherwise the 400 carrying strconv's own error, as the apiserver
 * answers a query parameter it cannot decode.
 */
export function parseInt64(value: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`);
  const parsed = BigInt(value);
  if (parsed > INT64_MAX || parsed < INT64_MIN) throw badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`);
  return parsed;
}

/** Uint64Problem is why a value is not a uint64, in strconv.ParseUint's words. */
export type Uint64Problem = 'invalid syntax' | 'value out of range';

/** uint64Problem checks a value as strconv.ParseUint(value, 10, 64) does: decimal digits only (no sign), within uint64. */
export function uint64Problem(value: string): Uint64Problem | undefined {
  if (!/^[0-9]+$/.test(value)) return 'invalid syntax';
  return BigInt(value) > UINT64_MAX ? 'value out of range' : undefined;
}

/** clampToNumber turns a checked int64 into a number, capped at `max` (beyond it a value means the same as `max`). */
export function clampToNumber(value: bigint, max: number): number {
  return value > BigInt(max) ? max : Number(value);
}
