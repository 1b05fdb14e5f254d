// One HTTP exchange through node:http (headers as sent, no fetch defaults), with a bearer token.
import { request } from 'node:http';

/** HttpAnswer is a whole answer: status, headers and the body as text. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** httpCall sends one request as `token` and resolves with the whole answer. */
export function httpCall(token: string, url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { authorization: `Bearer ${token}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
