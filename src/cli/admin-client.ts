/**
 * The command line's client commands against a running fogbank's admin API (issue 28):
 * `fogbank clock [show|freeze|unfreeze|set TIME|advance DURATION]` and
 * `fogbank requests [--follow] [--family F] [--method M] [--status N] [--since TIME] [--limit N] [--json]`.
 * Each takes `--url` and `--token`; by default they find the server of the data directory
 * (`--data-dir`, default `./.fogbank`): its `server.json` names the URL, its `admin-token` the token.
 * Bad input is one line on stderr and exit 2 (UsageError), checked before anything is sent when it can be.
 */
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { EFFECTS } from '../core/faults/rule.ts';
import { parseGoDuration } from '../lib/duration.ts';
import { UsageError } from './args.ts';

/** CLOCK_USAGE is `fogbank clock --help`. */
export const CLOCK_USAGE = `usage: fogbank clock [show|freeze|unfreeze|set TIME|advance DURATION] [--url URL] [--token TOKEN] [--data-dir DIR]

  show               print the server's time and whether it is frozen (the default)
  freeze, unfreeze   stop the clock where it is, or let it run again
  set TIME           jump to an RFC 3339 time (2026-01-01T00:00:00Z)
  advance DURATION   move forward by a Go duration (1h, 30s, 1h30m), firing what becomes due`;

/** REQUESTS_USAGE is `fogbank requests --help`. */
export const REQUESTS_USAGE = `usage: fogbank requests [--follow] [--family F] [--method M] [--status N] [--since TIME] [--limit N] [--bodies] [--json] [--url URL] [--token TOKEN] [--data-dir DIR]

  prints the request journal, oldest first, one request a line:
  TIME  STATUS  FAMILY  METHOD  PRINCIPAL  LATENCY; --follow keeps printing new requests until interrupted;
  --bodies adds the request and response bodies the server keeps (fogbank start --journal-bodies)`;

/** ClientArgs are the flags every client command shares, and the rest of its words. */
interface ClientArgs {
  readonly url: string;
  readonly token: string | undefined;
  readonly words: string[];
  readonly flags: Map<string, string | true>;
}

/** SWITCHES are the client flags that take no value. */
const SWITCHES = new Set(['--follow', '--json', '--bodies']);

/** parseClientArgs splits words from `--flag value` / `--flag=value` and resolves the server and token. */
function parseClientArgs(argv: readonly string[], allowed: readonly string[]): ClientArgs {
  const flags = new Map<string, string | true>();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('--')) {
      words.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const name = eq < 0 ? word : word.slice(0, eq);
    if (!['--url', '--token', '--data-dir', ...allowed].includes(name)) throw new UsageError(`unknown flag ${name}`);
    if (flags.has(name)) throw new UsageError(`${name} given twice`);
    if (SWITCHES.has(name)) {
      if (eq >= 0) throw new UsageError(`${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq < 0 ? argv[++i] : word.slice(eq + 1);
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    flags.set(name, value);
  }
  const dataDir = resolve(String(flags.get('--data-dir') ?? '.fogbank'));
  const url = (flags.get('--url') as string | undefined) ?? urlOfDataDir(dataDir);
  if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new UsageError(`--url must be a server's base URL such as http://127.0.0.1:8780, not '${url}'`);
  const token = (flags.get('--token') as string | undefined) ?? tokenOfDataDir(dataDir);
  return { url: url.replace(/\/$/, ''), token, words, flags };
}

/** urlOfDataDir reads the URL the data directory's running server wrote into `server.json`. */
export function urlOfDataDir(dataDir: string): string {
  let text: string;
  try {
    text = readFileSync(join(dataDir, 'server.json'), 'utf8');
  } catch {
    throw new UsageError(`no running fogbank found: ${join(dataDir, 'server.json')} is missing (start one, or pass --url)`);
  }
  const url = (JSON.parse(text) as { url?: unknown }).url;
  if (typeof url !== 'string') throw new UsageError(`${join(dataDir, 'server.json')} names no url`);
  return url;
}

/** tokenOfDataDir reads the data directory's admin token, if it has one. */
export function tokenOfDataDir(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** AdminFailure is a refusal from the server: its message, and exit 2 for a 400 (bad input), else 1. */
export class AdminFailure extends Error {
  override readonly name = 'AdminFailure';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** send sends one admin request with the token and resolves with the response, or rejects when the server cannot be reached. */
async function send(
  args: ClientArgs,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  init: { readonly contentType?: string; readonly body?: RequestInit['body'] } = {},
): Promise<Response> {
  try {
    return await fetch(`${args.url}${path}`, {
      method,
      headers: {
        ...(args.token === undefined ? {} : { authorization: `Bearer ${args.token}` }),
        ...(init.contentType === undefined ? {} : { 'content-type': init.contentType }),
      },
      ...(init.body === undefined ? {} : { body: init.body, duplex: 'half' }),
    } as RequestInit);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new AdminFailure(`cannot reach fogbank at ${args.url}: ${cause?.code ?? cause?.message ?? String(error)}`, 1);
  }
}

/** answerOf reads a JSON answer, or rejects with the server's message (exit 2 for a 400: the input was bad). */
async function answerOf(args: ClientArgs, response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (response.status === 204) return {};
  let parsed: { error?: { message?: unknown } } & Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new AdminFailure(`${args.url} answered ${response.status} without JSON: is it a fogbank?`, 1);
  }
  if (!response.ok) throw new AdminFailure(String(parsed?.error?.message ?? `HTTP ${response.status}`), response.status === 400 ? 2 : 1);
  return parsed;
}

/** call sends one admin request with a JSON body (or none) and resolves with its JSON answer. */
async function call(args: ClientArgs, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await send(args, method, path, body === undefined ? {} : { contentType: 'application/json', body: JSON.stringify(body) });
  return answerOf(args, response);
}

/** SNAPSHOT_USAGE is `fogbank snapshot --help`. */
export const SNAPSHOT_USAGE = `usage: fogbank snapshot save|load FILE [--url URL] [--token TOKEN] [--data-dir DIR]

  save FILE   write the whole state of every family (objects, mailboxes, artifacts, upload sessions) to FILE
  load FILE   replace the whole state with FILE's; open watches end with 410 Gone; a bad file changes nothing`;

/** RESET_USAGE is `fogbank reset --help`. */
export const RESET_USAGE = `usage: fogbank reset [--url URL] [--token TOKEN] [--data-dir DIR]

  empties every family, as a fresh server starts (the admin token and the tokens file are kept)`;

/** runSnapshotCommand runs `fogbank snapshot save|load FILE` and resolves with the exit code. */
export async function runSnapshotCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${SNAPSHOT_USAGE}\n`);
    return 0;
  }
  const args = parseClientArgs(argv, []);
  const [action, file, extra] = args.words;
  if (action !== 'save' && action !== 'load')
    throw new UsageError(action === undefined ? 'snapshot needs save FILE or load FILE' : `unknown snapshot action '${action}' (save FILE, load FILE)`);
  if (file === undefined) throw new UsageError(`snapshot ${action} needs a FILE`);
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  if (action === 'save') {
    const response = await send(args, 'GET', '/_fogbank/snapshot');
    if (!response.ok || response.body === null) await answerOf(args, response);
    else await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), createWriteStream(file));
    process.stdout.write(`saved ${file} (${statSync(file).size} bytes)\n`);
    return 0;
  }
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new UsageError(`cannot read ${file}: no such file`);
  }
  const answer = await answerOf(
    args,
    await send(args, 'PUT', '/_fogbank/snapshot', { contentType: 'application/gzip', body: Readable.toWeb(createReadStream(file)) as ReadableStream }),
  );
  process.stdout.write(
    `loaded ${file} (${size} bytes, taken at revision ${String(answer['revision'])}): ${String(answer['records'])} records, ${String(answer['files'])} files, ${String(answer['uploads'])} uploads; the store is now at revision ${String(answer['restoredAt'])}\n`,
  );
  return 0;
}

/** FAULTS_USAGE is `fogbank faults --help`. */
export const FAULTS_USAGE = `usage: fogbank faults add RULE | list [--json] | clear [ID] [--url URL] [--token TOKEN] [--data-dir DIR]

  add RULE    add one fault rule, a JSON object, e.g. '{"method":"get clusterroles","status":429,"retryAfter":2,"times":1}'
              (docs/testing.md lists the matchers and effects); prints the rule with its id
  list        the rules, one a line: id, what it matches, its effect, the firings left
  clear [ID]  remove every rule, or the one with ID`;

/** describeRule is one line for a fault rule: id, what it matches, its effect, the firings left. */
function describeRule(rule: Record<string, unknown>): string {
  const matchers = ['family', 'method', 'path', 'principal'].filter((key) => rule[key] !== undefined).map((key) => `${key}=${String(rule[key])}`);
  const chance = ['probability', 'after'].filter((key) => rule[key] !== undefined).map((key) => `${key}=${String(rule[key])}`);
  const effects = EFFECTS.filter((key) => rule[key] !== undefined).map((key) => `${key}=${JSON.stringify(rule[key])}`);
  const left = rule['times'] === undefined ? 'until cleared' : `${String(rule['times'])} left`;
  return [String(rule['id']), matchers.join(' ') || 'every request', ...chance, effects.join(' '), left].join('  ');
}

/** runFaultsCommand runs `fogbank faults add|list|clear` and resolves with the exit code. */
export async function runFaultsCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${FAULTS_USAGE}\n`);
    return 0;
  }
  const args = parseClientArgs(argv, ['--json']);
  const [action, value, extra] = args.words;
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  switch (action) {
    case 'add': {
      if (value === undefined) throw new UsageError('faults add needs a RULE, a JSON object such as {"family":"mail","status":503}');
      let rule: unknown;
      try {
        rule = JSON.parse(value) as unknown;
      } catch {
        throw new UsageError(`the RULE is not JSON: ${value}`);
      }
      if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw new UsageError('the RULE must be a JSON object');
      const added = await call(args, 'POST', '/_fogbank/faults', rule);
      process.stdout.write(`${JSON.stringify(added)}\n`);
      return 0;
    }
    case 'list': {
      if (value !== undefined) throw new UsageError(`unexpected argument '${value}'`);
      const rules = ((await call(args, 'GET', '/_fogbank/faults'))['faults'] ?? []) as Record<string, unknown>[];
      for (const rule of rules) process.stdout.write(`${args.flags.has('--json') ? JSON.stringify(rule) : describeRule(rule)}\n`);
      return 0;
    }
    case 'clear':
      await call(args, 'DELETE', value === undefined ? '/_fogbank/faults' : `/_fogbank/faults/${encodeURIComponent(value)}`);
      return 0;
    default:
      throw new UsageError(
        action === undefined ? 'faults needs add RULE, list or clear [ID]' : `unknown faults action '${action}' (add RULE, list, clear [ID])`,
      );
  }
}

/** runResetCommand runs `fogbank reset` and resolves with the exit code. */
export async function runResetCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${RESET_USAGE}\n`);
    return 0;
  }
  const args = parseClientArgs(argv, []);
  if (args.words.length > 0) throw new UsageError(`unexpected argument '${args.words[0]}'`);
  const answer = await call(args, 'POST', '/_fogbank/reset');
  process.stdout.write(`reset: every family is empty; the store is now at revision ${String(answer['revision'])}\n`);
  return 0;
}

/** runClockCommand runs `fogbank clock …` and resolves with the exit code. */
export async function runClockCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${CLOCK_USAGE}\n`);
    return 0;
  }
  const args = parseClientArgs(argv, []);
  const [action = 'show', value, extra] = args.words;
  const expectValue = action === 'set' || action === 'advance';
  if (extra !== undefined || (!expectValue && value !== undefined)) throw new UsageError(`unexpected argument '${expectValue ? extra : value}'`);
  if (expectValue && value === undefined) throw new UsageError(`clock ${action} needs a ${action === 'set' ? 'TIME' : 'DURATION'}`);
  let body: unknown;
  switch (action) {
    case 'show':
      break;
    case 'freeze':
    case 'unfreeze':
      body = { freeze: action === 'freeze' };
      break;
    case 'set':
      if (Number.isNaN(Date.parse(value!))) throw new UsageError(`'${value}' is not an RFC 3339 time such as 2026-01-01T00:00:00Z`);
      body = { set: value };
      break;
    case 'advance': {
      const parsed = parseGoDuration(value!);
      if ('error' in parsed) throw new UsageError(`${parsed.error} (write it as 1h, 30s, 1h30m or 250ms)`);
      body = { advance: value };
      break;
    }
    default:
      throw new UsageError(`unknown clock action '${action}' (show, freeze, unfreeze, set TIME, advance DURATION)`);
  }
  const state = (await call(args, body === undefined ? 'GET' : 'POST', '/_fogbank/clock', body)) as { now?: unknown; frozen?: unknown };
  process.stdout.write(`${String(state.now)} ${state.frozen === true ? 'frozen' : 'running'}\n`);
  return 0;
}

/** REQUEST_FLAGS map the command's filter flags to the admin API's query parameters. */
const REQUEST_FLAGS: Readonly<Record<string, string>> = {
  '--family': 'family',
  '--method': 'method',
  '--status': 'status',
  '--since': 'since',
  '--limit': 'limit',
};

/** runRequestsCommand runs `fogbank requests …` and resolves with the exit code (with --follow, when interrupted or the server ends the stream). */
export async function runRequestsCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${REQUESTS_USAGE}\n`);
    return 0;
  }
  const args = parseClientArgs(argv, [...Object.keys(REQUEST_FLAGS), '--follow', '--json', '--bodies']);
  if (args.words.length > 0) throw new UsageError(`unexpected argument '${args.words[0]}'`);
  const status = args.flags.get('--status');
  if (typeof status === 'string' && !/^[1-5](\d\d|xx)$/i.test(status))
    throw new UsageError(`--status must be an HTTP status (404) or class (4xx), not '${status}'`);
  const limit = args.flags.get('--limit');
  if (typeof limit === 'string' && !/^[1-9]\d{0,8}$/.test(limit)) throw new UsageError(`--limit must be a whole number from 1, not '${limit}'`);
  const query = new URLSearchParams();
  for (const [flag, name] of Object.entries(REQUEST_FLAGS)) {
    const value = args.flags.get(flag);
    if (typeof value === 'string') query.set(name, value);
  }
  if (args.flags.has('--bodies')) query.set('bodies', 'true');
  const json = args.flags.has('--json');
  const print = (entry: Record<string, unknown>): void => {
    process.stdout.write(
      json
        ? `${JSON.stringify(entry)}\n`
        : `${[entry['time'], entry['status'], entry['family'], entry['method'], entry['principal'] ?? '-', `${String(entry['latencyMs'])}ms`].join('  ')}\n${bodyLines(entry)}`,
    );
  };
  const path = `/_fogbank/requests${query.size > 0 ? `?${query}` : ''}`;
  if (!args.flags.has('--follow')) {
    const answer = await call(args, 'GET', path);
    for (const entry of [...(answer.requests as Record<string, unknown>[])].reverse()) print(entry);
    return 0;
  }
  // Following: first what the filter finds now (oldest first), then each new request as it comes.
  const answer = await call(args, 'GET', path);
  for (const entry of [...(answer.requests as Record<string, unknown>[])].reverse()) print(entry);
  return follow(args, path, print);
}

/** bodyLines shows an entry's kept bodies under its line, indented: `> ` for the request, `< ` for the answer. */
function bodyLines(entry: Record<string, unknown>): string {
  let lines = '';
  for (const [key, mark] of [
    ['requestBody', '>'],
    ['responseBody', '<'],
  ] as const) {
    const body = entry[key] as { text?: string; base64?: string; size?: number | null; truncated?: boolean } | undefined;
    if (body === undefined) continue;
    const shown = body.text ?? `(base64) ${body.base64 ?? ''}`;
    const size = body.size === null || body.size === undefined ? 'streamed' : `${body.size} bytes`;
    lines += `    ${mark} ${shown.replaceAll('\n', `\n    ${mark} `)}${body.truncated === true ? ` … (${size})` : ''}\n`;
  }
  return lines;
}

/** follow reads the journal's event stream until the server ends it or the process is interrupted. */
function follow(args: ClientArgs, path: string, print: (entry: Record<string, unknown>) => void): Promise<number> {
  return new Promise((resolveExit, reject) => {
    const request = httpRequest(
      `${args.url}${path}`,
      { headers: { accept: 'text/event-stream', ...(args.token === undefined ? {} : { authorization: `Bearer ${args.token}` }) } },
      (response) => {
        if (response.statusCode !== 200) {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => {
            let message = `HTTP ${response.statusCode}`;
            try {
              message = String((JSON.parse(text) as { error?: { message?: unknown } }).error?.message ?? message);
            } catch {
              // Not the admin API's JSON: keep the status.
            }
            reject(new AdminFailure(message, response.statusCode === 400 ? 2 : 1));
          });
          return;
        }
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of event.split('\n')) if (line.startsWith('data: ')) print(JSON.parse(line.slice(6)) as Record<string, unknown>);
          }
        });
        response.on('end', () => resolveExit(0));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => reject(new AdminFailure(`cannot reach fogbank at ${args.url}: ${error.code ?? error.message}`, 1)));
    const stop = (): void => {
      request.destroy();
      resolveExit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    request.end();
  });
}
