import { hexId, type IdSource } from '../../../lib/ids.ts';

/**
 * newOperationName makes a name of the real shape
 * `operation-<epoch ms>-<epoch µs, 13 hex digits>-<8 hex>-<8 hex>`, whose second group encodes
 * the same instant as the first.
 */
export function newOperationName(nowMs: number, ids: IdSource): string {
  const micros = BigInt(Math.floor(nowMs)) * 1000n + BigInt(ids.bytes(2).readUInt16BE(0) % 1000);
  return `operation-${Math.floor(nowMs)}-${micros.toString(16).padStart(13, '0')}-${hexId(ids, 4)}-${hexId(ids, 4)}`;
}
