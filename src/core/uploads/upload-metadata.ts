import { findTooDeep } from '../json-body.ts';
import { badMetadata } from './errors.ts';

/** METADATA_LIMIT is the largest JSON metadata part (or resumable initiation body) accepted, in bytes. */
export const METADATA_LIMIT = 1024 * 1024;

/**
 * parseMetadata reads upload metadata: empty means none (`{}`), anything else must be a JSON
 * object no deeper than core's JSON bodies may be (a session keeps its metadata, and everything
 * that writes it out again — answers, snapshots — would recurse as deep).
 */
export function parseMetadata(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const deep = findTooDeep(text);
  // Google's parser reports depth without pointing at the spot (as compute's body errors say it).
  if (deep !== undefined) throw badMetadata(`Message too deep. Max recursion depth reached for key '${deep.key}'`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badMetadata('Unexpected token.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badMetadata('The metadata must be a JSON object.');
  return value as Record<string, unknown>;
}
