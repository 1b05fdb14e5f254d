/**
 * The security-policy commands against a running fogbank (issue 30):
 * `fogbank policy test` (what a policy decides for requests, through
 * `POST /_fogbank/securityPolicies:evaluate`, printed for a person or as the API's JSON) and
 * `fogbank guard` (a reverse proxy enforcing a policy live; its code, in src/guard/, is loaded
 * only by this command). Both find the server as the other client commands do (`--url`,
 * `--token`, or the data directory's server.json and admin-token). A bad flag is one line on
 * stderr and exit 2, found before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isIP } from 'node:net';
import { AdminFailure, tokenOfDataDir, urlOfDataDir } from './admin-client.ts';
import { UsageError } from './args.ts';

/** POLICY_TEST_USAGE is `fogbank policy --help`. */
export const POLICY_TEST_USAGE = `usage: fogbank policy test --policy NAME (--request 'METHOD URL' --ip IP [--header 'Name: value']… [--region CC] [--asn N] | --requests FILE.jsonl)
                          [--waf-unknown no-match|match] [--json] [--url URL] [--token TOKEN] [--data-dir DIR]

  prints what the security policy NAME (projects/P/regions/R/securityPolicies/X or
  projects/P/global/securityPolicies/X) decides for each request: outcome, deciding rule, preview
  match, headers added, rate-limit key and count, and what each rule evaluated did. Rate-limit
  counters carry over between runs (on the server's clock) until \`fogbank reset\`.
  --requests reads one request a line, as the admin API takes them:
    {"method":"GET","url":"https://example.com/admin","headers":{"X-API-Key":"k"},"sourceIp":"203.0.113.9"}
  --json prints the admin API's answer, {"results": [...]}

       fogbank policy replay --policy NAME (--proposed FILE | --rule PRIORITY=JSON …) (--from journal [--since TIME] | --from guard-log FILE | --from har FILE [--source-ip IP])
                             [--waf-unknown no-match|match] [--format table|json] [--url URL] [--token TOKEN] [--data-dir DIR]

  evaluates recorded requests under the policy in force and the proposed one (fogbank policy replay --help)`;

/** GUARD_USAGE is `fogbank guard --help`. */
export const GUARD_USAGE = `usage: fogbank guard (--policy NAME | --backend-service NAME) --upstream URL [--port PORT] [--host HOST] [--trust-xff N]
                     [--body-timeout SECONDS] [--upstream-timeout SECONDS] [--concurrency N] [--queue N]
                     [--waf-unknown no-match|match] [--url URL] [--token TOKEN] [--data-dir DIR]

  a reverse proxy on HOST:PORT (default 127.0.0.1:8080; --port 0 for any free port) in front of
  the upstream URL (http://127.0.0.1:3000) that enforces the security policy NAME on every
  request and follows its changes live. Prints "guard listening on http://HOST:PORT", then one
  JSON line per request in Cloud Armor's request-log shape; decisions also go to the server's
  request journal (family guard). --trust-xff N takes the client's address from the Nth
  X-Forwarded-For entry from the right (N proxies in front of the guard append to it).
  Limits: a request body must arrive within --body-timeout (default 30 s, else 408), the upstream
  must begin its answer within --upstream-timeout (default 30 s, else 504; a streamed answer may
  then last as long as it likes), at most --concurrency requests (default 1024) wait on the
  upstream's answer at once and --queue more (default 1024) wait for their turn; past that, 503.
  --backend-service projects/P/global/backendServices/NAME (or regions/R) enforces whichever
  policy is attached to that backend service now, none while it has none, following both.`;

/** Flags are parsed `--name value` pairs (a repeatable one keeps every value) and switches. */
export interface Flags {
  readonly values: Map<string, string[]>;
  readonly switches: Set<string>;
  readonly words: string[];
}

/** parseFlags reads `--flag value`, `--flag=value` and switches; `repeatable` flags may be given more than once. */
export function parseFlags(argv: readonly string[], valued: readonly string[], switches: readonly string[], repeatable: readonly string[] = []): Flags {
  const values = new Map<string, string[]>();
  const on = new Set<string>();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (!word.startsWith('--')) {
      words.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const name = eq < 0 ? word : word.slice(0, eq);
    if (switches.includes(name)) {
      if (eq >= 0) throw new UsageError(`${name} takes no value`);
      on.add(name);
      continue;
    }
    if (!valued.includes(name)) throw new UsageError(`unknown flag ${name}`);
    if (values.has(name) && !repeatable.includes(name)) throw new UsageError(`${name} given twice`);
    const value = eq < 0 ? argv[++i] : word.slice(eq + 1);
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return { values, switches: on, words };
}

/** one is a flag's single value. */
export function one(flags: Flags, name: string): string | undefined {
  return flags.values.get(name)?.[0];
}

/** Server is where the server is and how to be let in. */
export interface Server {
  readonly url: string;
  readonly token: string | undefined;
}

/** serverOf resolves `--url`/`--token`, or the data directory's. */
export function serverOf(flags: Flags): Server {
  const dataDir = resolve(one(flags, '--data-dir') ?? '.fogbank');
  const url = one(flags, '--url') ?? urlOfDataDir(dataDir);
  if (!/^https?:\/\/[^/]+\/?$/.test(url)) throw new UsageError(`--url must be a server's base URL such as http://127.0.0.1:8780, not '${url}'`);
  return { url: url.replace(/\/$/, ''), token: one(flags, '--token') ?? tokenOfDataDir(dataDir) };
}

/** POLICY_NAME is a security policy's resource name, regional or global. */
const POLICY_NAME = /^projects\/[^/\s]+\/(global|regions\/[^/\s]+)\/securityPolicies\/[^/\s]+$/;

/** policyFlag reads --policy, which every command needs. */
export function policyFlag(flags: Flags): string {
  const policy = one(flags, '--policy');
  if (policy === undefined) throw new UsageError('--policy is required: projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME');
  if (!POLICY_NAME.test(policy))
    throw new UsageError(`--policy must be projects/P/regions/R/securityPolicies/NAME or projects/P/global/securityPolicies/NAME, not '${policy}'`);
  return policy;
}

/** BACKEND_SERVICE_NAME is a backend service's resource name, global or regional. */
const BACKEND_SERVICE_NAME = /^projects\/[a-z0-9-]+\/(?:global|regions\/[a-z0-9-]+)\/backendServices\/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/** backendServiceFlag reads --backend-service (the guard's other way to name what it enforces), undefined when absent. */
function backendServiceFlag(flags: Flags): string | undefined {
  const name = one(flags, '--backend-service');
  if (name === undefined) return undefined;
  if (one(flags, '--policy') !== undefined) throw new UsageError('--policy and --backend-service name what to enforce two ways: give one');
  if (!BACKEND_SERVICE_NAME.test(name))
    throw new UsageError(`--backend-service must be projects/P/global/backendServices/NAME or projects/P/regions/R/backendServices/NAME, not '${name}'`);
  return name;
}

/** wafUnknownFlag reads --waf-unknown. */
export function wafUnknownFlag(flags: Flags): 'match' | 'no-match' {
  const value = one(flags, '--waf-unknown') ?? 'no-match';
  if (value !== 'match' && value !== 'no-match') throw new UsageError(`--waf-unknown must be no-match or match, not '${value}'`);
  return value;
}

/** requestOfFlags builds the one request of `--request 'METHOD URL'` and its companions. */
function requestOfFlags(flags: Flags): Record<string, unknown> {
  const line = one(flags, '--request')!;
  const match = /^(?:([A-Za-z][A-Za-z0-9_-]*)\s+)?(\S+)$/.exec(line.trim());
  if (match === null) throw new UsageError(`--request must be 'METHOD URL' such as 'GET https://example.com/admin', not '${line}'`);
  const method = (match[1] ?? 'GET').toUpperCase();
  const url = match[2]!;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new UsageError(`--request needs an absolute http or https URL such as https://example.com/admin, not '${url}'`);
  const ip = one(flags, '--ip');
  if (ip === undefined) throw new UsageError("--ip is required with --request: the client's address, such as 203.0.113.9");
  if (isIP(ip) === 0) throw new UsageError(`--ip must be an IPv4 or IPv6 address, not '${ip}'`);
  const headers: Record<string, string[]> = {};
  for (const header of flags.values.get('--header') ?? []) {
    const colon = header.indexOf(':');
    const name = colon < 0 ? '' : header.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header must be 'Name: value' such as 'X-API-Key: k', not '${header}'`);
    headers[name] = [...(headers[name] ?? []), header.slice(colon + 1).trim()];
  }
  const request: Record<string, unknown> = { method, url, sourceIp: ip };
  if (Object.keys(headers).length > 0) request['headers'] = headers;
  const region = one(flags, '--region');
  if (region !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(region)) throw new UsageError(`--region must be a two-letter country code such as FR, not '${region}'`);
    request['regionCode'] = region.toUpperCase();
  }
  const asn = one(flags, '--asn');
  if (asn !== undefined) {
    if (!/^\d{1,10}$/.test(asn) || Number(asn) > 4294967295) throw new UsageError(`--asn must be an AS number from 0 to 4294967295, not '${asn}'`);
    request['asn'] = Number(asn);
  }
  return request;
}

/** requestsOfFile reads a JSON-lines file of requests in the admin API's form. */
function requestsOfFile(file: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  const requests: Record<string, unknown>[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new UsageError(`${file}:${i + 1}: not a JSON object`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`${file}:${i + 1}: not a JSON object`);
    requests.push(parsed as Record<string, unknown>);
  });
  if (requests.length === 0) throw new UsageError(`${file} holds no requests`);
  return requests;
}

/** runPolicyCommand runs `fogbank policy test …` and resolves with the exit code. */
export async function runPolicyCommand(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'replay') return (await import('./policy-replay-command.ts')).runPolicyReplay(argv.slice(1));
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${POLICY_TEST_USAGE}\n`);
    return 0;
  }
  const flags = parseFlags(
    argv,
    ['--policy', '--request', '--ip', '--header', '--region', '--asn', '--requests', '--waf-unknown', '--url', '--token', '--data-dir'],
    ['--json'],
    ['--header'],
  );
  const [action, extra] = flags.words;
  if (action !== 'test') throw new UsageError(action === undefined ? 'policy needs an action: test' : `unknown policy action '${action}' (test)`);
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const policy = policyFlag(flags);
  const wafUnknown = wafUnknownFlag(flags);
  const file = one(flags, '--requests');
  const single = one(flags, '--request');
  if ((file === undefined) === (single === undefined)) throw new UsageError('give one of --request or --requests');
  if (file !== undefined) {
    const stray = ['--ip', '--header', '--region', '--asn'].find((name) => flags.values.has(name));
    if (stray !== undefined) throw new UsageError(`${stray} goes with --request; in --requests each line carries its own`);
  }
  const requests = file !== undefined ? requestsOfFile(file) : [requestOfFlags(flags)];
  const server = serverOf(flags);
  const answer = await post(server, '/_fogbank/securityPolicies:evaluate', { policy, requests, wafUnknown });
  if (flags.switches.has('--json')) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return 0;
  }
  const results = (answer['results'] ?? []) as Record<string, unknown>[];
  process.stdout.write(`${results.map((result, i) => describeDecision(requests[i]!, result)).join('\n')}`);
  return 0;
}

/** post sends one admin request and resolves with its JSON answer (a refusal is an AdminFailure: exit 2 for a 400). */
export async function post(server: Server, path: string, body: unknown): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(server.token === undefined ? {} : { authorization: `Bearer ${server.token}` }) },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new AdminFailure(`cannot reach fogbank at ${server.url}: ${cause?.code ?? cause?.message ?? String(error)}`, 1);
  }
  const text = await response.text();
  let parsed: { error?: { message?: unknown } } & Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    throw new AdminFailure(`${server.url} answered ${response.status} without JSON: is it a fogbank?`, 1);
  }
  if (!response.ok) throw new AdminFailure(String(parsed.error?.message ?? `HTTP ${response.status}`), response.status === 400 ? 2 : 1);
  return parsed;
}

/** describeDecision is one readable block for one request's decision. */
export function describeDecision(request: Record<string, unknown>, decision: Record<string, unknown>): string {
  const enforced = (decision['enforcedSecurityPolicy'] ?? {}) as Record<string, unknown>;
  const rule = (decision['rule'] ?? {}) as Record<string, unknown>;
  const response = (decision['response'] ?? {}) as Record<string, unknown>;
  const lines: string[] = [`${String(request['method'] ?? 'GET')} ${String(request['url'])} from ${String(request['sourceIp'])}`];
  const what =
    response['kind'] === 'deny'
      ? `answered ${String(response['status'])}`
      : response['kind'] === 'redirect'
        ? `redirected (302${response['location'] === undefined ? ', reCAPTCHA' : ` to ${String(response['location'])}`})`
        : 'forwarded to the backend';
  lines.push(`  outcome     ${String(enforced['outcome'])} (${String(enforced['configuredAction'])}): ${what}`);
  lines.push(`  rule        ${String(rule['priority'])}  ${String(rule['action'])}${rule['preview'] === true ? '  (preview)' : ''}`);
  const preview = decision['previewSecurityPolicy'] as Record<string, unknown> | undefined;
  lines.push(
    preview === undefined
      ? '  preview     none matched'
      : `  preview     rule ${String(preview['priority'])} would ${String(preview['outcome'])} (${String(preview['configuredAction'])})`,
  );
  const added = (decision['headersToAdd'] ?? []) as Record<string, unknown>[];
  if (added.length > 0) lines.push(`  headers     ${added.map((header) => `${String(header['name'])}: ${String(header['value'])}`).join(', ')}`);
  const limit = decision['rateLimit'] as Record<string, unknown> | undefined;
  if (limit !== undefined) {
    const action = (enforced['rateLimitAction'] ?? {}) as Record<string, unknown>;
    const key = limit['key'] === '' ? 'ALL' : `'${String(limit['key'])}' (${String(limit['keyType'])})`;
    const ban = limit['banned'] === true && typeof limit['banUntil'] === 'number' ? `, banned until ${new Date(limit['banUntil']).toISOString()}` : '';
    lines.push(
      `  rate limit  key ${key}: ${String(limit['count'])} of ${String(limit['threshold'])} per ${String(limit['intervalSec'])} s, ${String(action['outcome'] ?? '')}${ban}`,
    );
  }
  const explanation = (decision['explanation'] ?? []) as Record<string, unknown>[];
  explanation.forEach((step, i) => {
    const verdict = step['matched'] === true ? 'matched' : 'no match';
    const notes = [
      step['preview'] === true ? 'preview' : '',
      step['notEvaluatedLocally'] === true ? 'not evaluated locally' : '',
      step['error'] === undefined ? '' : `error: ${String(step['error'])}`,
    ]
      .filter((note) => note !== '')
      .join('; ');
    lines.push(
      `  ${i === 0 ? 'rules' : '     '}       ${String(step['priority']).padEnd(10)} ${verdict.padEnd(8)}  ${String(step['detail'] ?? '')}${notes === '' ? '' : `  (${notes})`}`,
    );
  });
  return `${lines.join('\n')}\n`;
}

/** runGuardCommand runs `fogbank guard …` until SIGINT or SIGTERM, and resolves with the exit code. */
export async function runGuardCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${GUARD_USAGE}\n`);
    return 0;
  }
  const flags = parseFlags(
    argv,
    [
      '--policy',
      '--backend-service',
      '--upstream',
      '--port',
      '--host',
      '--trust-xff',
      '--body-timeout',
      '--upstream-timeout',
      '--concurrency',
      '--queue',
      '--waf-unknown',
      '--url',
      '--token',
      '--data-dir',
    ],
    [],
  );
  if (flags.words.length > 0) throw new UsageError(`unexpected argument '${flags.words[0]}'`);
  const backendService = backendServiceFlag(flags);
  const policy = backendService ?? policyFlag(flags);
  const upstreamText = one(flags, '--upstream');
  if (upstreamText === undefined) throw new UsageError('--upstream is required: the URL to forward to, such as http://127.0.0.1:3000');
  let upstream: URL | undefined;
  try {
    upstream = new URL(upstreamText);
  } catch {
    upstream = undefined;
  }
  if (upstream === undefined || upstream.protocol !== 'http:' || upstream.search !== '' || upstream.hash !== '' || upstream.username !== '')
    throw new UsageError(`--upstream must be an http URL such as http://127.0.0.1:3000, not '${upstreamText}'`);
  const portText = one(flags, '--port') ?? '8080';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not '${portText}'`);
  const host = one(flags, '--host') ?? '127.0.0.1';
  if (isIP(host) === 0 && host !== 'localhost') throw new UsageError(`--host must be an IP address to listen on such as 127.0.0.1, not '${host}'`);
  const trustText = one(flags, '--trust-xff') ?? '0';
  if (!/^\d{1,2}$/.test(trustText) || Number(trustText) > 16) throw new UsageError(`--trust-xff must be a number of proxies from 0 to 16, not '${trustText}'`);
  const bodyTimeout = secondsFlag(flags, '--body-timeout');
  const upstreamTimeout = secondsFlag(flags, '--upstream-timeout');
  const concurrency = countFlag(flags, '--concurrency', 1);
  const queue = countFlag(flags, '--queue', 0);
  const wafUnknown = wafUnknownFlag(flags);
  const server = serverOf(flags);
  const { startGuardProcess, GuardStartError } = await import('../guard/run-guard.ts');
  const { DEFAULT_LIMITS } = await import('../guard/guard-server.ts');
  const limits = {
    bodyTimeoutMs: bodyTimeout === undefined ? DEFAULT_LIMITS.bodyTimeoutMs : bodyTimeout * 1000,
    upstreamTimeoutMs: upstreamTimeout === undefined ? DEFAULT_LIMITS.upstreamTimeoutMs : upstreamTimeout * 1000,
    concurrency: concurrency ?? DEFAULT_LIMITS.concurrency,
    queue: queue ?? DEFAULT_LIMITS.queue,
  };
  let guard: Awaited<ReturnType<typeof startGuardProcess>>;
  try {
    guard = await startGuardProcess(
      {
        policy,
        ...(backendService === undefined ? {} : { backendService }),
        upstream,
        host,
        port: Number(portText),
        trustedProxies: Number(trustText),
        url: server.url,
        token: server.token,
        wafUnknown,
        limits,
      },
      { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
    );
  } catch (error) {
    if (error instanceof GuardStartError) throw new AdminFailure(error.message, error.exitCode);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new AdminFailure(`${host}:${portText} is already in use; choose another port with --port, or --port 0 for any free one`, 1);
    throw error;
  }
  const signal = await new Promise<NodeJS.Signals>((resolveSignal) => {
    process.once('SIGINT', () => resolveSignal('SIGINT'));
    process.once('SIGTERM', () => resolveSignal('SIGTERM'));
  });
  process.stderr.write(`guard: ${signal}, shutting down\n`);
  await guard.close();
  return 0;
}

/** secondsFlag reads a duration flag in seconds (0.001 to 86400, decimals allowed), undefined when absent. */
function secondsFlag(flags: Flags, name: string): number | undefined {
  const text = one(flags, name);
  if (text === undefined) return undefined;
  const seconds = /^\d{1,5}(?:\.\d{1,3})?$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= 0.001 && seconds <= 86_400)) throw new UsageError(`${name} must be a number of seconds from 0.001 to 86400, not '${text}'`);
  return seconds;
}

/** countFlag reads a count flag (min to 1,000,000), undefined when absent. */
function countFlag(flags: Flags, name: string, min: number): number | undefined {
  const text = one(flags, name);
  if (text === undefined) return undefined;
  if (!/^\d{1,7}$/.test(text) || Number(text) < min || Number(text) > 1_000_000)
    throw new UsageError(`${name} must be a number from ${min} to 1000000, not '${text}'`);
  return Number(text);
}
