import type { Readable } from 'node:stream';
import type { Transporter } from 'nodemailer';
import type { Store } from '../../store/store.ts';
import { key, KINDS, type MessageRecord, type RelayState } from './model.ts';

/**
 * Relay forwards every delivered message over SMTP (`--mail-relay smtp://host:port`) to a
 * catcher such as Mailpit, with nodemailer as the SMTP client. It runs after the send has been
 * answered; its outcome is recorded on the sender's message (`relay`), and a failure never
 * touches the stored messages.
 */
export class Relay {
  readonly #transport: Promise<Transporter>;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    url: string,
    private readonly store: Store,
  ) {
    // A local catcher rarely has a certificate; no TLS upgrade unless smtps:// is asked for.
    // The SMTP client loads only when a relay is configured (start-up time).
    this.#transport = import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ url, ignoreTLS: !url.startsWith('smtps:'), pool: true, maxConnections: 4 }),
    );
  }

  /** forward relays the raw message (its bytes, or a function opening them) from `from` to every recipient and records the outcome on the sender's message. */
  forward(mailbox: string, messageId: string, raw: Buffer | (() => Readable), from: string, to: readonly string[]): void {
    if (to.length === 0) return;
    const job = this.#transport
      .then((transport) => transport.sendMail({ envelope: { from, to: [...to] }, raw: Buffer.isBuffer(raw) ? raw : raw() }))
      .then(
        (info: { response?: unknown }) => this.#record(mailbox, messageId, { state: 'relayed', detail: String(info.response ?? '') }),
        (error: unknown) => this.#record(mailbox, messageId, { state: 'failed', detail: error instanceof Error ? error.message : String(error) }),
      )
      .catch(() => undefined)
      .finally(() => this.#inFlight.delete(job));
    this.#inFlight.add(job);
  }

  /** close waits for relays in flight, then closes the SMTP connections. */
  async close(): Promise<void> {
    await Promise.all([...this.#inFlight]);
    (await this.#transport).close();
  }

  async #record(mailbox: string, messageId: string, relay: RelayState): Promise<void> {
    await this.store.transact(async (tx) => {
      const current = await tx.get<MessageRecord>(KINDS.messages, key(mailbox, messageId));
      if (current !== undefined) await tx.put(KINDS.messages, key(mailbox, messageId), { ...current.value, relay });
    });
  }
}
