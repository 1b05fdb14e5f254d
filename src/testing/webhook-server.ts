/**
 * An admission webhook server for tests and the bench: node:https on 127.0.0.1 with a serving
 * certificate from a CA of its own (not fogbank's), answering AdmissionReviews by path with the
 * test's handlers. `caBundle` trusts its CA; `leafBundle` is the serving certificate itself, as
 * envtest writes caBundle. A handler may answer a response, raw bytes, or never (a webhook that
 * hangs); every connection is destroyed on close.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { issueCa, issueServing } from '../core/tls/certificates.ts';

/** ReviewRequest is the `request` of an AdmissionReview as a handler reads it. */
// biome-ignore lint/suspicious/noExplicitAny: handlers read arbitrary members of the request's objects
export type ReviewRequest = Record<string, any>;

/** HandlerAnswer is what a handler answers: the review's `response` members (uid is filled in), raw text with a status, or 'hang'. */
export type HandlerAnswer = Record<string, unknown> | { readonly raw: string; readonly status?: number } | 'hang';

/** WebhookServer is a running webhook server. */
export interface WebhookServer {
  readonly port: number;
  /** base is `https://127.0.0.1:<port>`. */
  readonly base: string;
  /** caBundle is the base64 PEM of the server's CA; leafBundle that of its serving certificate. */
  readonly caBundle: string;
  readonly leafBundle: string;
  /** calls are the reviews received, by path, oldest first. */
  readonly calls: { readonly path: string; readonly url: string; readonly headers: Record<string, unknown>; readonly review: ReviewRequest }[];
  handle(path: string, handler: (request: ReviewRequest) => HandlerAnswer): void;
  close(): Promise<void>;
}

/** startWebhookServer starts one on a free port; `names` are extra DNS names its certificate carries (a Service's `<svc>.<ns>.svc`). */
export async function startWebhookServer(names: readonly string[] = []): Promise<WebhookServer> {
  const now = Date.now();
  const ca = await issueCa({ now, serial: randomBytes(16) }, { commonName: 'webhook-test-ca', organizations: ['tests'] });
  const leaf = await issueServing(ca, ['localhost', '127.0.0.1', ...names], { now, serial: randomBytes(16) });
  const handlers = new Map<string, (request: ReviewRequest) => HandlerAnswer>();
  const calls: WebhookServer['calls'][number][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: leaf.certificate, key: leaf.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = request.url ?? '/';
      const path = url.split('?')[0]!;
      let review: ReviewRequest = {};
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReviewRequest;
      } catch {
        // answered below as the handler decides
      }
      calls.push({ path, url, headers: request.headers, review: review['request'] ?? {} });
      const handler = handlers.get(path);
      if (handler === undefined) {
        response.writeHead(404).end('404 page not found');
        return;
      }
      const answer = handler(review['request'] ?? {});
      if (answer === 'hang') return;
      if ('raw' in answer && typeof answer.raw === 'string') {
        response.writeHead((answer as { status?: number }).status ?? 200, { 'content-type': 'application/json' }).end(answer.raw);
        return;
      }
      const body = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review['request']?.uid, ...answer } };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(ca.certificate).toString('base64'),
    leafBundle: Buffer.from(leaf.certificate).toString('base64'),
    calls,
    handle: (path, handler) => handlers.set(path, handler),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** jsonPatch encodes JSON patch operations as a response's `patch`. */
export function jsonPatch(operations: readonly unknown[]): { patch: string; patchType: 'JSONPatch' } {
  return { patch: Buffer.from(JSON.stringify(operations)).toString('base64'), patchType: 'JSONPatch' };
}
