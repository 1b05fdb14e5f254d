/**
 * Reading a TLS client certificate as the apiserver's x509 authenticator does: the chain must
 * verify against the client CA (the TLS layer checked it: `TLSSocket.authorized`, with the
 * clientAuth purpose), the user is the Subject CN (an empty CN authenticates nobody by this
 * method), the groups are the Subject O values in order. Read once per connection.
 */
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/** ClientCertificate is what a connection's client certificate says about its user. */
export type ClientCertificate =
  /** No TLS, or no certificate sent (or one without a CN): other credentials decide. */
  | { readonly kind: 'none' }
  /** A certificate that does not verify against the client CA (foreign, expired, not for client auth). */
  | { readonly kind: 'invalid'; readonly reason: string }
  | {
      readonly kind: 'user';
      readonly name: string;
      readonly groups: readonly string[];
      /** `X509SHA256=<hex>` of the leaf's DER, the apiserver's credential id. */
      readonly credentialId: string;
    };

const NONE: ClientCertificate = { kind: 'none' };
const read = new WeakMap<Socket, ClientCertificate>();

/** clientCertificateOf reads the client certificate of the connection a request came on (cached per connection). */
export function clientCertificateOf(socket: Socket): ClientCertificate {
  if (!(socket instanceof TLSSocket)) return NONE;
  let known = read.get(socket);
  if (known === undefined) {
    known = readCertificate(socket);
    read.set(socket, known);
  }
  return known;
}

function readCertificate(socket: TLSSocket): ClientCertificate {
  const peer = socket.getPeerCertificate();
  if (peer === null || peer === undefined || Object.keys(peer).length === 0) return NONE;
  if (!socket.authorized) return { kind: 'invalid', reason: String(socket.authorizationError ?? 'unverified') };
  const subject = peer.subject as Readonly<Record<string, string | string[] | undefined>> | undefined;
  const name = first(subject?.['CN']);
  if (name === undefined || name === '') return NONE;
  return {
    kind: 'user',
    name,
    groups: all(subject?.['O']),
    credentialId: `X509SHA256=${createHash('sha256').update(peer.raw).digest('hex')}`,
  };
}

/** Node gives a repeated attribute as an array, a single one as a string. */
function all(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function first(value: string | string[] | undefined): string | undefined {
  return all(value)[0];
}
