import { badMetadata } from './errors.ts';

/** METADATA_LIMIT is the largest JSON metadata part (or resumable initiation body) accepted, in bytes. */
export const METADATA_LIMIT = 1024 * 1024;

/** parseMetadata reads upload metadata: empty means none (`{}`), anything else must be a JSON object. */
export function parseMetadata(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badMetadata('Unexpected token.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badMetadata('The metadata must be a JSON object.');
  return value as Record<string, unknown>;
}
