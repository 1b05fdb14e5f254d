/**
 * The body of `POST /_fogbank/securityPolicies:evaluate` (issue 30), read as a pure function with
 * the messages the client gets: `{"policy": NAME | {…inline policy}, "requests": [{"method", "url",
 * "headers", "sourceIp", "regionCode", "asn", "tlsJa3Fingerprint", "tlsJa4Fingerprint", "sni"}],
 * "wafUnknown": "no-match" | "match"}`. Each request becomes a TrafficRequest as the load balancer
 * would present it: header names lower-cased, repeated values joined with ", ".
 */
import ipaddr from 'ipaddr.js';
import { PolicyEvaluationError } from '../../../core/policy-evaluation.ts';
import type { Scope } from '../shared/locations.ts';
import type { TrafficRequest } from './evaluation/traffic-request.ts';

/** MAX_REQUESTS bounds one evaluation (counters make each request cost a little state). */
export const MAX_REQUESTS = 1000;

/** PolicyName is a parsed policy resource name. */
export interface PolicyName {
  readonly project: string;
  readonly scope: Scope;
  readonly name: string;
}

/** WhatIfBody is a validated evaluate body. */
export interface WhatIfBody {
  readonly policy: PolicyName | { readonly inline: unknown };
  readonly requests: readonly TrafficRequest[];
  readonly wafUnknown: 'match' | 'no-match';
}

const BODY_FIELDS = ['policy', 'requests', 'wafUnknown'];
const REQUEST_FIELDS = ['method', 'url', 'headers', 'sourceIp', 'regionCode', 'asn', 'tlsJa3Fingerprint', 'tlsJa4Fingerprint', 'sni', 'body', 'bodyBase64'];
const POLICY_NAME = /^projects\/([a-z][-a-z0-9.:]{0,62})\/(?:global|regions\/([a-z][-a-z0-9]{0,62}))\/securityPolicies\/([a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/**
 * NOT_IN_HEADER_VALUE finds what a header value, as text, cannot hold: a control character other
 * than tab, or a lone surrogate (no UTF-8 can carry one). On the wire a value is its UTF-8, which
 * the guard reads back to the same text.
 */
const NOT_IN_HEADER_VALUE = /[^\t\x20-\x7e\u{80}-\u{10ffff}]|\p{Cs}/u;

/** badInput is the 400 of the evaluation. */
export function badInput(message: string): PolicyEvaluationError {
  return new PolicyEvaluationError(400, message);
}

/** parsePolicyName reads `projects/P/regions/R/securityPolicies/N` or `projects/P/global/securityPolicies/N`, or throws its 400. */
export function parsePolicyName(text: string): PolicyName {
  const match = POLICY_NAME.exec(text);
  if (match === null)
    throw badInput(
      `"policy": ${JSON.stringify(text)} is not a security policy name such as projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME.`,
    );
  const [, project, region, name] = match as unknown as [string, string, string | undefined, string];
  return { project, scope: region === undefined ? { kind: 'global' } : { kind: 'region', name: region }, name };
}

/** readWhatIfBody validates the body, or throws its 400. */
export function readWhatIfBody(body: unknown): WhatIfBody {
  if (!isObject(body)) throw badInput('The body must be a JSON object: {"policy": NAME or {…}, "requests": [{"method", "url", "sourceIp", …}]}.');
  const unknown = Object.keys(body).find((key) => !BODY_FIELDS.includes(key));
  if (unknown !== undefined) throw badInput(`Unknown member ${JSON.stringify(unknown)}: the body takes policy, requests and wafUnknown.`);
  const policy = body['policy'];
  let target: WhatIfBody['policy'];
  if (typeof policy === 'string') target = parsePolicyName(policy);
  else if (isObject(policy)) target = { inline: policy };
  else throw badInput('"policy" is required: a policy name (projects/P/regions/R/securityPolicies/NAME) or a policy object.');
  const wafUnknown = body['wafUnknown'] ?? 'no-match';
  if (wafUnknown !== 'match' && wafUnknown !== 'no-match') throw badInput(`"wafUnknown" must be "match" or "no-match", not ${JSON.stringify(wafUnknown)}.`);
  const requests = body['requests'];
  if (!Array.isArray(requests) || requests.length === 0) throw badInput('"requests" must be a list of at least one request.');
  if (requests.length > MAX_REQUESTS) throw badInput(`"requests" holds ${requests.length} requests; at most ${MAX_REQUESTS} are evaluated at once.`);
  return { policy: target, requests: requests.map((request, i) => readTrafficRequest(request, `requests[${i}]`)), wafUnknown };
}

/** readTrafficRequest validates one request of the body (`at` names it in messages), or throws its 400. */
export function readTrafficRequest(value: unknown, at: string): TrafficRequest {
  if (!isObject(value)) throw badInput(`"${at}" must be an object with method, url and sourceIp.`);
  const unknown = Object.keys(value).find((key) => !REQUEST_FIELDS.includes(key));
  if (unknown !== undefined) throw badInput(`"${at}" has unknown member ${JSON.stringify(unknown)}: a request takes ${REQUEST_FIELDS.join(', ')}.`);
  const method = value['method'] ?? 'GET';
  if (typeof method !== 'string' || !TOKEN.test(method)) throw badInput(`"${at}.method" must be an HTTP method such as "GET", not ${JSON.stringify(method)}.`);
  const url = value['url'];
  if (typeof url !== 'string') throw badInput(`"${at}.url" is required: an absolute URL such as "https://example.com/admin?x=1".`);
  if (!isAbsoluteHttpUrl(url))
    throw badInput(`"${at}.url": ${JSON.stringify(url)} is not an absolute http or https URL such as "https://example.com/admin?x=1".`);
  const sourceIp = value['sourceIp'];
  if (typeof sourceIp !== 'string') throw badInput(`"${at}.sourceIp" is required: the client's IP address, such as "203.0.113.9".`);
  if (!isIp(sourceIp)) throw badInput(`"${at}.sourceIp": ${JSON.stringify(sourceIp)} is not an IPv4 or IPv6 address.`);
  const headers = readHeaders(value['headers'], `${at}.headers`);
  const request: { -readonly [K in keyof TrafficRequest]: TrafficRequest[K] } = { method, url, headers, sourceIp };
  const regionCode = value['regionCode'];
  if (regionCode !== undefined) {
    if (typeof regionCode !== 'string' || !/^([A-Z]{2})?$/.test(regionCode))
      throw badInput(`"${at}.regionCode" must be an ISO 3166-1 alpha-2 code such as "FR", not ${JSON.stringify(regionCode)}.`);
    request.regionCode = regionCode;
  }
  const asn = value['asn'];
  if (asn !== undefined) {
    if (typeof asn !== 'number' || !Number.isInteger(asn) || asn < 0 || asn > 4294967295)
      throw badInput(`"${at}.asn" must be an AS number from 0 to 4294967295, not ${JSON.stringify(asn)}.`);
    request.asn = asn;
  }
  for (const field of ['tlsJa3Fingerprint', 'tlsJa4Fingerprint', 'sni'] as const) {
    const text = value[field];
    if (text === undefined) continue;
    if (typeof text !== 'string' || text.length > 256 || !/^[\x21-\x7e]*$/.test(text))
      throw badInput(`"${at}.${field}" must be printable text of at most 256 characters.`);
    request[field] = text;
  }
  // The body only preconfigured WAF calls read: text (sent as its UTF-8) or bytes in base64.
  const text = value['body'];
  const base64 = value['bodyBase64'];
  if (text !== undefined && base64 !== undefined) throw badInput(`"${at}" gives both body and bodyBase64: a request has one body.`);
  if (text !== undefined) {
    if (typeof text !== 'string') throw badInput(`"${at}.body" must be a string (the body as text; bodyBase64 for bytes).`);
    request.body = Buffer.from(text, 'utf8');
  }
  if (base64 !== undefined) {
    if (typeof base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 === 1)
      throw badInput(`"${at}.bodyBase64" must be the body's bytes in base64.`);
    request.body = Buffer.from(base64, 'base64');
  }
  return request;
}

/** readHeaders lower-cases names and joins repeated values with ", ", as the load balancer presents them. */
function readHeaders(value: unknown, at: string): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  if (value === undefined) return headers;
  if (!isObject(value)) throw badInput(`"${at}" must be an object of header names to values.`);
  for (const [name, raw] of Object.entries(value)) {
    if (!TOKEN.test(name)) throw badInput(`"${at}": ${JSON.stringify(name)} is not a header name.`);
    const values = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.every((item) => typeof item === 'string') ? (raw as string[]) : undefined;
    if (values === undefined) throw badInput(`"${at}.${name}" must be a string or a list of strings.`);
    for (const each of values) if (NOT_IN_HEADER_VALUE.test(each)) throw badInput(`"${at}.${name}" holds a character a header value cannot carry.`);
    const key = name.toLowerCase();
    const previous = headers[key];
    headers[key] = previous === undefined ? values.join(', ') : [previous, ...values].join(', ');
  }
  return headers;
}

/** isAbsoluteHttpUrl says whether the text is an absolute http(s) URL WHATWG can parse. */
export function isAbsoluteHttpUrl(text: string): boolean {
  if (!/^https?:\/\/[^/?#\s]+/i.test(text) || hasControlOrSpace(text)) return false;
  try {
    const parsed = new URL(text);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}

/** isIp says whether the text is an IPv4 address (four decimal parts) or an IPv6 address. */
export function isIp(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** hasControlOrSpace says whether the text holds whitespace or a control character (no URL on the wire does). */
function hasControlOrSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return /\s/.test(text);
}
