/**
 * The request target, read once (RFC 9112 §3.2): what the policy decides on and what the upstream
 * is asked for are the same bytes. An origin-form target (`/a/b?q`) is taken as sent; an
 * absolute-form one (`http://h/a/b?q`) is reduced to its path and query as sent, its authority
 * standing for the Host (§3.2.2). `request.path` is the raw path and `request.query` the raw query
 * (Cloud Armor decodes neither), and the scheme is the connection's, never the request line's.
 *
 * A target that an upstream could read as another path than the one decided on is refused rather
 * than forwarded: dot segments in any spelling (`.`, `..`, `%2e`, `.%2E`…), which URL parsers
 * resolve (`/x/../admin` is `/admin`); backslashes, which they read as `/`; a path starting with
 * `//`, which they read as a host (`//admin/x` relative to a base is host `admin`); a fragment; the
 * asterisk and authority forms (`OPTIONS *`, `CONNECT`); an absolute-form target whose path a URL
 * parser would spell differently, or that carries credentials. Each refusal is a reason the guard
 * answers 400 with.
 */
import { BoundedMap } from '../lib/bounded-map.ts';

/** RequestTarget is a target the guard can decide on and forward faithfully. */
export interface RequestTarget {
  /** url is the absolute URL the policy sees: the connection's scheme, the host, the raw path and query. */
  readonly url: string;
  /** host is the Host the policy sees and the upstream receives (the authority of an absolute-form target). */
  readonly host: string;
  /** forward is the path and query sent to the upstream, byte for byte those the policy decided on. */
  readonly forward: string;
}

/** TargetRefusal is why a target cannot be forwarded faithfully. */
export interface TargetRefusal {
  readonly refused: string;
}

/** readTarget reads the request line's target with the request's Host for a connection of `scheme`. */
export function readTarget(target: string, host: string | undefined, scheme: 'http' | 'https'): RequestTarget | TargetRefusal {
  const shown = quote(target);
  if (hasControlOrSpace(target)) return { refused: `guard: the target ${shown} holds a space or a control character` };
  let authority: string;
  let forward: string;
  if (target.startsWith('/')) {
    if (host === undefined || host === '') return { refused: `guard: the request has no Host, so ${shown} is no URL` };
    authority = host;
    forward = target;
  } else {
    const absolute = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(target);
    if (absolute === null) {
      if (target === '*') return { refused: 'guard: an asterisk-form target (OPTIONS *) is not proxied' };
      return { refused: `guard: the target ${shown} is neither a path nor an absolute http URL` };
    }
    authority = absolute[2] ?? '';
    const rest = absolute[3] ?? '';
    forward = rest.startsWith('/') ? rest : `/${rest}`;
    if (authority === '') return { refused: `guard: the target ${shown} names no host` };
    if (authority.includes('@')) return { refused: `guard: the target ${shown} carries credentials` };
  }
  if (forward.includes('#')) return { refused: `guard: the target ${shown} carries a fragment, which no request may` };
  const query = forward.indexOf('?');
  const path = query === -1 ? forward : forward.slice(0, query);
  if (path.startsWith('//'))
    return { refused: `guard: the path of ${shown} starts with '//', which URL parsers read as a host name (a network-path reference)` };
  if (path.includes('\\')) return { refused: `guard: the path of ${shown} holds a backslash, which URL parsers read as '/'` };
  if (hasDotSegment(path)) return { refused: `guard: the path of ${shown} holds a dot segment, which URL parsers resolve to another path` };
  if (!hostParses(authority)) return { refused: `guard: the Host ${quote(authority)} is not a host name or address` };
  const url = `${scheme}://${authority}${forward}`;
  if (!target.startsWith('/')) {
    // What a URL parser makes of the absolute form's path must be the path forwarded, or the two differ.
    let normalised: string;
    try {
      normalised = new URL(url).pathname;
    } catch {
      return { refused: `guard: the target ${shown} is not a URL` };
    }
    if (normalised !== path)
      return { refused: `guard: the path of ${shown} reads as '${normalised.slice(0, 200)}' once normalised; send the path as it should be read` };
  }
  return { url, host: authority, forward };
}

/** DOT_SEGMENT is a path segment that means `.` or `..`, in any mix of `.` and `%2e`. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** hasDotSegment says whether a raw path has a segment URL parsers resolve (`.`, `..`, `%2e`, `.%2E`…). */
function hasDotSegment(path: string): boolean {
  if (!path.includes('.') && !/%2e/i.test(path)) return false;
  return path.split('/').some((segment) => DOT_SEGMENT.test(segment));
}

/** parsesAsHost remembers whether `http://HOST/` parses, per Host (bounded). */
const parsesAsHost = new BoundedMap<string, boolean>(1024);

/** hostParses says whether the Host is a host name or address (with an optional port) and nothing else. */
function hostParses(host: string): boolean {
  if (/[\s/?#@\\,]/.test(host)) return false;
  let parses = parsesAsHost.get(host);
  if (parses === undefined) {
    parses = URL.canParse(`http://${host}/`);
    if (host.length <= 256) parsesAsHost.set(host, parses);
  }
  return parses;
}

/** quote shows a client's text in a message: quoted, cut to 200 characters. */
function quote(text: string): string {
  return `'${text.slice(0, 200)}'`;
}

/** hasControlOrSpace says whether the text holds whitespace or a control character (no target on the wire does). */
function hasControlOrSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return true;
  }
  return /\s/.test(text);
}
