/**
 * What a rule's `headerAction.requestHeadersToAdds` may hold: headers a proxy can write into the
 * request it forwards without changing how that request is framed or routed. Cloud Armor's
 * documentation says nothing of the texts it accepts; the load balancer's custom headers must be
 * RFC 9110 field names and values, and may not be hop-by-hop headers. So a name is an HTTP token
 * and not one of the headers that frame or route a request (Host, Content-Length,
 * Transfer-Encoding, Connection and the other hop-by-hop ones), and a value is visible ASCII,
 * spaces and tabs, with no whitespace at either end (a receiver would trim it). The API refuses
 * the rest, and the guard refuses to enforce a stored rule that holds one (src/guard/).
 */
import { HOP_BY_HOP } from '../../../lib/hop-by-hop.ts';

/** TOKEN is an RFC 9110 §5.6.2 token, the grammar of a field name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** FIELD_VALUE is visible ASCII, spaces and tabs, not starting or ending with whitespace. */
const FIELD_VALUE = /^(?:[\x21-\x7e](?:[\t\x20-\x7e]*[\x21-\x7e])?)?$/;

/** UNADDABLE_HEADERS frame or route the request, or belong to one connection: a header action cannot set them. */
export const UNADDABLE_HEADERS: ReadonlySet<string> = new Set([...HOP_BY_HOP, 'content-length', 'host']);

/** HEADER_ACTION_MESSAGES are the reasons of the API's INVALID_FIELD_VALUE for a header it refuses. */
export const HEADER_ACTION_MESSAGES = {
  name: "Header name must be an HTTP token: letters, digits and !#$%&'*+-.^_`|~.",
  reserved:
    'Header name must not be one that frames or routes the request: Connection, Content-Length, Host, Keep-Alive, Proxy-Authenticate, Proxy-Authorization, Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade.',
  value: 'Header value must be visible ASCII characters, spaces and tabs, and must not start or end with whitespace.',
} as const;

/** HeaderActionProblem is which half of a header is refused, and why. */
export interface HeaderActionProblem {
  readonly part: 'headerName' | 'headerValue';
  readonly reason: string;
}

/** headerActionProblem is why a header to add cannot be written, or undefined when it can. */
export function headerActionProblem(name: string, value: string): HeaderActionProblem | undefined {
  if (!TOKEN.test(name)) return { part: 'headerName', reason: HEADER_ACTION_MESSAGES.name };
  if (UNADDABLE_HEADERS.has(name.toLowerCase())) return { part: 'headerName', reason: HEADER_ACTION_MESSAGES.reserved };
  if (!FIELD_VALUE.test(value)) return { part: 'headerValue', reason: HEADER_ACTION_MESSAGES.value };
  return undefined;
}
