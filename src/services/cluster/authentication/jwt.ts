/**
 * Compact JWS (RFC 7515) JSON Web Tokens signed RS256 with node:crypto, written the way the
 * apiserver's go-jose signer writes them: the header `{"alg":"RS256","kid":…}` (no `typ`), the
 * claims as compact JSON with every object's keys sorted (go-jose normalises claims through a
 * map), each part base64url without padding. Pure functions: no clock, no store.
 */
import { sign, verify, type KeyObject } from 'node:crypto';

/** JwtParts is a compact token split and decoded, before any check of its signature. */
export interface JwtParts {
  readonly header: Readonly<Record<string, unknown>>;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The first two parts as sent, which the signature covers. */
  readonly signingInput: string;
  readonly signature: Buffer;
}

/** sortedJson writes `value` as compact JSON with the keys of every object in sorted order (Go's map encoding). */
export function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort()) sorted[key] = (item as Record<string, unknown>)[key];
    return sorted;
  });
}

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** signJwt signs `claims` with an RSA private key as RS256 under key id `kid`. */
export function signJwt(claims: Readonly<Record<string, unknown>>, privateKey: KeyObject, kid: string): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'RS256', kid }))}.${base64url(sortedJson(claims))}`;
  return `${signingInput}.${sign('sha256', Buffer.from(signingInput), privateKey).toString('base64url')}`;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodeObject(part: string): Record<string, unknown> | undefined {
  if (!BASE64URL.test(part)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** parseJwt splits and decodes a compact token; undefined when it is not one (three base64url parts, two JSON objects). */
export function parseJwt(token: string): JwtParts | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [head, body, signature] = parts as [string, string, string];
  if (!BASE64URL.test(signature)) return undefined;
  const header = decodeObject(head);
  const payload = decodeObject(body);
  if (header === undefined || payload === undefined) return undefined;
  return { header, payload, signingInput: `${head}.${body}`, signature: Buffer.from(signature, 'base64url') };
}

/** verifyRs256 tells whether the token's signature is an RS256 signature of its first two parts by `publicKey`. */
export function verifyRs256(parts: JwtParts, publicKey: KeyObject): boolean {
  if (parts.header['alg'] !== 'RS256') return false;
  try {
    return verify('sha256', Buffer.from(parts.signingInput), publicKey, parts.signature);
  } catch {
    return false;
  }
}
