import type { IdSource } from '../../../lib/ids.ts';

/** newFingerprint makes an optimistic-locking fingerprint as compute's are: 8 random bytes, base64. */
export function newFingerprint(ids: IdSource): string {
  return ids.bytes(8).toString('base64');
}

// Either base64 alphabet (standard `+/`, URL-safe `-_`), padding optional. Node's decoder takes
// both alphabets but silently skips anything else, so the shape is checked first.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * decodeFingerprint reads a fingerprint as the bytes it stands for: compute's fingerprints are
 * `bytes` fields, and clients re-encode them (gcloud's apitools sends back the URL-safe form
 * without changing the value). Undefined for text that is not base64 in either alphabet.
 */
export function decodeFingerprint(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const body = text.replace(/=+$/, '');
  // A single leftover character cannot encode a byte.
  if (body.length % 4 === 1) return undefined;
  if (text.length !== body.length && text.length % 4 !== 0) return undefined;
  return Buffer.from(body, 'base64');
}

/** sameFingerprint is true when a client's fingerprint names the same bytes as the stored one. */
export function sameFingerprint(given: string, stored: string): boolean {
  const a = decodeFingerprint(given);
  const b = decodeFingerprint(stored);
  return a !== undefined && b !== undefined && a.equals(b);
}
