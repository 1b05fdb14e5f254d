import type { RecaptchaTokens, TrafficRequest } from './traffic-request.ts';
import { TrafficRequestError, viewRequest } from './request-view.ts';

/**
 * readTrafficRequest reads a request given as JSON (the what-if API's `requests[]`, a line of
 * `fogbank policy test --requests FILE.jsonl`) into a TrafficRequest, or throws
 * TrafficRequestError naming the first bad field (`requests[2].headers.x-a: must be a string`).
 * Header names are lower-cased; a header given as a list of strings is joined by ", ", as
 * Cloud Armor joins a repeated header. `method` defaults to GET. `body` (text, sent as its UTF-8)
 * or `bodyBase64` (bytes) is the request body, which only preconfigured WAF calls read.
 */
export function readTrafficRequest(value: unknown, field = 'request'): TrafficRequest {
  const object = record(value, field);
  const known = new Set([
    'method',
    'url',
    'headers',
    'sourceIp',
    'regionCode',
    'asn',
    'tlsJa3Fingerprint',
    'tlsJa4Fingerprint',
    'sni',
    'httpVersion',
    'recaptcha',
    'body',
    'bodyBase64',
  ]);
  for (const name of Object.keys(object)) if (!known.has(name)) fail(`${field}.${name}`, `unknown field (known: ${[...known].join(', ')})`);
  const method = optionalString(object['method'], `${field}.method`) ?? 'GET';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method)) fail(`${field}.method`, 'must be an HTTP method token');
  const url = optionalString(object['url'], `${field}.url`);
  if (url === undefined) fail(`${field}.url`, 'is required');
  const sourceIp = optionalString(object['sourceIp'], `${field}.sourceIp`);
  if (sourceIp === undefined) fail(`${field}.sourceIp`, 'is required');
  // A Map, so a header called __proto__ is just a header.
  const headers = new Map<string, string>();
  if (object['headers'] !== undefined) {
    for (const [name, given] of Object.entries(record(object['headers'], `${field}.headers`))) {
      const at = `${field}.headers.${name}`;
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) fail(at, 'is not a valid header name');
      const text = Array.isArray(given) && given.every((item) => typeof item === 'string') ? given.join(', ') : given;
      if (typeof text !== 'string') fail(at, 'must be a string or a list of strings');
      const lower = name.toLowerCase();
      const earlier = headers.get(lower);
      headers.set(lower, earlier === undefined ? text : `${earlier}, ${text}`);
    }
  }
  const asn = object['asn'];
  if (asn !== undefined && (typeof asn !== 'number' || !Number.isSafeInteger(asn) || asn < 0 || asn > 4294967295))
    fail(`${field}.asn`, 'must be an integer from 0 to 4294967295');
  const regionCode = optionalString(object['regionCode'], `${field}.regionCode`);
  if (regionCode !== undefined && regionCode !== '' && !/^[A-Z]{2}$/.test(regionCode))
    fail(`${field}.regionCode`, 'must be a two-letter ISO 3166-1 alpha-2 code');
  const text = optionalString(object['body'], `${field}.body`);
  const base64 = optionalString(object['bodyBase64'], `${field}.bodyBase64`);
  if (text !== undefined && base64 !== undefined) fail(`${field}.bodyBase64`, 'cannot be given with body');
  if (base64 !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) fail(`${field}.bodyBase64`, 'is not base64');
  const body = text !== undefined ? Buffer.from(text, 'utf8') : base64 !== undefined ? Buffer.from(base64, 'base64') : undefined;
  const request: TrafficRequest = {
    method,
    url,
    headers: Object.fromEntries(headers),
    sourceIp,
    ...(regionCode === undefined ? {} : { regionCode }),
    ...(asn === undefined ? {} : { asn: asn as number }),
    ...optionalStrings(object, field, ['tlsJa3Fingerprint', 'tlsJa4Fingerprint', 'sni', 'httpVersion']),
    ...(object['recaptcha'] === undefined ? {} : { recaptcha: readRecaptcha(object['recaptcha'], `${field}.recaptcha`) }),
    ...(body === undefined ? {} : { body }),
  };
  // The URL and address checks of evaluation itself, reported against this field.
  try {
    viewRequest(request, []);
  } catch (error) {
    if (error instanceof TrafficRequestError) fail(field, error.message);
    throw error;
  }
  return request;
}

function readRecaptcha(value: unknown, field: string): RecaptchaTokens {
  const object = record(value, field);
  const tokens: Record<string, unknown> = {};
  const kinds: Record<string, 'boolean' | 'number' | 'string'> = {
    exemptionValid: 'boolean',
    actionValid: 'boolean',
    actionScore: 'number',
    actionCaptchaStatus: 'string',
    actionName: 'string',
    sessionValid: 'boolean',
    sessionScore: 'number',
  };
  for (const [name, given] of Object.entries(object)) {
    const kind = kinds[name];
    if (kind === undefined) fail(`${field}.${name}`, `unknown field (known: ${Object.keys(kinds).join(', ')})`);
    if (typeof given !== kind) fail(`${field}.${name}`, `must be a ${kind}`);
    tokens[name] = given;
  }
  return tokens as RecaptchaTokens;
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'must be an object');
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail(field, 'must be a string');
  return value;
}

function optionalStrings(object: Record<string, unknown>, field: string, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = optionalString(object[name], `${field}.${name}`);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function fail(field: string, problem: string): never {
  throw new TrafficRequestError(`${field}: ${problem}`);
}
