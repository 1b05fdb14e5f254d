import { invalidFieldValue } from '../shared/errors.ts';
import { IP_PROTOCOL_NAMES, ISO_REGION_CODES, MESSAGES } from './constants.ts';
import type { SecurityPolicyRule } from './model.ts';
import { fieldOf, isIpOrCidr, type RuleContext } from './rule-context.ts';

/** NetworkMatch is a rule's packet-level match condition. */
export type NetworkMatch = NonNullable<SecurityPolicyRule['networkMatch']>;

/**
 * validateNetworkMatch checks each networkMatch list against its number format: user-defined
 * values are 32-bit (decimal or 0x hex) or ranges, protocols 8-bit or names, ports 16-bit,
 * region codes ISO 3166-1 alpha-2; `*` matches everything in any list.
 */
export function validateNetworkMatch(match: NetworkMatch, context: RuleContext): void {
  const at = (path: string): string => fieldOf(context, `networkMatch.${path}`);
  (match.userDefinedFields ?? []).forEach((udf, i) => {
    const known = context.userDefinedFieldNames;
    if (udf.name === undefined || udf.name === '' || (known !== undefined && !known.includes(udf.name))) {
      throw invalidFieldValue(at(`userDefinedFields[${i}].name`), udf.name ?? '', MESSAGES.udfName(udf.name ?? ''));
    }
    eachValue(udf.values, at(`userDefinedFields[${i}].values`), MESSAGES.udfValue, (v) => isRange(v, /^(0x[0-9a-fA-F]{1,8}|\d{1,10})$/, 0xffffffff));
  });
  eachValue(match.srcIpRanges, at('srcIpRanges'), MESSAGES.ipRange, isIpOrCidr);
  eachValue(match.destIpRanges, at('destIpRanges'), MESSAGES.ipRange, isIpOrCidr);
  eachValue(match.ipProtocols, at('ipProtocols'), MESSAGES.ipProtocol, (v) => IP_PROTOCOL_NAMES.includes(v) || isRange(v, /^\d{1,3}$/, 0xff));
  eachValue(match.srcPorts, at('srcPorts'), MESSAGES.port, (v) => isRange(v, /^\d{1,5}$/, 0xffff));
  eachValue(match.destPorts, at('destPorts'), MESSAGES.port, (v) => isRange(v, /^\d{1,5}$/, 0xffff));
  eachValue(match.srcRegionCodes, at('srcRegionCodes'), MESSAGES.regionCode, (v) => ISO_REGION_CODES.has(v));
}

function eachValue(values: readonly string[] | undefined, field: string, reason: string, valid: (value: string) => boolean): void {
  (values ?? []).forEach((value, i) => {
    if (value !== '*' && !valid(value)) throw invalidFieldValue(`${field}[${i}]`, value, reason);
  });
}

/** isRange accepts one number or `low-high` (low ≤ high), each matching `pattern` and at most `max`. */
function isRange(text: string, pattern: RegExp, max: number): boolean {
  const parts = text.split('-');
  if (parts.length > 2) return false;
  const numbers = parts.map((part) => (pattern.test(part) ? Number(part) : Number.NaN));
  if (numbers.some((n) => !(n >= 0 && n <= max))) return false;
  const [low, high] = numbers;
  return high === undefined || (low !== undefined && low <= high);
}
