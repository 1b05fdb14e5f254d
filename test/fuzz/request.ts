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
  const query = target.search(/[?#]/);
  return query === -1 ? target : target.slice(0, query);
}
