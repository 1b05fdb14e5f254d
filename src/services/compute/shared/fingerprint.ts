import type { IdSource } from '../../../core/ids.ts';

/** newFingerprint makes an optimistic-locking fingerprint as compute's are: 8 random bytes, base64. */
export function newFingerprint(ids: IdSource): string {
  return ids.bytes(8).toString('base64');
}
