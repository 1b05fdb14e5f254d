/**
 * The Gmail dialect over smtp-server: the library runs the protocol (command parsing, pipelining,
 * dot-unstuffing, STARTTLS, SASL), and this thin layer makes what it says smtp.gmail.com's
 * (gmail-replies.ts) where the library as shipped cannot (shared/reference/smtp-and-distribution.md
 * A5): its fixed texts and its 538 become Gmail's replies, one enhanced status code on every line
 * and the session's id at the end, multi-line where Gmail folds (a handler's error can only be one
 * line in the library: its send() turns line breaks into spaces), and the EHLO list is Gmail's,
 * in Gmail's order, with AUTH offered only once TLS is up (the library offers it before STARTTLS).
 *
 * It is installed on each connection before the library's init() runs (the server's
 * `connections.add`, which the library calls right before init), as a wrapper of the
 * connection's send() and EHLO/DATA handlers: nothing of the library is copied or patched globally.
 */
import type { SMTPServer } from 'smtp-server';
import type { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import { GMAIL, type GmailReply, gsmtp, MAX_MESSAGE_BYTES } from './gmail-replies.ts';

/** DialectSettings are what the EHLO list and the 530s depend on. */
export interface DialectSettings {
  /** STARTTLS is offered on this listener (a plain port with TLS material). */
  readonly startTls: boolean;
  /** AUTH is offered (not with `--smtp-auth none`). */
  readonly auth: boolean;
  /** The session id of a new connection (Gmail's `<sid>`). */
  sessionId(): string;
  /** How long one DATA may take from its 354 to its final dot, in milliseconds. */
  readonly dataTimeoutMs: number;
}

/** ENHANCED is a reply's own enhanced status code at its start (our replies always carry one). */
const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;

/** Replies the library writes with its own words, as Gmail words them (the STARTTLS and AUTH successes carry no sid). */
const LIBRARY_TEXTS: ReadonlyMap<string, GmailReply> = new Map([
  ['Ready to start TLS', GMAIL.startTls],
  ['Authentication successful', GMAIL.authenticated],
  ['End data with <CR><LF>.<CR><LF>', GMAIL.goAhead],
  ['Flushed', GMAIL.flushed],
  ['OK', GMAIL.ok],
  ['Bye', GMAIL.closing],
  ['Error: Username and Password not accepted', GMAIL.badCredentials],
  ['Error: Must issue a STARTTLS command first', GMAIL.mustStartTls],
  ['Error: No identity changes permitted', GMAIL.noIdentityChanges],
  ['Error: Unrecognized authentication type', GMAIL.unknownMechanism],
  ['Error: command not recognized', GMAIL.unrecognized],
  ['Error: invalid userdata', GMAIL.cannotDecode],
  ['Error: missing username', GMAIL.cannotDecode],
  ['Timeout - closing connection', GMAIL.timeout],
  ['Server shutting down', GMAIL.unavailable],
]);

const LIBRARY_PATTERNS: readonly (readonly [RegExp, GmailReply])[] = [
  [/^Error: (send HELO\/EHLO first|need MAIL command|need RCPT command|nested MAIL command)/, GMAIL.badSequence],
  [/^Error: (syntax: EHLO|Syntax: HELO|Bad hostname)/i, GMAIL.heloInvalid],
  [/^Error: syntax: AUTH/, GMAIL.cannotDecode],
  [/^Error: Bad (sender|recipient) address syntax/, GMAIL.syntaxError],
  [/^Error: message exceeds fixed maximum message size/, GMAIL.tooLarge],
  [/Too many connected clients/, GMAIL.tryLater],
  [/^Error: too many (unrecognized|unauthenticated) commands/, { code: 421, lines: ['4.7.0 Too many invalid commands, closing connection.'] }],
];

/** The replies that end without ` <sid> - gsmtp` (a 334 challenge is never translated). */
const WITHOUT_SID = new Set<GmailReply>([GMAIL.startTls, GMAIL.authenticated]);

const ENHANCED_BY_CODE: Readonly<Record<number, string>> = {
  421: '4.7.0',
  450: '4.2.1',
  451: '4.3.0',
  452: '4.5.3',
  454: '4.7.0',
  500: '5.5.1',
  501: '5.5.2',
  502: '5.5.1',
  503: '5.5.1',
  504: '5.5.4',
  535: '5.7.8',
  550: '5.7.1',
  552: '5.3.4',
  553: '5.1.3',
  554: '5.6.0',
};

/** AUTH_REQUIRED_MARK is the library's authRequiredMessage: a word the dialect turns into the 530 for the connection's state. */
export const AUTH_REQUIRED_MARK = 'fogbank:auth-required';

/** speakGmail makes every connection of `server` speak Gmail's dialect. */
export function speakGmail(server: SMTPServer, settings: DialectSettings): void {
  const add = server.connections.add.bind(server.connections);
  server.connections.add = (connection: SMTPConnection) => {
    wrapConnection(connection, settings);
    return add(connection);
  };
}

function wrapConnection(connection: SMTPConnection, settings: DialectSettings): void {
  const send = connection.send.bind(connection);
  const sid = settings.sessionId();
  let ehlo = false;
  let dataDeadline: NodeJS.Timeout | undefined;
  connection.send = (code: number, data?: string | string[] | null, context?: string | false) => {
    if (code === 334) return send(code, data, false);
    if (dataDeadline !== undefined && code !== 354) {
      clearTimeout(dataDeadline);
      dataDeadline = undefined;
    }
    const reply = translate(connection, code, data, context, ehlo, settings);
    // The greeting's answers (EHLO's list, HELO's line) carry no sid, as Gmail's.
    const plain = WITHOUT_SID.has(reply) || (ehlo && code === 250);
    ehlo = false;
    const lines = plain ? reply.lines : gsmtp(reply, sid).lines;
    send(reply.code, lines.length === 1 ? lines[0]! : [...lines], false);
    // The library closes after its own 421s; ours (a translated 421) close the same way, by code.
  };
  const handleEhlo = connection.handler_EHLO.bind(connection);
  connection.handler_EHLO = (command, callback) => {
    ehlo = true;
    handleEhlo(command, callback);
  };
  const handleHelo = connection.handler_HELO.bind(connection);
  connection.handler_HELO = (command, callback) => {
    ehlo = true;
    handleHelo(command, callback);
  };
  // The library answers HELP twice (214, then 250), which puts a pipelining client one reply behind; Gmail answers once.
  connection.handler_HELP = (_command, callback) => {
    connection.send(GMAIL.help.code, GMAIL.help.lines[0]);
    callback();
  };
  const handleData = connection.handler_DATA.bind(connection);
  connection.handler_DATA = (command, callback) => {
    handleData(command, callback);
    // A DATA that never ends (bytes trickling in, so the idle timeout never fires) is cut off: the
    // message is not delivered (the stream is destroyed with the connection).
    if (connection.session.envelope.rcptTo.length > 0) {
      dataDeadline = setTimeout(() => connection.send(421, 'Timeout - closing connection'), settings.dataTimeoutMs);
      dataDeadline.unref();
    }
  };
}

function translate(
  connection: SMTPConnection,
  code: number,
  data: string | string[] | null | undefined,
  context: string | false | undefined,
  ehlo: boolean,
  settings: DialectSettings,
): GmailReply {
  if (Array.isArray(data)) return ehlo && code === 250 ? ehloReply(connection, settings) : { code, lines: data };
  const text = data ?? '';
  if (ENHANCED.test(text)) return { code, lines: text.split('\n') };
  if (code === 220 && text.includes(' ESMTP')) return GMAIL.greeting;
  if (code === 250 && context === 'MAIL_FROM_OK') return GMAIL.mailFromOk;
  if (code === 250 && context === 'RCPT_TO_OK') return GMAIL.rcptToOk;
  if (code === 530 && text === AUTH_REQUIRED_MARK) return settings.startTls && !connection.secure ? GMAIL.mustStartTls : GMAIL.authRequired;
  if (code === 250 && ehlo) return { code, lines: [text] };
  const known = LIBRARY_TEXTS.get(text);
  if (known !== undefined) return known;
  for (const [pattern, reply] of LIBRARY_PATTERNS) if (pattern.test(text)) return reply;
  const enhanced = ENHANCED_BY_CODE[code] ?? `${String(code)[0]}.0.0`;
  return { code, lines: [`${enhanced} ${text.replace(/^Error: /, '')}`] };
}

/** ehloReply is Gmail's EHLO list (A1): SIZE, 8BITMIME, then STARTTLS before TLS or AUTH after it, ENHANCEDSTATUSCODES, PIPELINING, SMTPUTF8. */
function ehloReply(connection: SMTPConnection, settings: DialectSettings): GmailReply {
  const beforeTls = settings.startTls && !connection.secure;
  const lines = [GMAIL.ehlo(connection.remoteAddress), `SIZE ${MAX_MESSAGE_BYTES}`, '8BITMIME'];
  if (beforeTls) lines.push('STARTTLS');
  else if (settings.auth && !connection.session.user) lines.push('AUTH LOGIN PLAIN XOAUTH2');
  lines.push('ENHANCEDSTATUSCODES', 'PIPELINING', 'SMTPUTF8');
  return { code: 250, lines };
}
