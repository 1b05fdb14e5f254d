import { hostname } from 'node:os';

/** LogLevel names the verbosity of the structured request log. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

/** LOG_LEVELS lists the accepted levels, quietest first. */
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];

/** isLogLevel narrows a string to a LogLevel. */
export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/** LogFormat is how log records are written: `text` for people, `json` for machines. */
export type LogFormat = 'text' | 'json';

/** isLogFormat narrows a string to a LogFormat. */
export function isLogFormat(value: string): value is LogFormat {
  return value === 'text' || value === 'json';
}

/** LogWrite receives one rendered log line (with its newline). */
export type LogWrite = (line: string) => void;

/** REQUEST_DONE is the message of the one record logged per request. */
export const REQUEST_DONE = 'request completed';

/** PINO_LEVELS maps pino's numeric levels to their names. */
const PINO_LEVELS: Readonly<Record<number, string>> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * renderTextLine turns one pino JSON record into a line for people: a request becomes
 * `METHOD PATH STATUS TIMEms`; anything else `level: message`, with the error's stack when
 * there is one. Fastify's own "Server listening" record is dropped (the banner says it).
 */
export function renderTextLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const msg = typeof record['msg'] === 'string' ? record['msg'] : '';
  if (msg === REQUEST_DONE && typeof record['method'] === 'string') {
    const ms = typeof record['responseTime'] === 'number' ? record['responseTime'] : 0;
    return `${record['method']} ${String(record['url'])} ${String(record['statusCode'])} ${ms.toFixed(1)}ms\n`;
  }
  if (msg.startsWith('Server listening at ')) return '';
  const level = PINO_LEVELS[Number(record['level'])] ?? 'log';
  const err = record['err'] as { stack?: unknown } | undefined;
  const stack = err !== undefined && typeof err.stack === 'string' ? `\n${err.stack}` : '';
  return `${level}: ${msg}${stack}\n`;
}

/** FastifyLoggerOptions is what Fastify's `logger` option gets: false for silence, or pino settings. */
export type FastifyLoggerOptions = false | { level: LogLevel; stream?: { write(line: string): void } };

/**
 * fastifyLogger configures Fastify's pino logger: silent is off; json writes pino's records
 * as they are; text renders each record with renderTextLine. Output goes to `write` (stdout).
 */
export function fastifyLogger(level: LogLevel, format: LogFormat, write: LogWrite = (line) => void process.stdout.write(line)): FastifyLoggerOptions {
  if (level === 'silent') return false;
  return {
    level,
    stream: {
      write: (line: string) => {
        const out = format === 'json' ? line : renderTextLine(line);
        if (out !== '') write(out);
      },
    },
  };
}

/** CoreLog writes core's own records (which replica runs a singleton, requests to /healthz), in the server's format and at its level. */
export type CoreLog = (level: 'info' | 'warn' | 'error', message: string, fields?: Readonly<Record<string, unknown>>) => void;

/** LEVEL_NUMBERS are pino's numbers for the levels core writes, and the thresholds of each setting. */
const LEVEL_NUMBERS: Readonly<Record<LogLevel, number>> = { silent: Infinity, error: 50, warn: 40, info: 30, debug: 20 };

/**
 * coreLogger writes records the way the families' pino loggers do (the same JSON record, or the
 * same text line rendered from it), for what core reports with no Fastify app at hand.
 */
export function coreLogger(level: LogLevel, format: LogFormat, write: LogWrite = (line) => void process.stdout.write(line)): CoreLog {
  const threshold = LEVEL_NUMBERS[level];
  const host = hostname();
  return (recordLevel, message, fields = {}) => {
    const number = LEVEL_NUMBERS[recordLevel];
    if (number < threshold) return;
    const line = `${JSON.stringify({ level: number, time: Date.now(), pid: process.pid, hostname: host, ...fields, msg: message })}\n`;
    write(format === 'json' ? line : renderTextLine(line));
  };
}

/** RequestLogSource is the part of a Fastify app the request log needs. */
interface RequestLogSource {
  addHook(
    name: 'onResponse',
    hook: (
      request: { method: string; originalUrl: string; log: Record<'info' | 'warn' | 'error', (obj: object, msg: string) => void> },
      reply: { statusCode: number; elapsedTime: number },
      done: () => void,
    ) => void,
  ): unknown;
}

/**
 * useRequestLog logs one record per request once its response is sent: method, path (as the
 * client sent it, before any alias was rewritten), status
 * and time; at info for success, warn for 4xx, error for 5xx, so `--log-level warn` shows only
 * the requests that failed. (Fastify's own pair of request records is turned off.)
 */
export function useRequestLog(app: RequestLogSource): void {
  // A callback hook: a promise per request adds up.
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    request.log[level]({ method: request.method, url: request.originalUrl, statusCode: status, responseTime: reply.elapsedTime }, REQUEST_DONE);
    done();
  });
}
