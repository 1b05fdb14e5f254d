/**
 * The Kubernetes `url` library: `url(string)`, `isURL(string)` and the URL getters (getScheme,
 * getHost, getHostname, getPort, getEscapedPath, getQuery). Like Go's url.ParseRequestURI, a URL
 * must be absolute (scheme) or an absolute path.
 */
import { celList, celMap, type CelValue } from '@bufbuild/cel';
import { BOOL, listOf, mapOf, opaque, STRING } from './cel-types.ts';
import { fixed, type Overload, traversal } from './overloads.ts';
import { RuleEvalError, Opaque, type Value } from './runtime-values.ts';

const URL_TYPE = opaque('kubernetes.URL');

/** KubeUrl is a parsed URL value. */
export class KubeUrl extends Opaque {
  readonly typeName = 'kubernetes.URL';
  constructor(
    readonly text: string,
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {
    super();
  }
  /** equals compares the texts. */
  equals(other: Opaque): boolean {
    return other instanceof KubeUrl && other.text === this.text;
  }
}

/** parseUrl reads a URL the way url.ParseRequestURI accepts it. */
export function parseUrl(text: string): KubeUrl {
  const fail = (): never => {
    throw new RuleEvalError(`URL parse error during conversion from string: parse "${text}": invalid URI for request`);
  };
  if (text.length === 0 || [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) fail();
  const withoutFragment = text;
  if (withoutFragment.startsWith('/')) {
    const [path = '', query = ''] = splitOnce(withoutFragment, '?');
    return new KubeUrl(text, '', '', path, query);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(withoutFragment);
  if (scheme === null) return fail();
  const rest = scheme[2]!;
  const [beforeQuery = '', query = ''] = splitOnce(rest, '?');
  let host = '';
  let path = beforeQuery;
  if (beforeQuery.startsWith('//')) {
    const afterSlashes = beforeQuery.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    path = slash < 0 ? '' : afterSlashes.slice(slash);
    host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
    if (host.startsWith('[') && !/^\[[0-9a-fA-F:.]+(%[^\]]+)?\](:\d*)?$/.test(host)) fail();
    if (!host.startsWith('[') && (/:[^0-9]|:.*:/.test(host) || host.includes(' '))) fail();
  }
  return new KubeUrl(text, scheme[1]!.toLowerCase(), host, path, query);
}

/** escapePath is Go's URL.EscapedPath for a path read from text: characters a path may not hold bare are percent-encoded. */
function escapePath(path: string): string {
  return path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (ch) => encodeURIComponent(ch));
}

function splitOnce(text: string, sep: string): [string, string] {
  const i = text.indexOf(sep);
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + 1)];
}

function u(v: Value): KubeUrl {
  if (!(v instanceof KubeUrl)) throw new RuleEvalError('no such overload');
  return v;
}

function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function port(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  return colon < 0 ? '' : host.slice(colon + 1);
}

function query(text: string): CelValue {
  const entries = new Map<string, string[]>();
  for (const part of text.split(/[&]/)) {
    if (part === '') continue;
    const [k = '', v = ''] = splitOnce(part, '=');
    const key = safeDecode(k);
    entries.set(key, [...(entries.get(key) ?? []), safeDecode(v)]);
  }
  return celMap(new Map([...entries].map(([k, v]) => [k, celList(v)])));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

const getter = (name: string, result: Overload['result'], impl: (url: KubeUrl) => Value): Overload => ({
  name,
  member: true,
  params: [URL_TYPE],
  result,
  impl: (args) => impl(u(args[0]!)),
});

/** URL_OVERLOADS are the url library. */
export const URL_OVERLOADS: readonly Overload[] = [
  { name: 'url', member: false, params: [STRING], result: URL_TYPE, ...traversal(0), impl: (args) => parseUrl(String(args[0])) },
  {
    name: 'isURL',
    member: false,
    params: [STRING],
    result: BOOL,
    // the apiserver's estimator prices `url` only; isURL gets cel-go's default
    estimate: () => ({ cost: fixed(1) }),
    impl: (args) => {
      try {
        parseUrl(String(args[0]));
        return true;
      } catch {
        return false;
      }
    },
  },
  getter('getScheme', STRING, (url) => url.scheme),
  getter('getHost', STRING, (url) => url.host),
  getter('getHostname', STRING, (url) => hostname(url.host)),
  getter('getPort', STRING, (url) => port(url.host)),
  getter('getEscapedPath', STRING, (url) => escapePath(url.path)),
  getter('getQuery', mapOf(STRING, listOf(STRING)), (url) => query(url.query)),
];
