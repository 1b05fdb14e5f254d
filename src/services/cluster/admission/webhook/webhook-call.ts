/**
 * One call of an admission webhook (1.32 `util/webhook/client.go`, `rest` client): a POST of the
 * review over HTTPS/1.1 to `<path>?timeout=<n>s`, trusting the configuration's `caBundle` (a CA, or
 * the serving leaf itself as envtest writes it: a partial chain is accepted, as Go trusts any
 * anchor) or the system roots when it is empty, verifying the certificate against the URL's host or
 * the Service's `<svc>.<ns>.svc` name. Bounded: the call ends at its timeout, the answer is read up to
 * MAX_RESPONSE_BYTES, and nothing is retried, so a webhook can never stall the server. Failures
 * read as Go's client prints them: `Post "<url>": context deadline exceeded`, `dial tcp <addr>:
 * connect: connection refused`, `tls: failed to verify certificate: x509: certificate signed by
 * unknown authority`.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';

/** MAX_RESPONSE_BYTES bounds a webhook's answer (a review the size of the largest object, with room). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** WebhookTarget is where a call goes: the dial address, the name the certificate must carry, the URL messages print. */
export interface WebhookTarget {
  readonly host: string;
  readonly port: number;
  /** The TLS server name (SNI and verification): the URL's host, or `<svc>.<ns>.svc`. */
  readonly serverName: string;
  readonly path: string;
  /** The URL as the apiserver's client prints it, without the query. */
  readonly url: string;
  /** PEM trust anchors from `caBundle`; undefined for the system roots. */
  readonly ca: string | undefined;
}

/** WebhookCallError is a call that did not produce an answer; `message` is the text after `failed to call webhook: `. */
export class WebhookCallError extends Error {
  override readonly name = 'WebhookCallError';
}

/** WebhookAnswer is a webhook's HTTP answer. */
export interface WebhookAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** WebhookAgents keeps one keep-alive agent per trust and server name (at most MAX_AGENTS, the oldest closed first), as the apiserver keeps one client per webhook configuration. */
export class WebhookAgents {
  static readonly MAX_AGENTS = 64;
  readonly #agents = new Map<string, Agent>();

  /** agentFor is the agent for a target's trust and server name. */
  agentFor(target: WebhookTarget): Agent {
    const key = `${target.serverName}\u0000${target.ca === undefined ? '' : createHash('sha256').update(target.ca).digest('hex')}`;
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = new Agent({
        keepAlive: true,
        maxSockets: 64,
        ...(target.ca === undefined ? {} : { ca: target.ca, allowPartialTrustChain: true }),
      } as ConstructorParameters<typeof Agent>[0]);
      this.#agents.set(key, agent);
      if (this.#agents.size > WebhookAgents.MAX_AGENTS) {
        const [oldest, old] = this.#agents.entries().next().value as [string, Agent];
        this.#agents.delete(oldest);
        old.destroy();
      }
    }
    return agent;
  }

  /** close ends the kept-alive connections (the server is closing). */
  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_SIGNATURE_FAILURE',
]);

/** goError is a Node failure as Go's net/http and crypto/tls print it. */
function goError(error: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }, target: WebhookTarget): string {
  const address = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (code === 'ECONNRESET') return `read tcp ${address}: read: connection reset by peer`;
  if (code === 'EHOSTUNREACH') return `dial tcp ${address}: connect: no route to host`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `dial tcp: lookup ${target.host}: no such host`;
  if (UNKNOWN_AUTHORITY.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = (error.cert?.subjectaltname ?? '')
      .split(', ')
      .map((entry) => entry.replace(/^(DNS|IP Address):/, ''))
      .filter((name) => name !== '');
    return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${target.serverName}`;
  }
  return error.message;
}

/**
 * callWebhook POSTs `body` and resolves with the answer, or rejects with a WebhookCallError whose
 * message is `Post "<url>?timeout=<n>s": <cause>`.
 */
export function callWebhook(agents: WebhookAgents, target: WebhookTarget, body: Buffer, timeoutSeconds: number): Promise<WebhookAnswer> {
  const query = `?timeout=${timeoutSeconds}s`;
  const describe = (cause: string): WebhookCallError => new WebhookCallError(`Post "${target.url}${query}": ${cause}`);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const isIp = /^[\d.]+$/.test(target.serverName) || target.serverName.includes(':');
    const call = request({
      host: target.host,
      port: target.port,
      method: 'POST',
      path: `${target.path}${query}`,
      agent: agents.agentFor(target),
      ...(isIp ? {} : { servername: target.serverName }),
      headers: {
        // The URL's authority as written (`<svc>.<ns>.svc:443` for a Service), as Go's client sends it.
        host: target.url.slice('https://'.length).split('/')[0]!,
        'content-type': 'application/json',
        accept: 'application/json, */*',
        'user-agent': 'kube-apiserver-admission',
        'content-length': String(body.length),
      },
      checkServerIdentity: (_host, cert) => tlsCheck(target.serverName, cert),
    });
    const timer = setTimeout(() => {
      finish(() => reject(describe('context deadline exceeded')));
      call.destroy();
    }, timeoutSeconds * 1000);
    call.on('error', (error) => finish(() => reject(describe(goError(error as NodeJS.ErrnoException, target)))));
    call.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          finish(() => reject(describe(`the response body exceeds ${MAX_RESPONSE_BYTES} bytes`)));
          call.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => finish(() => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) })));
      response.on('error', (error) => finish(() => reject(describe(goError(error as NodeJS.ErrnoException, target)))));
    });
    call.end(body);
  });
}

/** tlsCheck verifies the certificate against the expected name (an IP against IP SANs). */
function tlsCheck(serverName: string, cert: PeerCertificate): Error | undefined {
  return checkServerIdentity(serverName, cert);
}
