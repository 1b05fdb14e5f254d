/**
 * `fogbank guard`: follows one security policy of a running fogbank (policy-stream.ts), compiles
 * each version with compute's evaluation engine, and enforces it in a reverse proxy in front of an
 * upstream (guard-server.ts). Decisions go to stdout as Cloud Armor request-log lines and to
 * fogbank's request journal; what happens to the guard itself (the policy changed or went, fogbank
 * lost and found) goes to stderr, one line each. Rate-limit counters live here, on fogbank's clock
 * as its stream reports it, and outlive policy changes as Cloud Armor's do.
 */
import type { Server } from 'node:http';
import type { Clock } from '../lib/clock.ts';
import { compileEnforceable, decideOn, type EnforceablePolicy } from './enforceable-policy.ts';
import { RateLimitState, type TrafficRequest, WafEngine } from './engine.ts';
import { errorText } from './guard-answers.ts';
import { logResourceOf, policyNameOf } from './backend-service-resource.ts';
import { DEFAULT_LIMITS, type GuardLimits, startGuard, type Verdict } from './guard-server.ts';
import { JournalSink } from './journal-sink.ts';
import { jsonPayloadOf, logLineOf, type Exchange } from './log-record.ts';
import { PolicyStream } from './policy-stream.ts';

/** GuardConfig is a parsed `fogbank guard` command line. */
export interface GuardConfig {
  /** policy is the policy's resource name, `projects/p/regions/r/securityPolicies/x` (the backend service's name with backendService). */
  readonly policy: string;
  /** backendService, when given, is followed instead of one policy: whichever policy is attached to it now (`--backend-service`). */
  readonly backendService?: string;
  readonly upstream: URL;
  readonly host: string;
  readonly port: number;
  readonly trustedProxies: number;
  /** fogbank's base URL and admin token. */
  readonly url: string;
  readonly token: string | undefined;
  readonly wafUnknown: 'match' | 'no-match';
  /** limits bound request bodies, upstream answers and the queue (`--body-timeout`, `--upstream-timeout`, `--concurrency`, `--queue`); DEFAULT_LIMITS when absent. */
  readonly limits?: GuardLimits;
}

/** GuardOutput is where the guard writes: decision lines, and lines about itself. */
export interface GuardOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** LOG_FLUSH_MS is the longest a decision line waits to be written with others (one write per batch, not per request). */
const LOG_FLUSH_MS = 10;
/** LOG_FLUSH_BYTES writes a batch at once when it grows this large. */
const LOG_FLUSH_BYTES = 64 * 1024;

/**
 * WAF_WAIT_MS bounds how long a request waits for a free WAF engine thread (each thread's work on
 * it is bounded by the engine's own deadline): hostile bodies that keep the threads busy cost the
 * requests behind them their WAF verdict (decided as --waf-unknown says), never an answer.
 */
const WAF_WAIT_MS = 2000;

/** FIRST_READING_MS bounds the wait for the policy before the guard gives up starting. */
const FIRST_READING_MS = 15_000;

/** GuardStartError is a guard that could not start: its message and exit code (2 for a refused name or token). */
export class GuardStartError extends Error {
  override readonly name = 'GuardStartError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** RunningGuard is a started guard. */
export interface RunningGuard {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** PolicyState is what the guard enforces now: a policy, nothing (a backend service with none attached), or nothing it can serve. */
type PolicyState = EnforceablePolicy | { readonly open: true } | { readonly missing: string } | undefined;

/** startGuardProcess follows the policy, starts the proxy once the policy has been read, and prints the listening line. */
export async function startGuardProcess(config: GuardConfig, output: GuardOutput): Promise<RunningGuard> {
  let offset = 0;
  const clock: Clock = { now: () => Date.now() + offset };
  const rateLimits = new RateLimitState();
  let state: PolicyState;
  // The WAF engine's threads start with the first policy version that calls preconfigured WAF sets.
  let waf: WafEngine | undefined;
  const wafEngine = (): WafEngine => (waf ??= new WafEngine({ waitMs: WAF_WAIT_MS }));
  let warmingSince: number | undefined;
  // Decision lines are written in batches: every LOG_FLUSH_MS, or at once past LOG_FLUSH_BYTES.
  let pending = '';
  let logTimer: NodeJS.Timeout | undefined;
  const flushOut = (): void => {
    clearTimeout(logTimer);
    logTimer = undefined;
    const text = pending;
    pending = '';
    if (text !== '') output.stdout(text);
  };
  const printDecision = (line: string): void => {
    pending += `${line}\n`;
    if (pending.length >= LOG_FLUSH_BYTES) flushOut();
    else logTimer ??= setTimeout(flushOut, LOG_FLUSH_MS);
  };
  const journal = new JournalSink(config.url, config.token, (line) => output.stderr(`${line}\n`));

  let settle: ((error?: GuardStartError) => void) | undefined;
  const firstReading = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  const stream = new PolicyStream(
    { url: config.url, token: config.token, policy: config.policy, ...(config.backendService === undefined ? {} : { backendService: config.backendService }) },
    {
      event(event) {
        offset = event.now - Date.now();
        if (event.kind === 'clock') return;
        const what = config.backendService === undefined ? `the security policy ${config.policy}` : `the backend service ${config.backendService}`;
        if (event.kind === 'deleted') {
          if (state === undefined || !('missing' in state)) output.stderr(`guard: ${what} does not exist; answering 502 until it does\n`);
          state = { missing: `guard: ${what} does not exist (deleted?); waiting for it to return` };
        } else if (event.kind === 'detached') {
          if (state === undefined || !('open' in state))
            output.stderr(`guard: ${config.backendService} has no security policy attached; forwarding every request\n`);
          state = { open: true };
        } else {
          try {
            const enforceable = compileEnforceable(event.policy, { clock, wafUnknown: config.wafUnknown, rateLimits, explain: false });
            const enforcing = config.backendService === undefined ? config.policy : `${policyNameOf(event.policy)} attached to ${config.backendService}`;
            output.stderr(
              `guard: enforcing ${enforcing} (${enforceable.compiled.rules.length} rules, fingerprint ${String(event.policy['fingerprint'] ?? '-')})\n`,
            );
            for (const reason of enforceable.unenforceable.values()) output.stderr(`${reason}; the requests it forwards are answered 502\n`);
            // Each version's WAF configurations load on every engine thread at once, not on the requests that first need them.
            const plan = enforceable.compiled.wafPlan;
            if (plan !== undefined) {
              warmingSince ??= performance.now();
              void wafEngine().warm(plan);
            }
            state = enforceable;
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            output.stderr(`guard: cannot enforce ${config.policy}: ${message}\n`);
            state = { missing: `guard: the security policy ${config.policy} cannot be enforced: ${message}` };
          }
        }
        settle?.();
        settle = undefined;
      },
      refused(status, message) {
        if (settle !== undefined) {
          settle(new GuardStartError(`fogbank refused to stream ${config.policy}: ${message}`, status === 400 ? 2 : 1));
          settle = undefined;
          stream.close();
          return;
        }
        output.stderr(`guard: fogbank refused the policy stream (${message}); keeping the last policy\n`);
      },
      lost(reason) {
        if (settle !== undefined) {
          settle(new GuardStartError(reason, 1));
          settle = undefined;
          stream.close();
          return;
        }
        output.stderr(`guard: ${reason}; keeping the last policy and reconnecting\n`);
      },
      restored() {
        output.stderr(`guard: following ${config.policy} again\n`);
      },
    },
  );
  stream.open();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      firstReading,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new GuardStartError(`no answer from fogbank at ${config.url} in ${FIRST_READING_MS / 1000} s`, 1)), FIRST_READING_MS);
      }),
    ]);
  } catch (error) {
    stream.close();
    await journal.close();
    await waf?.close();
    throw error;
  } finally {
    clearTimeout(timer);
  }

  const wafFailures = new Set<string>();
  const decide = (traffic: TrafficRequest): Verdict | Promise<Verdict> => {
    const now = state;
    if (now === undefined) return { unavailable: `guard: no policy read from fogbank yet` };
    if ('missing' in now) return { unavailable: now.missing };
    if ('open' in now) return now;
    const plan = now.compiled.wafPlan;
    if (plan === undefined) return decideOn(now, traffic);
    return wafEngine()
      .inspect(plan, traffic)
      .then((findings) => {
        // Each kind of engine failure once on stderr: the decision's explanation names it on every request.
        const kind = findings.failure?.replace(/\d+/g, 'N');
        if (kind !== undefined && !wafFailures.has(kind)) {
          wafFailures.add(kind);
          output.stderr(`guard: ${findings.failure}; WAF calls decide as --waf-unknown says (${config.wafUnknown})\n`);
        }
        return decideOn(now, traffic, findings);
      });
  };
  const inspectedBody = (): number | undefined => {
    const now = state;
    return now === undefined || 'missing' in now || 'open' in now ? undefined : now.compiled.wafPlan?.inspectionLimit;
  };
  const resource = config.backendService === undefined ? undefined : logResourceOf(config.backendService);
  const report = (exchange: Exchange): void => {
    const payloadJson = JSON.stringify(jsonPayloadOf(exchange));
    printDecision(logLineOf(exchange, payloadJson, resource));
    let path = exchange.target;
    if (!path.startsWith('/')) {
      try {
        const parsed = new URL(exchange.url);
        path = `${parsed.pathname}${parsed.search}`;
      } catch {
        // An unreadable target is journaled as the root.
      }
    }
    journal.add({
      httpMethod: /^[A-Z][A-Z0-9_-]{0,31}$/.test(exchange.method) ? exchange.method : 'GET',
      url: path.startsWith('/') ? path.slice(0, 8192) : '/',
      status: exchange.status,
      latencyMs: Math.round(exchange.latencyMs * 1000) / 1000,
      payloadJson,
    });
  };
  let server: Server;
  try {
    server = await startGuard(
      {
        upstream: config.upstream,
        trustedProxies: config.trustedProxies,
        limits: config.limits ?? DEFAULT_LIMITS,
        clock,
        decide,
        inspectedBody,
        report,
        failed: (error) => output.stderr(`guard: a request failed inside the guard and was answered 502: ${errorText(error)}\n`),
      },
      config.host,
      config.port,
    );
  } catch (error) {
    stream.close();
    await journal.close();
    await waf?.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Ready means ready: with a policy that calls preconfigured WAF sets, every engine thread has loaded its rules.
  const first: PolicyState = state;
  if (waf !== undefined && first !== undefined && 'compiled' in first && first.compiled.wafPlan !== undefined) {
    await waf.warm(first.compiled.wafPlan);
    const seconds = (performance.now() - (warmingSince ?? performance.now())) / 1000;
    output.stderr(`guard: the WAF engine's ${waf.workers} threads loaded the policy's rules in ${seconds.toFixed(1)} s\n`);
  }
  output.stdout(`guard listening on ${url}\n`);
  return {
    url,
    server,
    async close() {
      stream.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      if (pending !== '') flushOut();
      await journal.close();
      await waf?.close();
    },
  };
}
