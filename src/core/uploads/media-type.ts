import libmime from 'libmime';

/** MediaLimits are a method's `mediaUpload` descriptor from its discovery document: accepted types and the largest size. */
export interface MediaLimits {
  /** Accepted media types; a `type/*` entry accepts every subtype, `*\/*` everything. */
  readonly accept: readonly string[];
  /** The largest accepted media, in bytes (discovery `maxSize`). */
  readonly maxSize: number;
}

/** ParsedContentType is a Content-Type value split into its lower-case media type and parameters. */
export interface ParsedContentType {
  readonly mediaType: string;
  readonly params: Readonly<Record<string, string>>;
}

/** parseContentType reads a Content-Type header (quoted and RFC 2231 parameters included) with libmime. */
export function parseContentType(header: string | undefined): ParsedContentType {
  if (header === undefined || header.trim() === '') return { mediaType: '', params: {} };
  const parsed = libmime.parseHeaderValue(header);
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed.params)) params[key.toLowerCase()] = String(value);
  return { mediaType: parsed.value.trim().toLowerCase(), params };
}

/** acceptsMediaType is true when `mediaType` matches one of the method's accepted types. */
export function acceptsMediaType(limits: MediaLimits, mediaType: string): boolean {
  const [type, subtype] = mediaType.split('/');
  if (type === undefined || subtype === undefined || type === '' || subtype === '') return false;
  return limits.accept.some((entry) => {
    const [acceptType, acceptSubtype] = entry.toLowerCase().split('/');
    if (acceptType === '*') return true;
    return acceptType === type && (acceptSubtype === '*' || acceptSubtype === subtype);
  });
}
