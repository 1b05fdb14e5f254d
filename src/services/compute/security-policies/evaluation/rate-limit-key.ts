import type { RateLimitOptions } from '../validate-rate-limit.ts';
import { parseIp } from './ip-match.ts';
import { cookieValue, type RequestView } from './request-view.ts';

/**
 * The rate-limit key of a request (API doc `EnforceOnKey`, docs: rate-limiting-overview): each
 * key type's value, its documented fallback when the value is missing (HTTP_HEADER, HTTP_COOKIE,
 * SNI and the TLS fingerprints fall back to ALL; XFF_IP and USER_IP to IP), values cut to their
 * first 128 bytes, and `enforceOnKeyConfigs` combined into one composite key (each component
 * falling back on its own).
 */

/** KEY_VALUE_BYTES is how much of a key value counts (docs: "the first 128 bytes"). */
export const KEY_VALUE_BYTES = 128;
/** LOGGED_KEY_BYTES is how much of the key the request log shows. */
export const LOGGED_KEY_BYTES = 36;

/** KeyComponent is one configured key part. */
export interface KeyComponent {
  readonly type: string;
  readonly name?: string;
}

/** RateLimitKey is a request's key: `value` names the bucket, `type` the key types used after fallbacks. */
export interface RateLimitKey {
  readonly value: string;
  readonly type: string;
  /** logged is the key as the request log shows it; absent when the log omits it (the ALL bucket). */
  readonly logged?: string;
}

/** keyComponents reads the configured key parts of rate limit options (`enforceOnKey` or `enforceOnKeyConfigs`). */
export function keyComponents(options: RateLimitOptions): KeyComponent[] {
  const configs = options.enforceOnKeyConfigs ?? [];
  if (configs.length > 0) {
    return configs.map((config) => ({
      type: config.enforceOnKeyType ?? 'ALL',
      ...(config.enforceOnKeyName === undefined ? {} : { name: config.enforceOnKeyName }),
    }));
  }
  return [{ type: options.enforceOnKey ?? 'ALL', ...(options.enforceOnKeyName === undefined ? {} : { name: options.enforceOnKeyName }) }];
}

/** rateLimitKey derives the key of `view` for `components`. */
export function rateLimitKey(view: RequestView, components: readonly KeyComponent[]): RateLimitKey {
  const parts = components.map((component) => componentValue(view, component));
  const named = parts.filter((part) => part.type !== 'ALL');
  if (named.length === 0) return { value: '', type: 'ALL' };
  const value = named.map((part) => part.value).join('|');
  return { value, type: named.map((part) => part.type).join('+'), logged: truncateBytes(value, LOGGED_KEY_BYTES) };
}

function componentValue(view: RequestView, component: KeyComponent): { type: string; value: string } {
  const all = { type: 'ALL', value: '' };
  const of = (type: string, value: string | undefined): { type: string; value: string } =>
    value === undefined || value === '' ? all : { type, value: truncateBytes(value, KEY_VALUE_BYTES) };
  switch (component.type) {
    case 'IP':
      return { type: 'IP', value: view.originIp };
    case 'HTTP_HEADER':
      return of('HTTP_HEADER', view.headers.get((component.name ?? '').toLowerCase()));
    case 'HTTP_COOKIE':
      return of('HTTP_COOKIE', cookieValue(view, component.name ?? ''));
    case 'HTTP_PATH':
      return of('HTTP_PATH', view.path);
    case 'SNI':
      return of('SNI', view.request.sni);
    case 'REGION_CODE':
      return of('REGION_CODE', view.request.regionCode);
    case 'TLS_JA3_FINGERPRINT':
      return of('TLS_JA3_FINGERPRINT', view.request.tlsJa3Fingerprint);
    case 'TLS_JA4_FINGERPRINT':
      return of('TLS_JA4_FINGERPRINT', view.request.tlsJa4Fingerprint);
    case 'XFF_IP': {
      const first = view.headers.get('x-forwarded-for')?.split(',')[0];
      const address = first === undefined ? undefined : parseIp(first);
      return address === undefined ? { type: 'IP', value: view.originIp } : { type: 'XFF_IP', value: address.toString() };
    }
    case 'USER_IP':
      return view.userIpSource === undefined ? { type: 'IP', value: view.originIp } : { type: 'USER_IP', value: view.userIp };
    default:
      return all;
  }
}

/** truncateBytes keeps the first `limit` bytes of `text` in UTF-8, never splitting a character. */
export function truncateBytes(text: string, limit: number): string {
  // Fast path: every UTF-16 unit is at most 3 bytes, so short strings need no encoding.
  if (text.length * 3 <= limit) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit;
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
