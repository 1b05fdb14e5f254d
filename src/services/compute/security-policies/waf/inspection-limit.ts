/**
 * How much of a request body the WAF inspects: `advancedOptionsConfig.requestBodyInspectionSize`,
 * one of "8KB", "16KB", "32KB", "48KB", "64KB", case-insensitive (API doc); absent, the first 8 KB
 * ("up to the first 8 kB of a request body by default", docs: common-use-cases; the reference
 * notes the content-parsing page's 64 kB and takes 8 KB). Bytes past it are never inspected: a
 * longer body is judged on its first bytes.
 */

/** INSPECTION_SIZES are the values the API accepts, by their upper-case spelling. */
export const INSPECTION_SIZES: ReadonlyMap<string, number> = new Map([
  ['8KB', 8 * 1024],
  ['16KB', 16 * 1024],
  ['32KB', 32 * 1024],
  ['48KB', 48 * 1024],
  ['64KB', 64 * 1024],
]);

/** DEFAULT_INSPECTION_LIMIT is the limit without the field. */
export const DEFAULT_INSPECTION_LIMIT = 8 * 1024;

/** MAX_INSPECTION_LIMIT is the largest limit a policy can set: what a proxy must be ready to buffer. */
export const MAX_INSPECTION_LIMIT = 64 * 1024;

/** inspectionLimitOf reads the limit of a policy's advancedOptionsConfig. */
export function inspectionLimitOf(advancedOptions: unknown): number {
  const size =
    typeof advancedOptions === 'object' && advancedOptions !== null ? (advancedOptions as Record<string, unknown>)['requestBodyInspectionSize'] : undefined;
  return (typeof size === 'string' ? INSPECTION_SIZES.get(size.toUpperCase()) : undefined) ?? DEFAULT_INSPECTION_LIMIT;
}
