import { connect } from 'node:net';

/** RawReply is the first HTTP response read back from a socket. */
export interface RawReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Everything the server sent before closing, for requests answered more than once. */
  readonly raw: string;
  /** Milliseconds from sending to a complete first response (for a stream: its head). */
  readonly elapsedMs: number;
}

/** RAW_TIMEOUT_MS bounds how long one raw exchange may take before the test fails instead of hanging. */
const RAW_TIMEOUT_MS = 10_000;

/**
 * sendRaw writes `bytes` exactly as given to host:port (no client-side checks, so malformed request
 * lines, unframed bodies and oversized heads reach the server) and reads until the server closes
 * or, once a complete first response with a Content-Length is in, until `settleMs` passes quietly.
 */
export function sendRaw(port: number, bytes: string | Buffer, settleMs = 50, timeoutMs = RAW_TIMEOUT_MS): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settle: NodeJS.Timeout | undefined;
    let completeAt: number | undefined;
    const finish = (): void => {
      clearTimeout(deadline);
      clearTimeout(settle);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('utf8');
      const reply = parseFirst(raw);
      if (reply === undefined)
        reject(new Error(`no HTTP response within ${Math.round(performance.now() - started)} ms; got ${JSON.stringify(raw.slice(0, 200))}`));
      else resolve({ status: reply.status, headers: reply.headers, body: reply.body, raw: reply.raw, elapsedMs: (completeAt ?? performance.now()) - started });
    };
    const deadline = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      clearTimeout(settle);
      if (parseFirst(Buffer.concat(chunks).toString('utf8'))?.complete) {
        completeAt ??= performance.now();
        settle = setTimeout(finish, settleMs);
      }
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}

function parseFirst(raw: string): (Omit<RawReply, 'elapsedMs'> & { complete: boolean }) | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'];
  const rest = Buffer.from(raw.slice(end + 4));
  const body = length === undefined ? rest.toString() : rest.subarray(0, Number(length)).toString();
  // A successful chunked answer may be a stream (a watch) that never ends: its head is the answer.
  const streaming = length === undefined && /chunked/i.test(headers['transfer-encoding'] ?? '') && Number(status) < 300;
  return { status: Number(status), headers, body, raw, complete: streaming || (length !== undefined && rest.length >= Number(length)) };
}
