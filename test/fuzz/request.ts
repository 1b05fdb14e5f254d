/** FuzzRequest is one request exactly as it goes on the wire, with what it attacks. */
export interface FuzzRequest {
  /** The attack, for failure messages and the tally. */
  readonly attack: string;
  readonly method: string;
  /** The request-target as sent, unnormalised (it may be malformed on purpose). */
  readonly target: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer;
  /** `none` sends the body without Content-Length or Transfer-Encoding. */
  readonly framing?: 'length' | 'none';
  /** Bytes that replace the whole request (for heads no well-formed request has). */
  readonly raw?: Buffer;
}

/** toBytes serialises a FuzzRequest; framed requests ask the server to close, so the exchange ends with the answer. */
export function toBytes(request: FuzzRequest): Buffer {
  if (request.raw !== undefined) return request.raw;
  const framed = request.framing !== 'none';
  const lines = [`${request.method} ${request.target} HTTP/1.1`, 'Host: 127.0.0.1', ...request.headers.map(([name, value]) => `${name}: ${value}`)];
  if (framed) lines.push('Connection: close');
  if (request.body !== undefined && framed) lines.push(`Content-Length: ${request.body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return request.body === undefined ? head : Buffer.concat([head, request.body]);
}

/** pathOfTarget is the path part of a request-target, as core uses it to pick the family. */
export function pathOfTarget(target: string): string {
  // An absolute-form target (`http://host/path`) names its path after the authority.
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  const rest = origin === null ? target : target.slice(origin[0].length) || '/';
  const query = rest.search(/[?#]/);
  return query === -1 ? rest : rest.slice(0, query);
}

/**
 * targetAsSeen is the request-target the server can read from what was sent: a raw head's own
 * request line when it has one (a garbage head has none, and core answers it with its neutral
 * answer), the intended target otherwise.
 */
export function targetAsSeen(request: FuzzRequest): string {
  if (request.raw === undefined) return request.target;
  return /^[A-Z]+ (\S+) HTTP\//.exec(request.raw.toString('latin1'))?.[1] ?? '';
}
