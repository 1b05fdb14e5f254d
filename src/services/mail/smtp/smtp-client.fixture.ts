/**
 * A raw SMTP client for tests: it writes command lines and reads whole replies (every line of a
 * multi-line one), so a test can hold each reply to Gmail's exact text; `startTls` upgrades the
 * connection trusting the CA given.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';

/** SmtpDialogue is one connection's conversation. */
export class SmtpDialogue {
  #socket: Socket | TLSSocket;
  #buffer = '';
  #waiting: (() => void) | undefined;
  #closed = false;

  private constructor(socket: Socket | TLSSocket) {
    this.#socket = socket;
    this.#listen(socket);
  }

  /** open connects (over TLS from the first byte when `tls` is given) and reads the greeting. */
  static async open(port: number, tls?: { ca: string }): Promise<{ dialogue: SmtpDialogue; greeting: string }> {
    const socket = tls === undefined ? connectTcp({ host: '127.0.0.1', port }) : connectTls({ host: '127.0.0.1', port, ca: tls.ca, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => {
      socket.once(tls === undefined ? 'connect' : 'secureConnect', () => resolve());
      socket.once('error', reject);
    });
    const dialogue = new SmtpDialogue(socket);
    return { dialogue, greeting: await dialogue.reply() };
  }

  #listen(socket: Socket | TLSSocket): void {
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      this.#buffer += text;
      this.#waiting?.();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#waiting?.();
    });
    socket.on('error', () => undefined);
  }

  /** closed is true once the server closed the connection. */
  get closed(): boolean {
    return this.#closed;
  }

  /** reply reads the next whole reply, lines joined with `\n` (CRLF checked). */
  async reply(): Promise<string> {
    for (;;) {
      const end = completeReply(this.#buffer);
      if (end !== -1) {
        const text = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end);
        if (!text.endsWith('\r\n') || /[^\r]\n/.test(text)) throw new Error(`reply lines must end in CRLF: ${JSON.stringify(text)}`);
        return text.slice(0, -2).split('\r\n').join('\n');
      }
      if (this.#closed) throw new Error(`the server closed the connection; unread: ${JSON.stringify(this.#buffer)}`);
      await new Promise<void>((resolve) => (this.#waiting = resolve));
      this.#waiting = undefined;
    }
  }

  /** send writes one command line and reads its reply. */
  async send(line: string): Promise<string> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** write sends raw bytes (no reply read). */
  write(bytes: string | Buffer): void {
    this.#socket.write(bytes);
  }

  /** startTls sends STARTTLS, then upgrades trusting `ca`; resolves with STARTTLS's reply. */
  async startTls(ca: string): Promise<string> {
    const answer = await this.send('STARTTLS');
    const plain = this.#socket;
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    const secure = connectTls({ socket: plain, ca, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
    this.#socket = secure;
    this.#buffer = '';
    this.#listen(secure);
    return answer;
  }

  /** waitClosed resolves once the server has closed the connection. */
  async waitClosed(): Promise<void> {
    while (!this.#closed) {
      await new Promise<void>((resolve) => (this.#waiting = resolve));
      this.#waiting = undefined;
    }
  }

  end(): void {
    this.#socket.destroy();
  }
}

/** completeReply is the length of the first whole reply in `buffer` (its last line is `NNN ` or `NNN` alone), or -1. */
function completeReply(buffer: string): number {
  let start = 0;
  for (;;) {
    const end = buffer.indexOf('\r\n', start);
    if (end === -1) return -1;
    const line = buffer.slice(start, end);
    if (/^\d{3}( |$)/.test(line)) return end + 2;
    start = end + 2;
  }
}

/** plain is base64 of AUTH PLAIN's `\0user\0password`. */
export const plain = (user: string, password: string): string => Buffer.from(`\0${user}\0${password}`).toString('base64');

/** xoauth2 is base64 of XOAUTH2's `user=…\x01auth=Bearer …\x01\x01`. */
export const xoauth2 = (user: string, token: string): string => Buffer.from(`user=${user}\x01auth=Bearer ${token}\x01\x01`).toString('base64');
