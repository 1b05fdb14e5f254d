import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FamilyErrors } from '../../src/core/family-errors.ts';
import { neutralErrorBodyProblem } from '../../src/core/neutral-error.ts';
import type { RegisteredRoute } from '../../src/core/route-registry.ts';
import { DEFAULT_BODY_LIMIT } from '../../src/core/server.ts';
import { SERVICES } from '../../src/services/registry.ts';
import { withConsole } from '../../src/console/index.ts';
import { ATTACKS, BODY_ATTACKS } from './attacks.ts';
import { clusterRoutes } from './cluster.ts';
import { batchAnswers, errorDialectProblem, headPartIds } from './dialect.ts';
import { FAMILY_ATTACKS } from './family-attacks.ts';
import { FuzzServer, type ServerState } from './fuzz-server.ts';
import { guardLaneTest } from './guard-lane.ts';
import { smtpLaneTest } from './smtp-lane.ts';
import { machineIdleMs, processCpuMs, startHealthProbe } from './health-probe.ts';
import { requestOwnMs, type Stall } from './stall-judge.ts';
import { Random } from './random.ts';
import { sendRaw, type RawReply } from '../../src/testing/raw-http.ts';
import { pathOfTarget, targetAsSeen, toBytes, type FuzzRequest } from './request.ts';

/**
 * The bad-input fuzzer: every route of every family gets malformed, mistyped, prototype-named,
 * deep, oversized, unframed, badly credentialed and badly addressed requests, and what issue 24
 * found missing: nesting and YAML alias bombs on every content type a route reads, int64/uint64
 * bounds on every numeric query parameter, ZIP compression methods on upload routes, null and
 * mistyped items in every cluster list field, prototype-named keys in every patch type.
 *
 * Each family gets its own lane of requests, one at a time, the four lanes side by side, against a
 * fogbank in a child process (fuzz-server.ts), which is started again when a request kills it.
 * Counted per family and all required to be 0: crashes (the process died with one of the
 * family's requests in flight), stalls (an answer slower than 1 s, and again when the request is
 * sent a second time, alone, with over 1 s of that wait fogbank's own — its CPU time plus the cores' idle
 * time — or none at all; a /healthz probe, run all along, that waited over 1 s more than a bare
 * node:http heartbeat probed beside it the same way, with fogbank using over 1 s of CPU
 * meanwhile, health-probe.ts), 5xx answers, error answers outside the dialect of the family owning the path (core's neutral answer for paths no
 * family owns), a rejected request that changed the family's part of the store, and prototype
 * pollution in the server process. The counts and the seed are printed either way.
 *
 * FOGBANK_FUZZ_SEED replays a run; FOGBANK_FUZZ_REQUESTS is the count per family (default
 * 10,000); FOGBANK_FUZZ_MAX_FAILURES is how many failures are described before the run stops.
 */

const SEED = Number(process.env['FOGBANK_FUZZ_SEED'] ?? 20261124);
const PER_FAMILY = Number(process.env['FOGBANK_FUZZ_REQUESTS'] ?? 10_000);
const MAX_FAILURES = Number(process.env['FOGBANK_FUZZ_MAX_FAILURES'] ?? 15);
/** STALL_LIMIT_MS is the longest an answer may take, and a /healthz probe beyond what a bare heartbeat beside it waited too (stall-judge.ts). */
const STALL_LIMIT_MS = 1000;

/**
 * WHOLE_STATE_LIMIT_MS is the limit for taking a snapshot (`GET`/`HEAD /_fogbank/snapshot`): its
 * work grows with everything every lane has stored so far (tens of thousands of records and the
 * mail and artifact files by the end of a run), not with what the request sent, so it is not
 * held to one request's second.
 */
const WHOLE_STATE_LIMIT_MS = 10_000;

/** limitFor is the stall limit of one request. */
function limitFor(method: string, path: string): number {
  return (method === 'GET' || method === 'HEAD') && path.replace(/\/+$/, '') === '/_fogbank/snapshot' ? WHOLE_STATE_LIMIT_MS : STALL_LIMIT_MS;
}
/** CROSSED_FAMILY is the family whose kinds the console's actions write, through that family's own API. */
const CROSSED_FAMILY = 'compute';

/**
 * crossesFamilies is true for a request that may write another family's kinds: the console's
 * compute actions (start, resize, attach a policy…), which run compute's own methods. Such a
 * request runs alone, and a rejected one is held to compute's kinds as well as the console's.
 */
function crossesFamilies(request: FuzzRequest): boolean {
  const target = targetAsSeen(request);
  const method = request.raw === undefined ? request.method : (/^([A-Z]+) /.exec(request.raw.toString('latin1'))?.[1] ?? '');
  return method !== 'GET' && method !== 'HEAD' && pathOfTarget(target).startsWith('/_fogbank/console/api/compute/');
}

/** ANSWER_TIMEOUT_MS is how long a request waits before it counts as unanswered (above the apiserver's 3 s resourceVersion wait). */
const ANSWER_TIMEOUT_MS = 5000;
/** FAMILIES are the families fuzzed, each in its own lane. */
const FAMILIES = ['compute', 'cluster', 'mail', 'publisher', 'control', 'console'] as const;
/** NEW_ATTACK_WEIGHT is how many times each issue-24 attack is listed beside each older one. */
const NEW_ATTACK_WEIGHT = 3;

/** Counts are what the run found for one family. */
interface Counts {
  requests: number;
  crashes: number;
  stalls: number;
  serverErrors: number;
  nonDialect: number;
  storeChanged: number;
  pollution: number;
  /** Answers slower than 1 s that the real service gives too (the apiserver's "Too large resource version" wait): not failures. */
  faithfulWaits: number;
  /** Seconds the family's lane took. */
  seconds: number;
}

interface Failure {
  readonly family: string;
  readonly index: number;
  readonly request: FuzzRequest;
  readonly problem: string;
}

/** describeRequest shows a failing request short enough to read, long enough to recognise. */
function describeRequest(request: FuzzRequest): string {
  const clip = (text: string): string => (text.length > 160 ? `${text.slice(0, 160)}…(${text.length} chars)` : text);
  const body = request.raw ?? request.body;
  return `[${request.attack}] ${request.method} ${clip(request.target)}${body === undefined ? '' : ` body ${clip(JSON.stringify(body.toString('latin1')))}`}`;
}

/**
 * replacesAllState is true for the admin routes that change how every family answers: emptying
 * every family (`POST /_fogbank/reset`, whatever it is sent; the console's too) and adding a fault rule (a body that
 * happens to be a rule such as `{"status":500}` would fail every other lane's requests). Fired in
 * one lane they would make the other lanes' checks meaningless; their answers, bad input
 * included, are tested in services/control/admin-api.test.ts. `PUT /_fogbank/snapshot` stays
 * fuzzed (no hostile body is a snapshot).
 */
const replacesAllState = (route: RegisteredRoute): boolean =>
  route.method === 'POST' &&
  (route.url === '/_fogbank/reset' ||
    route.url === '/_fogbank/faults' ||
    route.url === '/_fogbank/console/api/reset' ||
    route.url === '/_fogbank/console/api/faults');

/**
 * sameAsAdminRoute is true for the console's snapshot routes: the admin API's own snapshot code
 * behind a session (fuzzed in the control lane); two lanes taking whole-store snapshots at once
 * would only measure each other.
 */
const sameAsAdminRoute = (route: RegisteredRoute): boolean => route.url === '/_fogbank/console/api/snapshot';

/** familyOfKind names the family a store kind belongs to (`cluster/clusterroles`, `compute.operations`, …). */
const familyOfKind = (kind: string): string => kind.split(/[./]/)[0] ?? kind;

/**
 * isFaithfulWait is true for the apiserver's own slow answer: a read at a resourceVersion newer
 * than the store's waits (3 s) and then answers 504 `Too large resource version`.
 */
function isFaithfulWait(family: string | undefined, reply: RawReply): boolean {
  if (family !== 'cluster' || reply.status !== 504) return false;
  try {
    const body = JSON.parse(reply.body) as { kind?: unknown; reason?: unknown; message?: unknown };
    return body.kind === 'Status' && body.reason === 'Timeout' && typeof body.message === 'string' && body.message.includes('Too large resource version');
  } catch {
    return false;
  }
}

const fuzz = new FuzzServer();

before(async () => {
  await fuzz.start();
});
after(async () => {
  await fuzz.stop();
});

describe('bad-input fuzzer', () => {
  // Five lanes of 10,000 requests take two to three minutes on two cores: the file as a whole is
  // bound by the suite's --test-timeout (package.json), this test alone by ten minutes.
  it(`answers ${PER_FAMILY} hostile requests per family over every route, in the family's dialect (seed ${SEED})`, { timeout: 600_000 }, async (t) => {
    // The cluster registers catch-alls and resolves resources itself: aim at its concrete paths.
    const routes: RegisteredRoute[] = [
      ...fuzz.routes.filter((route) => route.family !== undefined && route.family !== 'cluster' && !replacesAllState(route) && !sameAsAdminRoute(route)),
      ...clusterRoutes(),
    ];
    const familyErrors = new FamilyErrors(withConsole(SERVICES), DEFAULT_BODY_LIMIT);
    const counts = new Map<string, Counts>(
      FAMILIES.map((family) => [
        family,
        { requests: 0, crashes: 0, stalls: 0, serverErrors: 0, nonDialect: 0, storeChanged: 0, pollution: 0, faithfulWaits: 0, seconds: 0 },
      ]),
    );
    const tally = new Map<string, number>();
    const failures: Failure[] = [];
    const inFlight = new Map<string, FuzzRequest>();
    let restarting: Promise<void> | undefined;
    // Beside a bare node:http heartbeat, probed the same way: a pause they share is the machine's, not fogbank's.
    const probe = await startHealthProbe(fuzz, STALL_LIMIT_MS);

    /**
     * alone runs `resend` with every other lane held before its next request and none of theirs
     * in flight, so the server's CPU time meanwhile is this request's (and its controllers').
     */
    let held: Promise<void> | undefined;
    /** crossings counts the requests that ran alone because they write another family's kinds; a lane that saw fewer reads its "before" again. */
    let crossings = 0;
    const alone = async <T>(resend: () => Promise<T>): Promise<T> => {
      while (held !== undefined) await held;
      let release = (): void => undefined;
      held = new Promise((resolve) => {
        release = resolve;
      });
      try {
        while (inFlight.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
        return await resend();
      } finally {
        held = undefined;
        release();
      }
    };

    /** restart starts a new server once, however many lanes find the old one dead. */
    const restart = (): Promise<void> =>
      (restarting ??= (async () => {
        const lost = [...inFlight];
        for (const [family, request] of lost) {
          counts.get(family)!.crashes++;
          failures.push({ family, index: -1, request, problem: `the server process died with this request in flight (${fuzz.deaths.at(-1) ?? 'unknown'})` });
        }
        await fuzz.start();
      })().finally(() => {
        restarting = undefined;
      }));

    const lane = async (family: (typeof FAMILIES)[number], laneIndex: number): Promise<void> => {
      const random = new Random(SEED + laneIndex * 7919);
      const own = routes.filter((route) => route.family === family);
      const bodyRoutes = own.filter((route) => route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH');
      const attacks = [
        ...Object.keys(ATTACKS),
        ...Object.keys(FAMILY_ATTACKS)
          .filter((name) => own.some((route) => FAMILY_ATTACKS[name]!.applies(route.method, route.url, route.family)))
          .flatMap((name) => Array<string>(NEW_ATTACK_WEIGHT).fill(name)),
      ];
      const count = counts.get(family)!;
      const fail = (index: number, request: FuzzRequest, problem: string): void => void failures.push({ family, index, request, problem });
      const laneStarted = performance.now();
      let before: ServerState | undefined;
      let seenCrossings = 0;
      for (let index = 0; index < PER_FAMILY && failures.length < MAX_FAILURES; index++) {
        const name = random.pick(attacks);
        const special = FAMILY_ATTACKS[name];
        let request: FuzzRequest;
        if (special !== undefined) {
          const pool = own.filter((route) => special.applies(route.method, route.url, route.family));
          request = special.attack({ route: random.pick(pool), random, bodyLimit: DEFAULT_BODY_LIMIT, routes });
        } else {
          const pool = BODY_ATTACKS.has(name) && bodyRoutes.length > 0 && random.chance(0.8) ? bodyRoutes : own;
          request = ATTACKS[name]!({ route: random.pick(pool), random, bodyLimit: DEFAULT_BODY_LIMIT, routes });
        }
        if (restarting !== undefined) await restarting;
        count.requests++;
        const owner = familyErrors.familyFor(pathOfTarget(targetAsSeen(request)));
        const generation = fuzz.generation;
        // The state after the lane's previous request is this one's "before": the lane sends one
        // request at a time, and only its own family's kinds are held to it. A request that writes
        // another family's kinds (crossesFamilies) ran alone since? Then "before" is read again.
        for (;;) {
          if (before === undefined || seenCrossings !== crossings) {
            seenCrossings = crossings;
            before = await fuzz.state();
          }
          if (held !== undefined) await held;
          else if (seenCrossings === crossings) break;
        }
        // Nothing awaited between this and inFlight.set: a lane re-sending alone sees this request in flight or none.
        let reply: RawReply | undefined;
        let unanswered: string | undefined;
        let after: ServerState | undefined;
        const exchange = async (): Promise<void> => {
          inFlight.set(family, request);
          try {
            reply = await sendRaw(fuzz.port, toBytes(request), 50, ANSWER_TIMEOUT_MS);
          } catch (error) {
            unanswered = (error as Error).message;
          }
          after = fuzz.alive && fuzz.generation === generation ? await fuzz.state() : undefined;
        };
        const crossing = crossesFamilies(request);
        if (crossing)
          // Alone, from a state read just before it: its writes to the other family are its own.
          await alone(async () => {
            before = await fuzz.state();
            await exchange();
            crossings++;
          });
        else await exchange();
        if (after === undefined || before === undefined) {
          // The process died (this request or another lane's killed it): counted once per lost request.
          if (fuzz.generation === generation) await restart();
          else if (restarting !== undefined) await restarting;
          inFlight.delete(family);
          before = undefined;
          continue;
        }
        inFlight.delete(family);
        const previous = before;
        before = after;
        if (reply === undefined) {
          count.stalls++;
          fail(index, request, `no answer: ${unanswered}`);
          continue;
        }
        tally.set(`${family} ${request.attack} ${reply.status}`, (tally.get(`${family} ${request.attack} ${reply.status}`) ?? 0) + 1);
        if (after.polluted.length > 0) {
          count.pollution++;
          fail(index, request, `Object.prototype gained ${after.polluted.join(', ')}`);
        }
        if (isFaithfulWait(owner?.name, reply)) {
          count.faithfulWaits++;
          continue;
        }
        const limit = limitFor(request.method, pathOfTarget(targetAsSeen(request)));
        if (reply.elapsedMs > limit) {
          // Sent again, alone (the other lanes held): a request slow twice is slow, not a busy
          // machine's blip, unless the second wait was mostly the machine's (stall-judge.ts: requestOwnMs).
          const { again, cpuBefore, cpuAfter, idleBefore, idleAfter } = await alone(async () => {
            const cpuBefore = processCpuMs(fuzz.pid);
            const idleBefore = machineIdleMs();
            const again = await sendRaw(fuzz.port, toBytes(request), 50, ANSWER_TIMEOUT_MS).catch(() => undefined);
            return { again, cpuBefore, idleBefore, cpuAfter: processCpuMs(fuzz.pid), idleAfter: machineIdleMs() };
          });
          const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
          const idleMs = idleBefore === undefined || idleAfter === undefined ? undefined : idleAfter - idleBefore;
          if (again === undefined || requestOwnMs(again.elapsedMs, cpuMs, idleMs) > limit) {
            count.stalls++;
            const figures = `fogbank used ${cpuMs ?? 'unknown'} ms of CPU and the cores stood idle ${idleMs ?? 'unknown'} ms meanwhile`;
            fail(
              index,
              request,
              `answered ${reply.status} after ${Math.round(reply.elapsedMs)} ms, and ${again === undefined ? 'not at all' : `${again.status} after ${Math.round(again.elapsedMs)} ms (${figures})`} when sent again`,
            );
          }
          before = undefined;
        }
        if (reply.status >= 500) {
          count.serverErrors++;
          fail(index, request, `answered ${reply.status}: ${reply.body.slice(0, 300)}`);
        }
        const contentType = reply.headers['content-type'] ?? '';
        if (reply.status >= 400) {
          if (after.revision !== previous.revision) {
            const kinds = (await fuzz.kindsChanged(previous.revision, after.revision)) ?? [];
            const own = kinds.filter((kind) => familyOfKind(kind) === family || (crossing && familyOfKind(kind) === CROSSED_FAMILY));
            if (own.length > 0) {
              count.storeChanged++;
              fail(index, request, `rejected with ${reply.status} but ${own.join(', ')} changed (revision ${previous.revision} → ${after.revision})`);
            }
          }
          if (request.method !== 'HEAD') {
            let body: unknown;
            try {
              body = JSON.parse(reply.body);
            } catch {
              count.nonDialect++;
              fail(index, request, `error body is not JSON (${contentType}): ${reply.body.slice(0, 200)}`);
              continue;
            }
            const problem = owner === undefined ? neutralErrorBodyProblem(reply.status, body) : errorDialectProblem(owner, reply.status, body);
            if (problem !== undefined) {
              count.nonDialect++;
              fail(index, request, `error body not in ${owner?.name ?? 'the neutral'} dialect (${problem}): ${reply.body.slice(0, 300)}`);
            }
          }
        } else if (contentType.startsWith('multipart/mixed') && owner !== undefined) {
          const heads = headPartIds(request.body?.toString('latin1') ?? '');
          for (const part of batchAnswers(contentType, reply.body)) {
            if (part.contentId !== undefined && heads.has(part.contentId)) continue;
            if (part.status >= 500) {
              count.serverErrors++;
              fail(index, request, `a batch part answered ${part.status}: ${part.body.slice(0, 300)}`);
            } else if (part.status >= 400) {
              let body: unknown;
              try {
                body = JSON.parse(part.body);
              } catch {
                count.nonDialect++;
                fail(index, request, `a batch part's error body is not JSON: ${JSON.stringify(part.body.slice(0, 200))}`);
                continue;
              }
              const problem = errorDialectProblem(owner, part.status, body);
              if (problem !== undefined) {
                count.nonDialect++;
                fail(index, request, `batch part error not in ${owner.name}'s dialect (${problem}): ${part.body.slice(0, 300)}`);
              }
            }
          }
        }
      }
      count.seconds = (performance.now() - laneStarted) / 1000;
    };

    const started = performance.now();
    let stalls: readonly Stall[] = [];
    try {
      await Promise.all(FAMILIES.map((family, index) => lane(family, index)));
    } finally {
      const { probes, worstMs, heartbeatWorstMs, stalls: probeStalls } = await probe.stop();
      stalls = probeStalls;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const serverCpu = ((await fuzz.state())?.cpuMs ?? 0) / 1000;
      const { user, system } = process.cpuUsage();
      t.diagnostic(`CPU: server process ${serverCpu.toFixed(1)} s (the last one started), fuzzer ${((user + system) / 1e6).toFixed(1)} s`);
      const table = [...counts].map(
        ([family, c]) =>
          `${family}: ${c.requests} requests, ${c.crashes} crashes, ${c.stalls} stalls > 1 s, ${c.serverErrors} 5xx, ${c.nonDialect} non-dialect errors, ${c.storeChanged} rejected-but-stored, ${c.pollution} prototype pollution (${c.faithfulWaits} faithful resourceVersion waits; ${c.seconds.toFixed(1)} s)`,
      );
      t.diagnostic(
        `seed ${SEED}; ${seconds} s; ${probes} /healthz probes, worst ${Math.round(worstMs)} ms (a bare node:http heartbeat beside them: worst ${Math.round(heartbeatWorstMs)} ms); server deaths: ${fuzz.deaths.length}`,
      );
      for (const line of table) t.diagnostic(line);
      t.diagnostic(
        `answers by family, attack and status: ${[...tally]
          .sort()
          .map(([key, n]) => `${key}×${n}`)
          .join(', ')}`,
      );
    }
    for (const stall of stalls)
      failures.push({
        family: '-',
        index: -1,
        request: { attack: 'event loop', method: '-', target: '-', headers: [] },
        problem: `a /healthz probe waited ${Math.round(stall.waitedMs)} ms while the heartbeat beside it was held up ${Math.round(stall.heartbeatHeldMs)} ms and fogbank used ${stall.cpuMs === undefined ? 'unknown' : Math.round(stall.cpuMs)} ms of CPU: ${Math.round(stall.ownMs)} ms fogbank's own (limit ${STALL_LIMIT_MS} ms)`,
      });
    const health = await sendRaw(fuzz.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.equal(health.status, 200, 'fogbank stopped answering');
    assert.deepEqual(
      failures.map((failure) => `${failure.family} #${failure.index} ${describeRequest(failure.request)}\n    ${failure.problem}`),
      [],
      `replay with FOGBANK_FUZZ_SEED=${SEED} FOGBANK_FUZZ_REQUESTS=${PER_FAMILY}`,
    );
    for (const [family, c] of counts) assert.ok(c.requests >= PER_FAMILY, `${family} ran ${c.requests} requests`);
  });
});

// The guard's lane (issue 44): hostile HTTP through `fogbank guard` to an upstream, in a process of its own.
describe('bad-input fuzzer: the guard', () => guardLaneTest(SEED, PER_FAMILY, MAX_FAILURES));

// The SMTP submission listener's lane (issue 40): hostile SMTP sessions, a quarter of a family's count in commands.
describe('bad-input fuzzer: SMTP submission', () => smtpLaneTest(SEED, Math.ceil(PER_FAMILY / 4), MAX_FAILURES));
