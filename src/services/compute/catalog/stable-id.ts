import { createHash } from 'node:crypto';

/** stableId derives a uint64-looking id from a name, so catalog entries keep their ids across restarts. */
export function stableId(name: string): string {
  return (createHash('sha256').update(name).digest().readBigUInt64BE(0) | (1n << 62n)).toString();
}
