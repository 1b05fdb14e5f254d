/**
 * Listeners a family opens beside the HTTP port (ServiceDefinition.listen): mail's SMTP
 * submission. startFogbank opens them after the HTTP port and before the ready line, lists their
 * addresses in the banner and closes them first on shutdown, so no new connection reaches a
 * family whose store is closing.
 */
import type { ServiceContext, ServiceDefinition } from './service.ts';

/** ListenerTls is what a family's listener serves TLS with: fogbank's serving certificate and the CA its clients trust (PEM). */
export interface ListenerTls {
  readonly cert: string;
  readonly key: string;
  /** The PEM certificates a client trusts (fogbank's CA, or the user's --tls-ca). */
  readonly trust: string;
}

/** ListenerContext is what a family's listener gets: the families' context (no singleton runner) and where and how to listen. */
export interface ListenerContext extends Omit<ServiceContext, 'singleton'> {
  /** The interface the HTTP port listens on (`--host`); a family's listener uses it too. */
  readonly host: string;
  /** TLS material, undefined when TLS is off. */
  readonly tls: (() => Promise<ListenerTls>) | undefined;
}

/** ListenerAddress is one open listener, as the banner and start() callers see it. */
export interface ListenerAddress {
  readonly family: string;
  /** What it is, e.g. `SMTP submission (STARTTLS)`. */
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** e.g. `smtp://127.0.0.1:2525`. */
  readonly url: string;
}

/** FamilyListener is a family's open listeners. */
export interface FamilyListener {
  readonly addresses: readonly ListenerAddress[];
  /** close stops accepting, ends the connections and resolves when they are gone. */
  close(): Promise<void>;
}

/** OpenListeners is every family's open listeners. */
export interface OpenListeners {
  readonly addresses: readonly ListenerAddress[];
  close(): Promise<void>;
}

/** openFamilyListeners opens every family's listeners; when one fails, those already open are closed and the error is thrown. */
export async function openFamilyListeners(services: readonly ServiceDefinition[], context: ListenerContext): Promise<OpenListeners> {
  const open: FamilyListener[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(open.map((listener) => listener.close()));
  };
  try {
    for (const service of services) {
      const listener = await service.listen?.(context);
      if (listener !== undefined) open.push(listener);
    }
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  return { addresses: open.flatMap((listener) => listener.addresses), close };
}
