import { parseIp } from './ip-match.ts';
import type { TrafficRequest } from './traffic-request.ts';

/**
 * RequestView is a TrafficRequest read once into what rules look at: the CEL attributes, the
 * raw path and query (as in the request line: Cloud Armor decodes neither), the parsed peer
 * address and the resolved user IP. Built once per request and shared by every rule.
 */
export interface RequestView {
  readonly request: TrafficRequest;
  readonly scheme: string;
  readonly path: string;
  readonly query: string;
  readonly headers: ReadonlyMap<string, string>;
  /** originIp is the peer address in canonical text (an IPv4-mapped IPv6 peer as IPv4). */
  readonly originIp: string;
  readonly originAddress: NonNullable<ReturnType<typeof parseIp>>;
  /** userIp is the address taken from the policy's userIpRequestHeaders, or originIp. */
  readonly userIp: string;
  /** userIpSource names the header userIp came from, when one did. */
  readonly userIpSource?: string;
  /** bindings are the CEL attributes, built on first use and shared by every rule. */
  readonly bindings: () => Record<string, unknown>;
}

/** TrafficRequestError is a request the engine cannot read (a URL that is not absolute http(s), a source that is not an IP). */
export class TrafficRequestError extends Error {
  override readonly name = 'TrafficRequestError';
}

/**
 * viewRequest reads `request` for a policy whose `advancedOptionsConfig.userIpRequestHeaders`
 * are `userIpHeaders`. The user IP is the first address found, in the configured order, in a
 * present header (for a list such as X-Forwarded-For, its first entry); without one it is
 * `origin.ip` (docs: rules-language-reference, `origin.user_ip`).
 */
export function viewRequest(request: TrafficRequest, userIpHeaders: readonly string[]): RequestView {
  const { scheme, host, path, query } = splitUrl(request.url);
  const originAddress = parseIp(request.sourceIp);
  if (originAddress === undefined) throw new TrafficRequestError(`sourceIp is not an IPv4 or IPv6 address: ${JSON.stringify(request.sourceIp)}`);
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(request.headers)) headers.set(name.toLowerCase(), value);
  // Every real request names its host (HTTP/1.1 Host, HTTP/2 :authority); a request given without one has the URL's.
  if (!headers.has('host')) headers.set('host', host);
  const originIp = originAddress.toString();
  let userIp = originIp;
  let userIpSource: string | undefined;
  for (const name of userIpHeaders) {
    const value = headers.get(name.toLowerCase());
    const address = value === undefined ? undefined : parseIp(value.split(',')[0] ?? '');
    if (address === undefined) continue;
    userIp = address.toString();
    userIpSource = name;
    break;
  }
  let bindings: Record<string, unknown> | undefined;
  const view: RequestView = {
    request,
    scheme,
    path,
    query,
    headers,
    originIp,
    originAddress,
    userIp,
    ...(userIpSource === undefined ? {} : { userIpSource }),
    bindings: () => {
      bindings ??= attributesOf(view);
      return bindings;
    },
  };
  return view;
}

/** splitUrl takes scheme, host (authority), raw path and raw query from an absolute URL without normalising them. */
export function splitUrl(url: string): { scheme: string; host: string; path: string; query: string } {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?/.exec(url);
  const scheme = match?.[1]?.toLowerCase();
  if (match === null || (scheme !== 'http' && scheme !== 'https') || match[2] === '') {
    throw new TrafficRequestError(`url must be an absolute http or https URL: ${JSON.stringify(url)}`);
  }
  return { scheme, host: match[2] ?? '', path: match[3] === '' ? '/' : (match[3] ?? '/'), query: match[4] ?? '' };
}

/** cookieValue is the value of the first cookie called `name` in the Cookie header, if any. */
export function cookieValue(view: RequestView, name: string): string | undefined {
  const header = view.headers.get('cookie');
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** attributesOf is the CEL bindings of the rules language for this request. */
export function attributesOf(view: RequestView): Record<string, unknown> {
  const request = view.request;
  const tokens = request.recaptcha;
  return {
    'request.method': request.method,
    'request.headers': view.headers,
    'request.path': view.path,
    'request.query': view.query,
    'request.scheme': view.scheme,
    'origin.ip': view.originIp,
    'origin.region_code': request.regionCode ?? '',
    'origin.asn': BigInt(Math.trunc(request.asn ?? 0)),
    'origin.user_ip': view.userIp,
    'origin.tls_ja3_fingerprint': request.tlsJa3Fingerprint ?? '',
    'origin.tls_ja4_fingerprint': request.tlsJa4Fingerprint ?? '',
    // reCAPTCHA tokens cannot be assessed locally: unless the request declares them, they read as unavailable ones do.
    'token.recaptcha_exemption.valid': tokens?.exemptionValid ?? false,
    'token.recaptcha_action.score': tokens?.actionScore ?? 0,
    'token.recaptcha_action.captcha_status': tokens?.actionCaptchaStatus ?? 'NONE',
    'token.recaptcha_action.action': tokens?.actionName ?? '',
    'token.recaptcha_action.valid': tokens?.actionValid ?? false,
    'token.recaptcha_session.score': tokens?.sessionScore ?? 0,
    'token.recaptcha_session.valid': tokens?.sessionValid ?? false,
  };
}
