/**
 * The SMTP submission listener (issue 40): smtp.gmail.com in front of fogbank's mailboxes. The
 * protocol is smtp-server's, spoken in Gmail's dialect (gmail-dialect.ts); AUTH is fogbank's
 * tokens (smtp-auth.ts); a message is delivered by the family's ComposeService exactly as a
 * messages.send from the authenticated user (the sender's SENT copy, one INBOX/UNREAD copy per
 * envelope recipient, threads, history, the recipient limit, the relay), in one transaction:
 * in every mailbox or in none. Each end of DATA (and each refused AUTH) is a journal entry of
 * the mail family (`smtp.DATA`, `smtp.AUTH`), with the SMTP reply code as its status.
 */
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { OptionError, optionValue } from '../../../core/family-options.ts';
import type { FamilyListener, ListenerAddress, ListenerContext } from '../../../core/family-listeners.ts';
import type { CapturedBody } from '../../../core/journal.ts';
import { hexId } from '../../../lib/ids.ts';
import { ComposeService } from '../compose-service.ts';
import { MailError } from '../errors.ts';
import { openMessageFiles } from '../message-files.ts';
import { isDeliverableAddress } from '../mime/addresses.ts';
import { MAIL_MAX_RECIPIENTS_OPTION, MAIL_RELAY_OPTION } from '../options.ts';
import { MAX_RECIPIENTS_PER_MESSAGE } from '../recipient-limit.ts';
import { Relay } from '../relay.ts';
import { BufferBudget } from './buffer-budget.ts';
import { readIntake } from './data-intake.ts';
import { AUTH_REQUIRED_MARK, speakGmail } from './gmail-dialect.ts';
import { GMAIL, type GmailReply, MAX_MESSAGE_BYTES, SMTP_HOST, SmtpReply, XOAUTH2_CHALLENGE } from './gmail-replies.ts';
import { authenticateSmtp, type SmtpUser } from './smtp-auth.ts';
import { SMTP_JOURNAL_PATH } from './smtp-method-id.ts';
import {
  DEFAULT_SMTP_BUFFER_LIMIT,
  SMTP_AUTH_OPTION,
  SMTP_BUFFER_LIMIT_OPTION,
  SMTP_PORT_OPTION,
  SMTPS_PORT_OPTION,
  type SmtpAuthMode,
} from './smtp-options.ts';

/** SmtpLimits are the listener's limits; tests shorten the timeouts. */
export interface SmtpLimits {
  /** Connections open at once per port; one more is answered 421 and closed (default 256). */
  readonly maxConnections: number;
  /** How long a connection may sit without sending a byte (default 5 minutes, RFC 5321's command timeout). */
  readonly idleMs: number;
  /** How long one DATA may take from its 354 to its final dot (default 10 minutes, RFC 5321's data termination timeout). */
  readonly dataMs: number;
  /** The largest message (default smtp.gmail.com's SIZE, 35,882,577 bytes). */
  readonly maxBytes: number;
}

/** SmtpBuffers is how much message data the listener holds in memory at once, across its connections and ports. */
export interface SmtpBuffers {
  /** The shared budget; when absent, one of `--smtp-buffer-limit` bytes (default 128 MiB). Tests pass their own to watch it. */
  readonly budget?: BufferBudget;
}

export const DEFAULT_SMTP_LIMITS: SmtpLimits = { maxConnections: 256, idleMs: 5 * 60_000, dataMs: 10 * 60_000, maxBytes: MAX_MESSAGE_BYTES };

/** How long shutdown waits for a message being received or stored before cutting its connection. */
const CLOSE_GRACE_MS = 5_000;

/** openSmtpListeners opens `--smtp-port` (STARTTLS) and `--smtps-port` (implicit TLS) when asked (mailService.listen). */
export async function openSmtpListeners(
  context: ListenerContext,
  limits: SmtpLimits = DEFAULT_SMTP_LIMITS,
  buffers: SmtpBuffers = {},
): Promise<FamilyListener | undefined> {
  const plainPort = optionValue(SMTP_PORT_OPTION, context.options);
  const tlsPort = optionValue(SMTPS_PORT_OPTION, context.options);
  if (plainPort === undefined && tlsPort === undefined) return undefined;
  const authMode = optionValue(SMTP_AUTH_OPTION, context.options) ?? 'token';
  if (authMode === 'none' && !isLoopback(context.host))
    throw new OptionError(
      `--smtp-auth none accepts mail from anyone, so it listens on loopback only: --host must be 127.0.0.1, ::1 or localhost, not '${context.host}'`,
    );
  const tls = context.tls === undefined ? undefined : await context.tls();
  if (tlsPort !== undefined && tls === undefined) throw new OptionError('--smtps-port serves implicit TLS, and TLS is off (--no-tls)');
  const files = await openMessageFiles(context.store);
  const relayUrl = optionValue(MAIL_RELAY_OPTION, context.options);
  const relay = relayUrl === undefined ? undefined : new Relay(relayUrl, context.store);
  const maxRecipients = optionValue(MAIL_MAX_RECIPIENTS_OPTION, context.options) ?? MAX_RECIPIENTS_PER_MESSAGE;
  const compose = new ComposeService(context.store, context.clock, context.ids, files, relay, maxRecipients);
  const budget = buffers.budget ?? new BufferBudget(optionValue(SMTP_BUFFER_LIMIT_OPTION, context.options) ?? DEFAULT_SMTP_BUFFER_LIMIT);
  const submission = new Submission(context, compose, authMode, maxRecipients, limits, budget);
  const servers: { server: SMTPServer; address: ListenerAddress }[] = [];
  try {
    if (plainPort !== undefined) servers.push(await submission.listen(plainPort, tls === undefined ? 'plain' : { startTls: tls }));
    if (tlsPort !== undefined && tls !== undefined) servers.push(await submission.listen(tlsPort, { implicit: tls }));
  } catch (error) {
    await Promise.all(servers.map(({ server }) => submission.close(server)));
    await relay?.close();
    throw error;
  }
  return {
    addresses: servers.map(({ address }) => address),
    async close() {
      await Promise.all(servers.map(({ server }) => submission.close(server)));
      await relay?.close();
    },
  };
}

type Security = 'plain' | { readonly startTls: TlsPair } | { readonly implicit: TlsPair };
interface TlsPair {
  readonly cert: string;
  readonly key: string;
}

/** Submission is what every port of the listener shares: authentication, envelope checks, delivery, the journal. */
class Submission {
  /** Sessions receiving or storing a message: shutdown lets them finish (CLOSE_GRACE_MS). */
  readonly #busy = new Set<SMTPServerSession>();

  constructor(
    private readonly context: ListenerContext,
    private readonly compose: ComposeService,
    private readonly authMode: SmtpAuthMode,
    private readonly maxRecipients: number,
    private readonly limits: SmtpLimits,
    private readonly budget: BufferBudget,
  ) {}

  async listen(port: number, security: Security): Promise<{ server: SMTPServer; address: ListenerAddress }> {
    const implicit = typeof security === 'object' && 'implicit' in security;
    const pair = security === 'plain' ? undefined : 'implicit' in security ? security.implicit : security.startTls;
    const options: SMTPServerOptions = {
      name: SMTP_HOST,
      heloResponse: '%s at your service',
      size: this.limits.maxBytes,
      authMethods: ['PLAIN', 'LOGIN', 'XOAUTH2'],
      authOptional: this.authMode === 'none',
      disabledCommands: this.authMode === 'none' ? ['AUTH'] : [],
      authRequiredMessage: AUTH_REQUIRED_MARK,
      // Without TLS material (--no-tls) there is no STARTTLS to require first.
      allowInsecureAuth: pair === undefined,
      hideSTARTTLS: pair === undefined || implicit,
      hideDSN: true,
      hideREQUIRETLS: true,
      disableReverseLookup: true,
      logger: false,
      maxClients: this.limits.maxConnections,
      socketTimeout: this.limits.idleMs,
      closeTimeout: CLOSE_GRACE_MS,
      // The 101st RCPT is refused by onRcptTo with Gmail's 452, not the library's.
      maxAllowedUnauthenticatedCommands: 20,
      ...(pair === undefined ? {} : { key: pair.key, cert: pair.cert }),
      ...(implicit ? { secure: true } : {}),
      onAuth: (auth, _session, callback) => this.#onAuth(auth, callback),
      onMailFrom: (address, _session, callback) => callback(this.#mailFrom(address.address, address.args)),
      onRcptTo: (address, session, callback) => callback(this.#rcptTo(address.address, session)),
      onData: (stream, session, callback) => {
        this.#onData(stream, session).then(
          (reply) => callback(reply.code === 250 ? null : new SmtpReply(reply), reply.code === 250 ? reply.lines.join('\n') : undefined),
          () => callback(new SmtpReply(GMAIL.temporaryProblem)),
        );
      },
    };
    const server = new SMTPServer(options);
    speakGmail(server, {
      startTls: pair !== undefined && !implicit,
      auth: this.authMode === 'token',
      dataTimeoutMs: this.limits.dataMs,
      sessionId: () => gmailSessionId(this.context),
    });
    // Errors of one connection (a reset, a failed handshake) are that connection's; the listener goes on.
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, this.context.host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    const bound = server.server.address();
    const actual = typeof bound === 'object' && bound !== null ? bound.port : port;
    const host = this.context.host.includes(':') ? `[${this.context.host}]` : this.context.host;
    const scheme = implicit ? 'smtps' : 'smtp';
    const name = implicit ? 'SMTP submission (implicit TLS)' : pair === undefined ? 'SMTP submission' : 'SMTP submission (STARTTLS)';
    return { server, address: { family: 'mail', name, host: this.context.host, port: actual, url: `${scheme}://${host}:${actual}` } };
  }

  /** close stops accepting, ends idle connections at once with Gmail's 421, and lets a message in progress finish (at most CLOSE_GRACE_MS). */
  async close(server: SMTPServer): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const connection of server.connections) if (!this.#busy.has(connection.session)) connection.send(421, 'Server shutting down');
    await closed;
  }

  #onAuth(auth: SMTPServerAuthentication, callback: (error: Error | null | undefined, response?: { user?: unknown; data?: object }) => void): void {
    const token = auth.method === 'XOAUTH2' ? (auth.accessToken ?? '') : (auth.password ?? '');
    const user = authenticateSmtp(this.context.auth, auth.username ?? '', token);
    if (user !== undefined) {
      callback(null, { user });
      return;
    }
    this.#journal('AUTH', 535, undefined, 0);
    // XOAUTH2 answers a bad token with Gmail's JSON challenge first; the client's next line gets the 535.
    if (auth.method === 'XOAUTH2') callback(null, { data: XOAUTH2_CHALLENGE });
    else callback(new SmtpReply(GMAIL.badCredentials));
  }

  #mailFrom(address: string, args: unknown): Error | undefined {
    // A null reverse path (`MAIL FROM:<>`) is taken from an authenticated user; a catch-all needs a sender's mailbox.
    if (address !== '' || this.authMode !== 'token') {
      if (!isDeliverableAddress(address)) return new SmtpReply(GMAIL.invalidSender(address));
    }
    // A declared SIZE (the library has refused one past the limit) that the buffer has no room for
    // now is refused for now, before its bytes are sent, as a server with a full queue does.
    const declared = typeof args === 'object' && args !== null && 'SIZE' in args ? Number(args.SIZE) : 0;
    if (declared > this.budget.free) return new SmtpReply(GMAIL.insufficientStorage);
    return undefined;
  }

  #rcptTo(address: string, session: SMTPServerSession): Error | undefined {
    if (!isDeliverableAddress(address)) return new SmtpReply(GMAIL.invalidRecipient(address));
    const known = session.envelope.rcptTo.some((rcpt) => rcpt.address.toLowerCase() === address.toLowerCase());
    // Gmail takes recipients up to the limit and refuses the rest (nodemailer#528).
    if (!known && session.envelope.rcptTo.length >= this.maxRecipients) return new SmtpReply(GMAIL.tooManyRecipients);
    return undefined;
  }

  async #onData(stream: import('node:stream').Readable, session: SMTPServerSession): Promise<GmailReply> {
    const started = performance.now();
    this.#busy.add(session);
    const share = this.budget.open();
    try {
      const intake = await readIntake(stream, this.limits.maxBytes, share);
      const user = session.user as SmtpUser | undefined;
      let reply: GmailReply;
      let bytes: Buffer | undefined;
      if (intake.kind === 'too-large') reply = GMAIL.tooLarge;
      else if (intake.kind === 'no-room') reply = GMAIL.insufficientStorage;
      else if (intake.kind === 'nul') reply = GMAIL.nul;
      else if (intake.kind === 'bare-lf') reply = GMAIL.bareLf;
      else if (intake.kind === 'cut-off') reply = GMAIL.timeout;
      else {
        bytes = intake.bytes;
        reply = await this.#deliver(bytes, session, user);
      }
      this.#journal('DATA', reply.code, user, performance.now() - started, bytes);
      return reply;
    } finally {
      // Held until the message is stored (or refused): delivery works on these bytes.
      share.release();
      this.#busy.delete(session);
    }
  }

  async #deliver(bytes: Buffer, session: SMTPServerSession, user: SmtpUser | undefined): Promise<GmailReply> {
    const from = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address.toLowerCase();
    // The authenticated user's mailbox sends (a From that is not theirs is rewritten, as Gmail's
    // send-as does); a catch-all sends from the envelope sender's.
    const mailbox = user?.mailbox ?? from;
    const envelope = [...new Set(session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()))];
    try {
      await this.compose.submit(mailbox, { kind: 'bytes', bytes }, envelope);
      return GMAIL.accepted(Math.floor(this.context.clock.now() / 1000));
    } catch (error) {
      if (error instanceof MailError && error.httpStatus === 400) return GMAIL.rejected(error.message);
      throw error;
    }
  }

  #journal(command: string, status: number, user: SmtpUser | undefined, latencyMs: number, bytes?: Buffer): void {
    const journal = this.context.control?.requests.journal;
    if (journal === undefined) return;
    const url = `${SMTP_JOURNAL_PATH}${command}`;
    const requestBody: CapturedBody | undefined =
      bytes === undefined || journal.bodyLimit === 0
        ? undefined
        : { contentType: 'message/rfc822', bytes: bytes.subarray(0, journal.bodyLimit), size: bytes.length };
    journal.record({
      time: this.context.clock.now(),
      family: 'mail',
      httpMethod: 'SMTP',
      url,
      routedUrl: url,
      authorization: user === undefined ? undefined : `Bearer ${user.token}`,
      status,
      latencyMs: Math.round(latencyMs * 1000) / 1000,
      fault: null,
      ...(requestBody === undefined ? {} : { requestBody }),
    });
  }
}

/** gmailSessionId is a session id in Gmail's shape (`98e67ed59e1d1-3276f57b227sm30235195a91.6`). */
function gmailSessionId(context: ListenerContext): string {
  const digits = Number.parseInt(hexId(context.ids, 4), 16) % 100_000_000;
  return `${hexId(context.ids, 7).slice(0, 13)}-${hexId(context.ids, 6).slice(0, 11)}sm${String(digits).padStart(8, '0')}a91.${Number.parseInt(hexId(context.ids, 1), 16) % 10}`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
