import { badContentRange } from './errors.ts';

/**
 * ContentRange is what a resumable PUT's `Content-Range` says: a status query (`bytes *\/N`,
 * `bytes *\/*`), a chunk (`bytes A-B/N`, `bytes A-B/*`), or nothing, meaning the body is the whole
 * media from byte 0.
 */
export type ContentRange =
  | { readonly kind: 'query'; readonly total: number | undefined }
  | { readonly kind: 'chunk'; readonly start: number; readonly end: number; readonly total: number | undefined }
  | { readonly kind: 'whole' };

const PARSE_FAILURE = 'Failed to parse Content-Range header.';

/** parseContentRange reads a `Content-Range` request header; absent means the whole media. */
export function parseContentRange(header: string | undefined): ContentRange {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s+(?:\*|(\d+)-(\d+))\/(\*|\d+)\s*$/i.exec(header);
  if (match === null) throw badContentRange(PARSE_FAILURE);
  const total = match[3] === '*' ? undefined : safeNumber(match[3]!);
  if (match[1] === undefined) return { kind: 'query', total };
  const start = safeNumber(match[1]);
  const end = safeNumber(match[2]!);
  if (end < start) throw badContentRange(PARSE_FAILURE);
  if (total !== undefined && end >= total) throw badContentRange(`Invalid Content-Range: the last byte ${end} is beyond the total size of ${total} byte(s).`);
  return { kind: 'chunk', start, end, total };
}

function safeNumber(digits: string): number {
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) throw badContentRange(PARSE_FAILURE);
  return value;
}

/** rangeHeader is the 308 answer's `Range` for `received` bytes; none when nothing has arrived yet. */
export function rangeHeader(received: number): Record<string, string> {
  return received > 0 ? { range: `bytes=0-${received - 1}` } : {};
}
